-- MILE Table 1 (goal evaluation), ours: per agent, the mean of each metric on the paper's 0–100 scale over the
-- dialogues it could be scored on (failures excluded, counted in n_failed); AVE = mean of the 7 metric means.
-- n_failed_calls: of the failures, the dialogues a model call failing after retries left out (the dialogue broke
-- on one, or the judge call failed); n_unparsable: the dialogues whose judge answer did not parse after its repair
-- rounds. AVE takes the largest of its metrics' counts.
-- Inputs: scores (every agent's scores.parquet), agents (agent, model, scripted flags).
WITH per_metric AS (
    SELECT s.agent, s.metric,
           avg(s.scaled) FILTER (WHERE s.failure IS NULL) AS value,
           count(*) FILTER (WHERE s.failure IS NULL) AS n,
           count(*) FILTER (WHERE s.failure IS NOT NULL) AS n_failed,
           count(*) FILTER (WHERE s.failure IN ('call_failed', 'dialogue_failed')) AS n_failed_calls,
           count(*) FILTER (WHERE s.failure = 'unparsable') AS n_unparsable,
           coalesce(max(s.judge) FILTER (WHERE s.judge <> 'rule'), 'exact match') AS judge,
           bool_or(s.judge_proxy) OR any_value(a.agent_scripted) OR any_value(a.environment_scripted) AS proxy
    FROM scores s JOIN agents a USING (agent)
    WHERE s.stage = 'goal'
    GROUP BY s.agent, s.metric
), ave AS (
    SELECT agent, 'AVE' AS metric,
           CASE WHEN count(value) = 7 THEN avg(value) END AS value,
           min(n) AS n, max(n_failed) AS n_failed, max(n_failed_calls) AS n_failed_calls, max(n_unparsable) AS n_unparsable,
           max(judge) FILTER (WHERE judge <> 'exact match') AS judge, bool_or(proxy) AS proxy
    FROM per_metric
    WHERE metric IN ('CLI', 'DEF', 'F&R', 'CLA', 'EVID', 'STA', 'PROF')
    GROUP BY agent
)
SELECT 'goal' AS "table", agent, 'overall' AS scope, metric, value, n, n_failed, n_failed_calls, n_unparsable, judge, proxy
FROM (SELECT * FROM per_metric UNION ALL SELECT * FROM ave)
ORDER BY agent, metric
