-- Error types the judge named for items it did not award in full, in the paper's taxonomy (Tables 5, 20,
-- 21). Inputs: `item_scores` (every agent), `error_types` (category, paper_category, paper_error_type,
-- label). A label outside the taxonomy is kept as 'other'.
SELECT i.agent, i.category,
       coalesce(e.paper_category, 'other') AS paper_category,
       coalesce(e.paper_error_type, 'other: ' || i.error_label) AS error_type,
       count(*) AS items
FROM item_scores i
LEFT JOIN error_types e ON e.category = i.category AND e.label = i.error_label
WHERE i.variant = 'single' AND i.error_label IS NOT NULL AND i.error_label <> ''
GROUP BY ALL
ORDER BY i.agent, i.category, items DESC, error_type;
