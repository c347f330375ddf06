-- PLawBench consultation (PLC): cases, rubric headers present, client monologue length.
SELECT count(*) AS cases, count(declared_total) AS with_total_header,
       round(avg(declared_total), 1) AS mean_declared_total,
       min(length(conversation)) AS conversation_min,
       CAST(median(length(conversation)) AS INTEGER) AS conversation_median,
       max(length(conversation)) AS conversation_max
FROM plawbench_consultation;
