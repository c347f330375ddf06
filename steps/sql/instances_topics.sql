-- Topic counts of the consultation scenarios (J1 App C): binary vs open-ended (statute or legal phrase).
WITH topics AS (
    SELECT scenario, instance_id, unnest(ground_truth.topics).kind AS kind
    FROM instances WHERE scenario IN ('KQ', 'LC')
)
SELECT scenario, count(DISTINCT instance_id) AS instances,
       count(*) FILTER (WHERE kind = 'binary') AS binary_topics,
       count(*) FILTER (WHERE kind = 'open_statute') AS statute_topics,
       count(*) FILTER (WHERE kind = 'open_phrase') AS phrase_topics,
       count(*) FILTER (WHERE kind <> 'binary') AS open_ended_topics,
       count(*) AS total_topics,
       round(count(*) / count(DISTINCT instance_id), 2) AS avg_topics_per_case
FROM topics GROUP BY scenario ORDER BY list_position(['KQ', 'LC'], scenario);
