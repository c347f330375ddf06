-- Court failures, ours (J1 App. F.4, Fig. 4b): per agent and court, the trials that were invalid (UNI = 0) and
-- why (no final judgment, single-turn collapse, too few exchanges), the trials broken outside the agent's
-- control, and how many trials show each of the paper's four failure causes, among all trials and among the
-- invalid ones. Values are counts; n is the number of trials.
-- Inputs: scores, dialogues (failure_causes: list of cause names), agents, environments (the registrations).
WITH trials AS (
    SELECT d.agent, d.scenario, d.instance_id, d.failure_causes,
           u.value AS uni, json_extract_string(u.evidence, '$.invalid') AS invalid, b.broken
    FROM dialogues d
    LEFT JOIN (SELECT agent, instance_id, value, evidence FROM scores WHERE metric = 'III-1' AND component = 'UNI') u
           USING (agent, instance_id)
    LEFT JOIN (SELECT agent, instance_id, true AS broken FROM scores
               WHERE metric = 'III-1' AND component = '' AND status = 'dialogue_failed') b
           USING (agent, instance_id)
    WHERE d.scenario IN (SELECT scenario FROM environments WHERE court IS NOT NULL)
), causes(cause) AS (
    VALUES ('single_turn_collapse'), ('missing_final_objective'), ('missing_addressee'), ('role_omission')
), counts AS (
    SELECT agent, scenario, 'trials' AS metric, count(*) AS value FROM trials GROUP BY ALL
    UNION ALL
    SELECT agent, scenario, 'invalid', count(*) FILTER (WHERE uni = 0) FROM trials GROUP BY ALL
    UNION ALL
    SELECT agent, scenario, 'broken', count(*) FILTER (WHERE broken) FROM trials GROUP BY ALL
    UNION ALL
    SELECT t.agent, t.scenario, 'invalid/' || r.reason, count(*) FILTER (WHERE t.uni = 0 AND t.invalid = r.reason)
    FROM trials t, (VALUES ('no_judgment'), ('single_turn_collapse'), ('too_short')) r(reason) GROUP BY ALL
    UNION ALL
    SELECT t.agent, t.scenario, 'cause/' || c.cause, count(*) FILTER (WHERE list_contains(t.failure_causes, c.cause))
    FROM trials t, causes c GROUP BY ALL
    UNION ALL
    SELECT t.agent, t.scenario, 'invalid+cause/' || c.cause,
           count(*) FILTER (WHERE t.uni = 0 AND list_contains(t.failure_causes, c.cause))
    FROM trials t, causes c GROUP BY ALL
)
SELECT c.agent, c.scenario AS scope, c.metric, '' AS component, CAST(c.value AS DOUBLE) AS value,
       n.value AS n, 'rule' AS judge, a.agent_scripted OR a.environment_scripted AS proxy
FROM counts c
JOIN (SELECT agent, scenario, count(*) AS value FROM trials GROUP BY ALL) n USING (agent, scenario)
JOIN agents a USING (agent)
ORDER BY c.agent, c.scenario, c.metric
