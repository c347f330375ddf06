-- Topic counts of the environments built from topic sources (KQ, LC; J1 App C): binary vs open-ended (statute or
-- legal phrase), in the environments' order.
WITH topics AS (
    SELECT scenario, instance_id, unnest(ground_truth.topics).kind AS kind
    FROM instances WHERE scenario IN (SELECT scenario FROM environments WHERE population = 'topics')
)
SELECT scenario, count(DISTINCT instance_id) AS instances,
       count(*) FILTER (WHERE kind = 'binary') AS binary_topics,
       count(*) FILTER (WHERE kind = 'open_statute') AS statute_topics,
       count(*) FILTER (WHERE kind = 'open_phrase') AS phrase_topics,
       count(*) FILTER (WHERE kind <> 'binary') AS open_ended_topics,
       count(*) AS total_topics,
       round(count(*) / count(DISTINCT instance_id), 2) AS avg_topics_per_case
FROM topics JOIN environments USING (scenario)
GROUP BY scenario, position ORDER BY position;
