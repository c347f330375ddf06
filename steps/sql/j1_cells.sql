-- J1-EVAL cells, ours: per agent, environment, metric and component, the mean on the paper's 0-100 scale over
-- the instances that have a value (scored ones, and failed tasks at the paper's value: 0, or 1 for III-4), with
-- the instances left out counted by reason. Topic rows (T1, T2 …) are evidence, not cells.
-- Inputs: scores (every agent's scores.parquet), agents (agent, model, agent_scripted, environment_scripted).
SELECT s.agent, s.scenario AS scope, s.metric, s.component,
       100 * avg(s.value) AS value,
       count(s.value) AS n,
       count(*) FILTER (WHERE s.status = 'failed_task') AS n_failed_task,
       count(*) FILTER (WHERE s.status = 'skipped') AS n_skipped,
       count(*) FILTER (WHERE s.status = 'judge_failed') AS n_judge_failed,
       count(*) FILTER (WHERE s.status = 'dialogue_failed') AS n_dialogue_failed,
       coalesce(max(s.judge) FILTER (WHERE s.judge <> 'rule'), 'rule') AS judge,
       coalesce(bool_or(s.proxy), false) AS judge_proxy,
       coalesce(bool_or(s.proxy), false) OR any_value(a.agent_scripted) OR any_value(a.environment_scripted) AS proxy
FROM scores s JOIN agents a USING (agent)
WHERE NOT regexp_full_match(s.component, 'T[0-9]+')
GROUP BY s.agent, s.scenario, s.metric, s.component
ORDER BY s.agent, s.scenario, s.metric, s.component
