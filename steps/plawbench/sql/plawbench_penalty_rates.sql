-- Ours, opt-in (plawbench.t1_penalties: paper): T1 with the paper's Table 8 penalties, pooled by points
-- (Σ penalised / Σ maximum) like plawbench_rates; rows in its shape. Input: `scores` (rows of dimension
-- paper_penalty exist only in that mode; a failure `penalty_<kind>` is a penalty judge failure, any failure
-- is excluded and counted; n_failed_calls: of them, those a model call failing after retries left out;
-- n_unparsable: those whose rubric or penalty judge answer did not parse). No rows
-- when the mode is off.
SELECT agent, 'paper_penalty_optin' AS "table",
       CASE variant WHEN 'single' THEN 'overall' ELSE 'consultation_multiturn' END AS scope,
       'T1' AS metric,
       sum(awarded) FILTER (WHERE failure IS NULL) / sum(max_points) FILTER (WHERE failure IS NULL) AS value,
       count(*) FILTER (WHERE failure IS NULL) AS n,
       count(*) FILTER (WHERE failure IS NOT NULL) AS n_failed,
       count(*) FILTER (WHERE failure IN ('agent_call_failed', 'call_failed', 'penalty_call_failed')) AS n_failed_calls,
       count(*) FILTER (WHERE failure IN ('unparsable', 'penalty_unparsable')) AS n_unparsable
FROM scores
WHERE dimension = 'paper_penalty'
GROUP BY agent, variant
ORDER BY 1, 3;
