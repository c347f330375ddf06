-- LawBench published predictions: per setting and model, coverage and prediction length.
SELECT setting, model, count(DISTINCT task) AS tasks, count(*) AS predictions,
       count(*) FILTER (WHERE length(trim(prediction)) = 0) AS empty_predictions,
       CAST(median(length(prediction)) AS INTEGER) AS prediction_median,
       max(length(prediction)) AS prediction_max
FROM lawbench_predictions
GROUP BY setting, model
ORDER BY setting DESC, model;
