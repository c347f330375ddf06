-- Ours vs published: per setting and metric, the number of cells compared and the largest |difference|.
-- Reads the long table registered as `lawbench_long` (see lawbench_long.sql).
SELECT o."table" AS setting, o.metric, count(*) AS cells_compared,
       max(abs(o.value - p.value)) AS max_abs_diff,
       arg_max(o.agent || ' ' || o.scope, abs(o.value - p.value)) AS largest_at
FROM lawbench_long o
JOIN lawbench_long p
  ON p."table" = o."table" AND p.agent = o.agent AND p.scope = o.scope AND p.metric = o.metric
 AND p.source = 'paper'
WHERE o.source = 'ours' AND o.value IS NOT NULL AND p.value IS NOT NULL
  AND o.scope NOT IN ('Memorization', 'Understanding', 'Application', 'overall')
GROUP BY 1, 2
ORDER BY 1 DESC, 2 DESC;
