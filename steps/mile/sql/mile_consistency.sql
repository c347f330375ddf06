-- MILE Table 3 (client consistency), ours: the judge's 1–10 grade of the client's statements against its
-- persona, one per dialogue, mean × 10. The column is the lawyer the client talked to (our agent).
-- n_failed_calls: the dialogues a model call failing after retries left out (broken dialogue, failed judge call);
-- n_unparsable: those whose judge answer did not parse after its repair rounds.
SELECT 'consistency' AS "table", s.agent, 'overall' AS scope, 'CONS' AS metric,
       avg(s.grade) FILTER (WHERE s.failure IS NULL) * 10 AS value,
       count(*) FILTER (WHERE s.failure IS NULL) AS n,
       count(*) FILTER (WHERE s.failure IS NOT NULL) AS n_failed,
       count(*) FILTER (WHERE s.failure IN ('call_failed', 'dialogue_failed')) AS n_failed_calls,
       count(*) FILTER (WHERE s.failure = 'unparsable') AS n_unparsable,
       max(s.judge) FILTER (WHERE s.judge <> 'rule') AS judge,
       bool_or(s.judge_proxy) OR any_value(a.environment_scripted) AS proxy
FROM scores s JOIN agents a USING (agent)
WHERE s.stage = 'consistency'
GROUP BY s.agent
ORDER BY s.agent
