-- Tables 11-12 layout, ours: agents listed as repeats of one setup (params j1eval.repeats) reported under the
-- group's name: per cell the mean and the sample standard deviation (n - 1) of the runs' cell values (0-100).
-- n_failed sums the runs' instances that failed model calls left out or affected, n_unparsable those whose judge
-- answer did not parse.
-- Inputs: cells (j1_cells), groups ("group", agent).
SELECT g."group" AS agent, c.scope, c.metric, c.component,
       avg(c.value) AS mean,
       stddev_samp(c.value) AS std,
       count(c.value) AS runs,
       sum(c.n) AS n,
       sum(c.n_failed) AS n_failed,
       sum(c.n_unparsable) AS n_unparsable,
       coalesce(max(c.judge) FILTER (WHERE c.judge <> 'rule'), 'rule') AS judge,
       bool_or(c.proxy) AS proxy
FROM cells c JOIN groups g ON c.agent = g.agent
WHERE c.component = ''
GROUP BY g."group", c.scope, c.metric, c.component
ORDER BY g."group", c.scope, c.metric
