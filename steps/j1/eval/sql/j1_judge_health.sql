-- Judge health, ours: per agent, environment and metric, how many judge questions were asked (I-2: one per open
-- topic answered in words; II-2: one per judged component; III-1: one two-pass procedure per valid trial;
-- III-2, III-5: one per valid trial) and how many failed, by kind. A failed question is excluded from its
-- cell and counted here, never scored 0. Input: scores.
WITH units AS (
    SELECT agent, scenario, metric, judge, status, failure
    FROM scores
    WHERE ((metric IN ('I-2', 'II-2') AND component <> '') OR (metric IN ('III-1', 'III-2', 'III-5') AND component = ''))
      AND (judge <> 'rule' OR status = 'judge_failed')
)
SELECT agent, scenario AS scope, metric,
       max(judge) AS judge,
       count(*) AS asked,
       count(*) FILTER (WHERE status = 'judge_failed') AS failed,
       count(*) FILTER (WHERE status = 'judge_failed' AND failure = 'call_failed') AS call_failed,
       count(*) FILTER (WHERE status = 'judge_failed' AND failure = 'unparsable') AS unparsable,
       count(*) FILTER (WHERE status = 'judge_failed' AND failure = 'out_of_range') AS out_of_range
FROM units
GROUP BY agent, scenario, metric
ORDER BY agent, scenario, metric
