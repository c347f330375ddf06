-- Table 3's AVG columns (spec j1-envs §5.2; they reproduce all 17 printed rows): AVG_OO is the mean of the
-- outcome cells, AVG_PO of the process cells (each environment's registration names its own; J1: eight of each,
-- III-4 in neither); Overall = (AVG_OO + AVG_PO) / 2 (Fig. 3). A cell that is missing (its environment not run,
-- or no instance with a value) leaves the average missing. n_failed sums the cells' instances that failed model
-- calls left out or affected, n_unparsable those whose judge answer did not parse.
-- Inputs: cells (j1_cells: agent, scope, metric, component, value, n, n_failed, n_unparsable, judge, proxy),
-- environment_metrics (the registrations: scenario, metric, average).
WITH kinds AS (
    SELECT scenario AS scope, metric, average AS kind FROM environment_metrics WHERE average IS NOT NULL
), averages AS (
    SELECT a.agent, k.kind AS metric,
           CASE WHEN count(c.value) = count(*) THEN avg(c.value) END AS value,
           sum(c.n) AS n, coalesce(sum(c.n_failed), 0) AS n_failed, coalesce(sum(c.n_unparsable), 0) AS n_unparsable,
           coalesce(max(c.judge) FILTER (WHERE c.judge <> 'rule'), 'rule') AS judge,
           coalesce(bool_or(c.proxy), false) AS proxy
    FROM (SELECT DISTINCT agent FROM cells) a
    CROSS JOIN kinds k
    LEFT JOIN cells c ON c.agent = a.agent AND c.scope = k.scope AND c.metric = k.metric AND c.component = ''
    GROUP BY a.agent, k.kind
), overall AS (
    SELECT agent, 'Overall' AS metric,
           CASE WHEN count(value) = 2 THEN avg(value) END AS value,
           sum(n) AS n, sum(n_failed) AS n_failed, sum(n_unparsable) AS n_unparsable,
           coalesce(max(judge) FILTER (WHERE judge <> 'rule'), 'rule') AS judge, bool_or(proxy) AS proxy
    FROM averages
    GROUP BY agent
)
SELECT agent, 'overall' AS scope, metric, '' AS component, value, n, n_failed, n_unparsable, judge, proxy
FROM (SELECT * FROM averages UNION ALL SELECT * FROM overall)
ORDER BY agent, metric
