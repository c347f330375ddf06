-- MILE interaction by round (the data of the paper's Fig. 5): mean INT, PROF and LOGI grade × 10 of the windows
-- that score each turn, over the dialogues that reached it (scope 'turn N', n = windows).
SELECT 'rounds' AS "table", s.agent, 'turn ' || s.turn AS scope, s.metric, avg(s.grade) * 10 AS value,
       count(*) AS n, 0 AS n_failed, max(s.judge) AS judge,
       bool_or(s.proxy) OR any_value(a.agent_scripted) OR any_value(a.environment_scripted) AS proxy
FROM scores s JOIN agents a USING (agent)
WHERE s.stage = 'interaction' AND s.failure IS NULL
GROUP BY s.agent, s.turn, s.metric
ORDER BY s.agent, s.turn, s.metric
