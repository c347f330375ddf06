-- LawBench task items: per setting and task, item count and prompt / answer length (characters).
SELECT setting, task, count(*) AS items,
       min(length(instruction || chr(10) || question)) AS prompt_min,
       CAST(median(length(instruction || chr(10) || question)) AS INTEGER) AS prompt_median,
       max(length(instruction || chr(10) || question)) AS prompt_max,
       CAST(median(length(answer)) AS INTEGER) AS answer_median
FROM lawbench_items
GROUP BY setting, task
ORDER BY setting DESC, string_split(task, '-')[1]::INT, string_split(task, '-')[2]::INT;
