-- Instances and skipped candidates per J1 scenario, in the environments' order (unregistered codes last).
WITH scenarios AS (SELECT scenario FROM instances UNION SELECT scenario FROM instance_skips),
built AS (SELECT scenario, count(*) AS instances, count(DISTINCT source_ids[1]) AS sources,
                 avg(max_turns) AS max_turns, sum(len(persona_ids)) AS personas
          FROM instances GROUP BY scenario),
skipped AS (SELECT scenario, count(*) AS skipped FROM instance_skips GROUP BY scenario)
SELECT s.scenario, coalesce(b.instances, 0) AS instances, coalesce(k.skipped, 0) AS skipped,
       coalesce(b.personas, 0) AS personas, b.max_turns
FROM scenarios s LEFT JOIN built b USING (scenario) LEFT JOIN skipped k USING (scenario)
LEFT JOIN environments e USING (scenario)
ORDER BY e.position NULLS LAST, s.scenario;
