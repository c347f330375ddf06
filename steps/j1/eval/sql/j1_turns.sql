-- Table 10, ours: the average number of turns per environment (the paper's turn: one utterance of the party that
-- drives the dialogue and the reply it triggers), over every dialogue of the run; n_failed: of them, the dialogues
-- that a failed model call ended early.
-- Inputs: dialogues (agent, scenario, instance_id, exchanges, ended_by, failure_causes), agents.
SELECT d.agent, d.scenario AS scope, 'turns' AS metric, '' AS component,
       avg(d.exchanges) AS value, count(*) AS n,
       count(*) FILTER (WHERE d.ended_by = 'call_failed') AS n_failed, 0 AS n_unparsable, 'none' AS judge,
       any_value(a.agent_scripted) OR any_value(a.environment_scripted) AS proxy
FROM dialogues d JOIN agents a USING (agent)
GROUP BY d.agent, d.scenario
ORDER BY d.agent, d.scenario
