-- LawBench result table in long format (the CSV twin of reports/lawbench_*.md).
-- Inputs: `scores` (ours: rescored published predictions and every configured agent), `published`
-- (LawBench's results.csv, equal to the paper's appendix tables), `lawbench_tasks` (task -> level).
-- Level averages and the overall mean are computed from unrounded task scores, and only when every task
-- of the level has a score (a task whose every call failed has none; paper §7: Overall = mean of all 20 task scores, not of the level means).
-- n_failed: our calls that failed after retries (excluded from the score); summed for levels and Overall; NULL for the paper.
WITH cells AS (
    SELECT setting, agent, task, score, abstention_rate, n, n_failed, proxy, 'ours' AS source FROM scores
    UNION ALL
    SELECT setting, model AS agent, task, score, abstention_rate, NULL AS n, NULL AS n_failed, false AS proxy,
           'paper' AS source
    FROM published
),
expected AS (
    SELECT level, count(*) AS k FROM lawbench_tasks GROUP BY level
),
levels AS (
    SELECT c.setting, c.agent, c.source, t.level AS scope,
           CASE WHEN count(c.score) = any_value(e.k) THEN avg(c.score) END AS value,
           bool_or(c.proxy) AS proxy, sum(c.n) AS n, sum(c.n_failed) AS n_failed
    FROM cells c JOIN lawbench_tasks t USING (task) JOIN expected e USING (level)
    GROUP BY c.setting, c.agent, c.source, t.level
),
overall AS (
    SELECT setting, agent, source, 'overall' AS scope,
           CASE WHEN count(score) = (SELECT count(*) FROM lawbench_tasks) THEN avg(score) END AS value,
           bool_or(proxy) AS proxy, sum(n) AS n, sum(n_failed) AS n_failed
    FROM cells
    GROUP BY setting, agent, source
)
SELECT 'lawbench' AS benchmark, setting AS "table", agent, task AS scope, 'score' AS metric, score AS value,
       n, n_failed, '' AS judge, proxy, source
FROM cells
UNION ALL
SELECT 'lawbench', setting, agent, task, 'abstention_rate', abstention_rate, n, n_failed, '', proxy, source
FROM cells
UNION ALL
SELECT 'lawbench', setting, agent, scope, 'score', value, n, n_failed, '', proxy, source FROM levels
UNION ALL
SELECT 'lawbench', setting, agent, scope, 'score', value, n, n_failed, '', proxy, source FROM overall
ORDER BY 2 DESC, 3, 11 DESC, 5, 4;
