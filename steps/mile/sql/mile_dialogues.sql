-- MILE dialogue statistics (the paper's Table 9 layout plus how dialogues ended and what the supervisor did):
-- turns per dialogue over the dialogues that did not fail; endings, client revisions, blurred and unsupervised
-- turns (a supervisor call that failed) over all dialogues; ended_at_context_limit (the lawyer's request outgrew its
-- context: the model's limit, not a failure) only for an agent that had such a dialogue. n_failed_calls: the
-- dialogues a failed model call ended, left out of the turn statistics (the `failed` row counts them itself).
WITH d AS (SELECT * FROM dialogues JOIN agents USING (agent)),
stats AS (
    SELECT agent, 'avg_turns' AS metric, avg(turns) FILTER (WHERE ended_by <> 'call_failed') AS value FROM d GROUP BY agent
    UNION ALL SELECT agent, 'max_turns', max(turns) FILTER (WHERE ended_by <> 'call_failed') FROM d GROUP BY agent
    UNION ALL SELECT agent, 'min_turns', min(turns) FILTER (WHERE ended_by <> 'call_failed') FROM d GROUP BY agent
    UNION ALL SELECT agent, 'ended_by_lawyer', count(*) FILTER (WHERE ended_by = 'marker') FROM d GROUP BY agent
    UNION ALL SELECT agent, 'ended_at_cap', count(*) FILTER (WHERE ended_by = 'max_turns') FROM d GROUP BY agent
    UNION ALL SELECT agent, 'ended_at_context_limit', count(*) FILTER (WHERE ended_by = 'context_exceeded') FROM d
        GROUP BY agent HAVING count(*) FILTER (WHERE ended_by = 'context_exceeded') > 0
    UNION ALL SELECT agent, 'failed', count(*) FILTER (WHERE ended_by = 'call_failed') FROM d GROUP BY agent
    UNION ALL SELECT agent, 'client_revisions', sum(client_revisions) FROM d GROUP BY agent
    UNION ALL SELECT agent, 'lawyer_revisions', sum(lawyer_revisions) FROM d GROUP BY agent
    UNION ALL SELECT agent, 'blurred_turns', sum(blurred) FROM d GROUP BY agent
    UNION ALL SELECT agent, 'unsupervised_turns', sum(unsupervised) FROM d GROUP BY agent
)
SELECT 'dialogues' AS "table", s.agent, 'overall' AS scope, s.metric, CAST(s.value AS DOUBLE) AS value,
       (SELECT count(*) FROM d WHERE d.agent = s.agent) AS n, 0 AS n_failed,
       CASE WHEN s.metric IN ('avg_turns', 'max_turns', 'min_turns')
            THEN (SELECT count(*) FROM d WHERE d.agent = s.agent AND d.ended_by = 'call_failed') ELSE 0 END
           AS n_failed_calls,
       0 AS n_unparsable,
       'none' AS judge,
       a.agent_scripted OR a.environment_scripted AS proxy
FROM stats s JOIN agents a USING (agent)
ORDER BY s.agent, s.metric
