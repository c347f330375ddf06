-- MILE interaction by round (the data of the paper's Fig. 5): mean INT, PROF and LOGI grade × 10 of the windows
-- that score each turn, over the dialogues that reached it (scope 'turn N', n = windows); n_failed_calls: the
-- windows of the turn whose judge call failed after retries; n_unparsable: those whose judge answer did not parse.
SELECT 'rounds' AS "table", s.agent, 'turn ' || s.turn AS scope, s.metric,
       avg(s.grade) FILTER (WHERE s.failure IS NULL) * 10 AS value,
       count(*) FILTER (WHERE s.failure IS NULL) AS n, 0 AS n_failed,
       count(*) FILTER (WHERE s.failure IN ('call_failed', 'dialogue_failed')) AS n_failed_calls,
       count(*) FILTER (WHERE s.failure = 'unparsable') AS n_unparsable,
       max(s.judge) FILTER (WHERE s.failure IS NULL) AS judge,
       bool_or(s.judge_proxy) FILTER (WHERE s.failure IS NULL) OR any_value(a.agent_scripted) OR any_value(a.environment_scripted) AS proxy
FROM scores s JOIN agents a USING (agent)
WHERE s.stage = 'interaction' AND s.turn IS NOT NULL
GROUP BY s.agent, s.turn, s.metric
HAVING count(*) FILTER (WHERE s.failure IS NULL) > 0
ORDER BY s.agent, s.turn, s.metric
