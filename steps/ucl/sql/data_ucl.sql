-- UCL-Bench public items: per task, items, hint levels present and information length.
SELECT task, count(*) AS items,
       count(hint_answer) AS with_answer, count(hint_must) AS with_must, count(hint_should) AS with_should,
       count(hint_encouraged) AS with_encouraged, count(hint_forbidden) AS with_forbidden,
       count(*) FILTER (WHERE length(evaluation_hints) = 0) AS empty_hints,
       CAST(median(length(information)) AS INTEGER) AS information_median,
       max(length(information)) AS information_max
FROM ucl
GROUP BY task
ORDER BY task;
