-- PLawBench case analysis (PCA): per domain label, questions, rubric points and context length.
SELECT label, count(*) AS questions, CAST(sum(max_points) AS BIGINT) AS total_points,
       round(avg(max_points), 1) AS mean_max_points,
       CAST(median(length(context)) AS INTEGER) AS context_median,
       max(length(context)) AS context_max
FROM plawbench_case_analysis
GROUP BY ROLLUP (label)
ORDER BY label IS NULL, questions DESC, label;
