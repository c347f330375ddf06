-- The paper's aggregate columns from the per-category rates (spec §3.4, verified on every row of Table 3):
-- T3 = (Defendant + Plaintiff) / 2 and Overall = 0.2·T1 + 0.5·T2 + 0.3·T3, each only when its inputs exist.
-- Input: `rates` (agent, source, metric, value) with metrics T1, T2, T3/Defendant, T3/Plaintiff.
WITH w AS (
    SELECT agent, source,
           any_value(value) FILTER (WHERE metric = 'T1') AS t1,
           any_value(value) FILTER (WHERE metric = 'T2') AS t2,
           any_value(value) FILTER (WHERE metric = 'T3/Defendant') AS def,
           any_value(value) FILTER (WHERE metric = 'T3/Plaintiff') AS pla
    FROM rates GROUP BY agent, source
)
SELECT agent, source, 'T3' AS metric, (def + pla) / 2 AS value FROM w WHERE def IS NOT NULL AND pla IS NOT NULL
UNION ALL
SELECT agent, source, 'Overall', 0.2 * t1 + 0.5 * t2 + 0.3 * (def + pla) / 2
FROM w WHERE t1 IS NOT NULL AND t2 IS NOT NULL AND def IS NOT NULL AND pla IS NOT NULL
ORDER BY 1, 2, 3;
