-- Parse issues by category and kind of issue: how many, in how many tasks.
SELECT category, issue, count(*) AS n, count(DISTINCT item_id) AS n_tasks, any_value(effect) AS example_effect
FROM parse_issues
GROUP BY category, issue
ORDER BY category, n DESC, issue;
