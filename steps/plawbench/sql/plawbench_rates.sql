-- PLawBench scoring rates of every agent, pooled by points (paper Eq. 1: Σ awarded / Σ maximum).
-- Inputs: `scores` (every agent's rows: one per response and dimension; `failure` set when the agent call or
-- the judge failed, such rows carry no score and are only counted), `tasks` (label and seq_class per task).
-- Tables: table3 (paper Table 3 columns, all tasks), scenarios (T2 per PCA label, ours), sequential
-- (T2 on PCA tasks with and without an order requirement, ours), macro (mean of per-response rates),
-- multiturn (the multi-turn consultation variant, ours). The opt-in paper-penalty T1 rows (dimension
-- paper_penalty) are left to plawbench_penalty_rates.
-- n_failed counts every excluded response (any failure); n_failed_calls those that a model call failing after
-- retries left out (the agent's answer, or the judge call); n_unparsable those whose judge answer did not parse
-- after its repair rounds.
WITH cells AS (
    SELECT s.agent, s.variant, s.item_id, s.awarded, s.max_points, s.failure, t.seq_class, s.scenario,
           CASE s.category WHEN 'consultation' THEN 'T1' WHEN 'case_analysis' THEN 'T2'
                ELSE 'T3/' || upper(s.scenario[1]) || s.scenario[2:] END
           || CASE WHEN s.dimension = 'total' THEN '' ELSE '/' || upper(s.dimension[1]) || s.dimension[2:] END
           AS metric
    FROM scores s JOIN tasks t USING (item_id)
    WHERE s.dimension <> 'paper_penalty'
),
pooled AS (
    SELECT agent, variant, metric, scenario, seq_class,
           sum(awarded) FILTER (WHERE failure IS NULL) AS awarded,
           sum(max_points) FILTER (WHERE failure IS NULL) AS max_points,
           avg(awarded / max_points) FILTER (WHERE failure IS NULL) AS macro,
           count(*) FILTER (WHERE failure IS NULL) AS n,
           count(*) FILTER (WHERE failure IS NOT NULL) AS n_failed,
           count(*) FILTER (WHERE failure IN ('agent_call_failed', 'call_failed', 'penalty_call_failed')) AS n_failed_calls,
           count(*) FILTER (WHERE failure IN ('unparsable', 'penalty_unparsable')) AS n_unparsable
    FROM cells
    GROUP BY ALL
)
SELECT agent, CASE variant WHEN 'single' THEN 'table3' ELSE 'multiturn' END AS "table",
       CASE variant WHEN 'single' THEN 'overall' ELSE 'consultation_multiturn' END AS scope,
       metric, sum(awarded) / sum(max_points) AS value, sum(n) AS n, sum(n_failed) AS n_failed,
       sum(n_failed_calls) AS n_failed_calls, sum(n_unparsable) AS n_unparsable
FROM pooled GROUP BY agent, variant, metric
UNION ALL
SELECT agent, 'macro', 'overall', metric,
       sum(macro * n) / nullif(sum(n), 0), sum(n), sum(n_failed), sum(n_failed_calls),
       sum(n_unparsable)
FROM pooled WHERE variant = 'single' AND metric NOT LIKE 'T2/%' GROUP BY agent, metric
UNION ALL
SELECT agent, 'scenarios', scenario, metric, sum(awarded) / sum(max_points), sum(n), sum(n_failed),
       sum(n_failed_calls), sum(n_unparsable)
FROM pooled WHERE variant = 'single' AND metric LIKE 'T2%' GROUP BY agent, scenario, metric
UNION ALL
SELECT agent, 'sequential', CASE WHEN seq_class = 'nonsequential' THEN 'nonsequential' ELSE 'sequential' END,
       metric, sum(awarded) / sum(max_points), sum(n), sum(n_failed), sum(n_failed_calls), sum(n_unparsable)
FROM pooled WHERE variant = 'single' AND metric LIKE 'T2%' GROUP BY ALL
ORDER BY 1, 2, 3, 4;
