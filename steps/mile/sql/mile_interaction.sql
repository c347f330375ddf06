-- MILE Table 2 (interaction evaluation), ours: each dialogue's mean grade per metric over its scored windows,
-- then the mean over dialogues × 10 (scope 'overall', n = dialogues); AVE = mean of INT, PROF, LOGI. Also the
-- micro mean over all windows (scope 'windows', n = windows) and the macro means per cause of action (the
-- layout of the paper's Table 7; scope = law_reason).
-- n_failed_calls: the windows (and broken dialogues) of the scope that a model call failing after retries left
-- out: the dialogue broke on one, or the judge call failed; n_unparsable: the windows whose judge answer did not
-- parse after its repair rounds. AVE takes the largest of its metrics' counts.
-- Inputs: scores, dialogues (law_reason per instance), agents.
WITH windows AS (
    SELECT s.agent, s.instance_id, d.law_reason, s.metric, s.grade, s.failure, s.judge, s.judge_proxy AS proxy
    FROM scores s JOIN dialogues d USING (agent, instance_id)
    WHERE s.stage = 'interaction'
), per_dialogue AS (
    SELECT agent, instance_id, law_reason, metric, avg(grade) AS grade
    FROM windows WHERE failure IS NULL
    GROUP BY ALL
), failed AS (
    SELECT agent, metric, count(*) FILTER (WHERE failure IS NOT NULL) AS n_failed,
           max(judge) FILTER (WHERE judge <> 'rule') AS judge, bool_or(proxy) AS proxy
    FROM windows GROUP BY ALL
), calls AS (
    SELECT agent, law_reason AS scope, metric, count(*) FILTER (WHERE failure IN ('call_failed', 'dialogue_failed')) AS n_failed_calls,
           count(*) FILTER (WHERE failure = 'unparsable') AS n_unparsable
    FROM windows GROUP BY ALL
    UNION ALL
    SELECT agent, s.scope, metric, count(*) FILTER (WHERE failure IN ('call_failed', 'dialogue_failed')),
           count(*) FILTER (WHERE failure = 'unparsable')
    FROM windows, (VALUES ('overall'), ('windows')) s(scope) GROUP BY ALL
), macro AS (
    SELECT agent, 'overall' AS scope, metric, avg(grade) * 10 AS value, count(*) AS n FROM per_dialogue GROUP BY ALL
    UNION ALL
    SELECT agent, law_reason AS scope, metric, avg(grade) * 10, count(*) FROM per_dialogue GROUP BY ALL
    UNION ALL
    SELECT agent, 'windows' AS scope, metric, avg(grade) * 10, count(*) FROM windows WHERE failure IS NULL GROUP BY ALL
), rows AS (
    -- every scope with windows, also one none of whose windows has a grade (no value; its failures counted)
    SELECT c.agent, c.scope, c.metric, m.value, coalesce(m.n, 0) AS n, f.n_failed, c.n_failed_calls,
           c.n_unparsable, f.judge, f.proxy OR a.agent_scripted OR a.environment_scripted AS proxy
    FROM calls c JOIN failed f USING (agent, metric) JOIN agents a USING (agent)
    LEFT JOIN macro m USING (agent, scope, metric)
), ave AS (
    SELECT agent, scope, 'AVE' AS metric, CASE WHEN count(value) = 3 THEN avg(value) END AS value, min(n) AS n,
           max(n_failed) AS n_failed, max(n_failed_calls) AS n_failed_calls, max(n_unparsable) AS n_unparsable,
           max(judge) AS judge,
           bool_or(proxy) AS proxy
    FROM rows GROUP BY agent, scope
)
SELECT 'interaction' AS "table", agent, scope, metric, value, n, n_failed, n_failed_calls, n_unparsable, judge, proxy
FROM (SELECT * FROM rows UNION ALL SELECT * FROM ave)
ORDER BY agent, scope, metric
