-- Rubric rows by category and kind (award rows split into judged items and their sub-points).
SELECT category,
       CASE WHEN kind = 'award' AND judged THEN 'award (judged item)'
            WHEN kind = 'award' THEN 'award (sub-point)'
            WHEN kind = 'deduction' AND parent_id IS NULL THEN 'deduction (task penalty)'
            ELSE kind END AS kind,
       count(*) AS n_rows,
       count(DISTINCT item_id) AS n_tasks
FROM rubric_items
GROUP BY ALL
ORDER BY category, kind;
