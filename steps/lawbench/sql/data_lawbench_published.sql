-- LawBench published scores (results.csv): per setting and model, tasks covered and mean task score.
SELECT setting, model, count(*) AS tasks, round(avg(score) * 100, 2) AS mean_score_x100,
       round(avg(abstention_rate) * 100, 2) AS mean_abstention_x100
FROM lawbench_published
GROUP BY setting, model
ORDER BY setting DESC, model;
