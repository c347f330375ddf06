-- PLawBench document drafting (LDG): per side, tasks, maximum points and rubric length.
SELECT side, count(*) AS tasks, CAST(sum(max_points) AS BIGINT) AS total_points,
       count(*) FILTER (WHERE declared_total IS DISTINCT FROM max_points) AS header_differs_from_score,
       CAST(median(length(conversation)) AS INTEGER) AS conversation_median,
       CAST(median(length(rubric)) AS INTEGER) AS rubric_median
FROM plawbench_drafting
GROUP BY side
ORDER BY side DESC;
