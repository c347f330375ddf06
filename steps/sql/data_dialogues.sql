-- Dialogues per benchmark and agent, over every dialogue benchmark at once (J1, MILE, UCL-Bench with its reference,
-- PLawBench's multi-turn consultations): one turns schema and one dialogue base, so one query. Turns count every
-- row (speech, checks, reviews, forced deliverables, failed calls); failed_calls the turns whose model call failed
-- after retries, but for the agent's requests that outgrew its context (the last turn of each dialogue that ended
-- context_exceeded: the model's limit, not a failed call); the last columns say how the dialogues ended
-- (context_exceeded: a column the data card shows only when a dialogue ended so).
-- Inputs: `dialogues` and `turns` (every run's dialogues.parquet and turns.parquet).
WITH per_turns AS (
    SELECT benchmark, agent, count(*) AS turns, count(*) FILTER (WHERE failure IS NOT NULL) AS failed_calls
    FROM turns
    GROUP BY benchmark, agent
), per_dialogues AS (
    SELECT benchmark, agent, count(*) AS dialogues, sum(utterances) AS utterances,
           count(*) FILTER (WHERE ended_by = 'marker') AS marker,
           count(*) FILTER (WHERE ended_by = 'topics_done') AS topics_done,
           count(*) FILTER (WHERE ended_by = 'max_turns') AS max_turns,
           count(*) FILTER (WHERE ended_by = 'empty_reply') AS empty_reply,
           count(*) FILTER (WHERE ended_by = 'call_failed') AS call_failed,
           count(*) FILTER (WHERE ended_by = 'context_exceeded') AS context_exceeded
    FROM dialogues
    GROUP BY benchmark, agent
)
SELECT d.benchmark, d.agent, d.dialogues, coalesce(t.turns, 0)::BIGINT AS turns, d.utterances::BIGINT AS utterances,
       (coalesce(t.failed_calls, 0) - d.context_exceeded)::BIGINT AS failed_calls, d.marker, d.topics_done,
       d.max_turns, d.empty_reply, d.call_failed, d.context_exceeded
FROM per_dialogues d LEFT JOIN per_turns t USING (benchmark, agent)
ORDER BY d.benchmark, d.agent;
