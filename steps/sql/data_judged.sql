-- Judged rows per benchmark and table, over every judged table at once (J1 and MILE scores, UCL-Bench verdicts
-- and hint scores, PLawBench judgements): one judged-row base (judge, judge_proxy, value, failure, error,
-- attempts), so one query. `judged`: the rows a judge model produced or failed (the rest are rule values and
-- rows nothing was asked for); judge failures by kind, never scored 0; `left_out`: rows without a value for
-- another reason (a broken dialogue, a failed agent call, an item missing its dialogue); `attempts`: the judge
-- calls behind the rows, repair rounds included.
-- Input: `judged` (benchmark, "table" and the base columns of every judged table).
SELECT benchmark, "table", count(*) AS "rows",
       count(*) FILTER (WHERE judge NOT IN ('rule', '')) AS judged,
       count(*) FILTER (WHERE value IS NOT NULL) AS valued,
       count(*) FILTER (WHERE failure = 'call_failed') AS call_failed,
       count(*) FILTER (WHERE failure = 'unparsable') AS unparsable,
       count(*) FILTER (WHERE failure = 'out_of_range') AS out_of_range,
       count(*) FILTER (WHERE failure NOT IN ('call_failed', 'unparsable', 'out_of_range')) AS left_out,
       sum(attempts)::BIGINT AS attempts,
       bool_or(judge_proxy) AS proxy
FROM judged
GROUP BY benchmark, "table"
ORDER BY benchmark, "table";
