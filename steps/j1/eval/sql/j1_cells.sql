-- J1-EVAL cells, ours: per agent, environment, metric and component, the mean on the paper's 0-100 scale over
-- the instances that have a value (scored ones, and failed tasks at the paper's value: 0, or 1 for III-4), with
-- the instances left out counted by reason. Topic rows (T1, T2 …) are evidence, not cells.
-- Inputs: scores (every agent's scores.parquet), agents (agent, model, agent_scripted, environment_scripted).
-- n_failed counts the instances of a cell that failed model calls left out or affected: a dialogue that broke on
-- a failed call (dialogue_failed, failure `call_failed: …`) and a judge call that failed after retries (judge_failed,
-- failure `call_failed`), at the cell's own row or, for a metric, at any of its components and topics; with
-- j1eval.call_failed = score, a dialogue that a failed call ended is scored as it stands and counted here too.
-- Inputs: also dialogues (agent, instance_id, ended_by).
-- n_unparsable counts likewise the instances of a cell whose judge answer did not parse after its repair rounds
-- (judge_failed, failure `unparsable`), at the cell's own row or, for a metric, at any of its components and topics.
-- n_context_exceeded counts the failed tasks of a cell whose dialogue the agent ended by outgrowing its context
-- (ended_by `context_exceeded`): the model's limit, scored as a failed task and shown apart in the report.
WITH failed_calls AS (
    SELECT agent, scenario, metric, component, instance_id, status FROM scores
    WHERE (status = 'dialogue_failed' AND starts_with(failure, 'call_failed'))
       OR (status = 'judge_failed' AND failure = 'call_failed')
    UNION ALL
    SELECT s.agent, s.scenario, s.metric, s.component, s.instance_id, 'dialogue_failed'
    FROM scores s JOIN dialogues d USING (agent, instance_id)
    WHERE d.ended_by = 'call_failed'
), unparsable AS (
    SELECT agent, scenario, metric, component, instance_id FROM scores
    WHERE status = 'judge_failed' AND failure = 'unparsable'
), cells AS (
    SELECT s.agent, s.scenario AS scope, s.metric, s.component,
           100 * avg(s.value) AS value,
           count(s.value) AS n,
           count(*) FILTER (WHERE s.status = 'failed_task') AS n_failed_task,
           count(*) FILTER (WHERE s.status = 'failed_task' AND d.ended_by = 'context_exceeded') AS n_context_exceeded,
           count(*) FILTER (WHERE s.status = 'skipped') AS n_skipped,
           count(*) FILTER (WHERE s.status = 'judge_failed') AS n_judge_failed,
           count(*) FILTER (WHERE s.status = 'dialogue_failed') AS n_dialogue_failed,
           coalesce(max(s.judge) FILTER (WHERE s.judge <> 'rule'), 'rule') AS judge,
           coalesce(bool_or(s.judge_proxy), false) AS judge_proxy,
           coalesce(bool_or(s.judge_proxy), false) OR any_value(a.agent_scripted) OR any_value(a.environment_scripted) AS proxy
    FROM scores s JOIN agents a USING (agent) LEFT JOIN dialogues d USING (agent, instance_id)
    WHERE NOT regexp_full_match(s.component, 'T[0-9]+')
    GROUP BY s.agent, s.scenario, s.metric, s.component
)
SELECT c.*,
       (SELECT count(DISTINCT f.instance_id) FROM failed_calls f
        WHERE f.agent = c.agent AND f.scenario = c.scope AND f.metric = c.metric
          AND (c.component = '' OR f.component = c.component OR f.status = 'dialogue_failed')) AS n_failed,
       (SELECT count(DISTINCT u.instance_id) FROM unparsable u
        WHERE u.agent = c.agent AND u.scenario = c.scope AND u.metric = c.metric
          AND (c.component = '' OR u.component = c.component)) AS n_unparsable
FROM cells c
ORDER BY c.agent, c.scope, c.metric, c.component
