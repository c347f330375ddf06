-- PLawBench data statistics in the layout of the paper's Table 2, for the public release.
-- Inputs: `tasks` (one row per task), `rubric_items` (one row per rubric item; `judged` award rows are the
-- items a judge scores). Prompt length = characters of the task's input (PCA: case + question).
WITH t AS (
    SELECT category,
           CASE category WHEN 'consultation' THEN 'T1' WHEN 'case_analysis' THEN 'T2' ELSE 'T3' END AS task,
           item_id, length(context) + length(query) AS chars, max_points
    FROM tasks
),
items AS (
    SELECT item_id, count(*) FILTER (WHERE kind = 'award' AND judged) AS judged_items,
           count(*) FILTER (WHERE kind = 'award') AS award_rows,
           count(*) AS all_rows
    FROM rubric_items GROUP BY item_id
)
SELECT task, category,
       count(*) AS questions,
       round(avg(chars), 0) AS avg_prompt_chars,
       sum(i.judged_items) AS rubric_items,
       round(avg(i.judged_items), 1) AS rubric_items_avg,
       sum(i.award_rows) AS award_rows,
       sum(i.all_rows) AS rubric_rows,
       sum(max_points) AS max_points
FROM t JOIN items i USING (item_id)
GROUP BY task, category
ORDER BY task;
