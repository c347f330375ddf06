-- MILE total performance (the paper's Fig. 4, which prints no numbers): (goal AVE + interaction AVE) / 2.
-- Input: ours (the long rows of mile_goal and mile_interaction).
SELECT 'total' AS "table", g.agent, 'overall' AS scope, 'AVE' AS metric, (g.value + i.value) / 2 AS value,
       least(g.n, i.n) AS n, g.n_failed + i.n_failed AS n_failed,
       g.n_failed_calls + i.n_failed_calls AS n_failed_calls, g.n_unparsable + i.n_unparsable AS n_unparsable,
       g.judge, g.proxy OR i.proxy AS proxy
FROM ours g JOIN ours i ON g.agent = i.agent
WHERE g."table" = 'goal' AND g.metric = 'AVE' AND g.scope = 'overall'
  AND i."table" = 'interaction' AND i.metric = 'AVE' AND i.scope = 'overall'
ORDER BY g.agent
