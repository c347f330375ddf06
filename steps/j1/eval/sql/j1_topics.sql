-- Topic coverage, ours (the topic environments, KQ and LC; spec j1-envs §9.3-9): per agent, environment and
-- metric, the topics of the instances, how many the client raised and could be scored, and how many were skipped
-- as never raised.
-- Inputs: scores (topic rows T1, T2 … of I-1 and I-2), environments (the registrations).
SELECT agent, scenario AS scope, metric,
       count(*) AS topics,
       count(value) AS scored,
       count(*) FILTER (WHERE status = 'skipped') AS skipped,
       count(*) FILTER (WHERE status = 'judge_failed') AS judge_failed,
       100 * avg(value) AS value
FROM scores
WHERE scenario IN (SELECT scenario FROM environments WHERE population = 'topics') AND regexp_full_match(component, 'T[0-9]+')
GROUP BY agent, scenario, metric
ORDER BY agent, scenario, metric
