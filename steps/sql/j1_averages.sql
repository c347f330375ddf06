-- Table 3's AVG columns (spec j1-envs §5.2; they reproduce all 17 printed rows): AVG_OO is the mean of the eight
-- outcome cells, AVG_PO of the eight process cells, III-4 in neither; Overall = (AVG_OO + AVG_PO) / 2 (Fig. 3).
-- A cell that is missing (its environment not run, or no instance with a value) leaves the average missing.
-- n_failed sums the cells' instances that failed model calls left out or affected.
-- Input: cells (j1_cells: agent, scope, metric, component, value, n, n_failed, judge, proxy).
WITH kinds(scope, metric, kind) AS (
    VALUES ('KQ', 'I-1', 'AVG_OO'), ('KQ', 'I-2', 'AVG_OO'), ('LC', 'I-1', 'AVG_OO'), ('LC', 'I-2', 'AVG_OO'),
           ('CD', 'II-2', 'AVG_OO'), ('DD', 'II-2', 'AVG_OO'), ('CI', 'III-2', 'AVG_OO'), ('CR', 'III-3', 'AVG_OO'),
           ('CD', 'II-1', 'AVG_PO'), ('DD', 'II-1', 'AVG_PO'), ('CI', 'III-1', 'AVG_PO'), ('CI', 'III-5', 'AVG_PO'),
           ('CI', 'III-6', 'AVG_PO'), ('CR', 'III-1', 'AVG_PO'), ('CR', 'III-5', 'AVG_PO'), ('CR', 'III-6', 'AVG_PO')
), averages AS (
    SELECT a.agent, k.kind AS metric,
           CASE WHEN count(c.value) = 8 THEN avg(c.value) END AS value,
           sum(c.n) AS n, coalesce(sum(c.n_failed), 0) AS n_failed,
           coalesce(max(c.judge) FILTER (WHERE c.judge <> 'rule'), 'rule') AS judge,
           coalesce(bool_or(c.proxy), false) AS proxy
    FROM (SELECT DISTINCT agent FROM cells) a
    CROSS JOIN kinds k
    LEFT JOIN cells c ON c.agent = a.agent AND c.scope = k.scope AND c.metric = k.metric AND c.component = ''
    GROUP BY a.agent, k.kind
), overall AS (
    SELECT agent, 'Overall' AS metric,
           CASE WHEN count(value) = 2 THEN avg(value) END AS value,
           sum(n) AS n, sum(n_failed) AS n_failed, coalesce(max(judge) FILTER (WHERE judge <> 'rule'), 'rule') AS judge, bool_or(proxy) AS proxy
    FROM averages
    GROUP BY agent
)
SELECT agent, 'overall' AS scope, metric, '' AS component, value, n, n_failed, judge, proxy
FROM (SELECT * FROM averages UNION ALL SELECT * FROM overall)
ORDER BY agent, metric
