-- Big-Five levels of the personas the instances use: as the environment model assigned them, and after every
-- "medium" was re-drawn high : medium : low = 2 : 1 : 2.
WITH used AS (
    SELECT * FROM personas WHERE persona_id IN (SELECT unnest(persona_ids) FROM instances)
),
long AS (
    SELECT 'extraversion' AS trait, assigned.extraversion AS assigned, levels.extraversion AS final FROM used
    UNION ALL SELECT 'neuroticism', assigned.neuroticism, levels.neuroticism FROM used
    UNION ALL SELECT 'openness', assigned.openness, levels.openness FROM used
    UNION ALL SELECT 'agreeableness', assigned.agreeableness, levels.agreeableness FROM used
    UNION ALL SELECT 'conscientiousness', assigned.conscientiousness, levels.conscientiousness FROM used
),
levels AS (SELECT unnest(['high', 'medium', 'low']) AS level)
SELECT t.trait, l.level,
       count(*) FILTER (WHERE t.assigned = l.level) AS assigned,
       count(*) FILTER (WHERE t.final = l.level) AS final,
       round(count(*) FILTER (WHERE t.final = l.level) / count(*), 4) AS final_share
FROM long t CROSS JOIN levels l
GROUP BY t.trait, l.level
ORDER BY list_position(['extraversion', 'neuroticism', 'openness', 'agreeableness', 'conscientiousness'], t.trait),
         list_position(['high', 'medium', 'low'], l.level);
