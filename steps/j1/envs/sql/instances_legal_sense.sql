-- MASER legal-sense levels (1 = no legal knowledge … 5 = proficient) of the personas the instances use.
WITH used AS (SELECT * FROM personas WHERE persona_id IN (SELECT unnest(persona_ids) FROM instances))
SELECT legal_sense, count(*) AS personas, round(count(*) / (SELECT count(*) FROM used), 4) AS share,
       count(*) FILTER (WHERE withheld_field IS NOT NULL) AS with_withheld_field
FROM used GROUP BY legal_sense ORDER BY legal_sense;
