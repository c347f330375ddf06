-- How the judge fared per agent and category: failures by kind (never scored 0), clamps, fail conditions,
-- penalties, repair rounds, consultation answers cut to the first N questions.
-- Input: `judgements` (every agent's rows).
SELECT agent, variant, category,
       count(*) AS responses,
       count(*) FILTER (WHERE failure IS NULL) AS judged,
       count(*) FILTER (WHERE failure = 'agent_call_failed') AS agent_failed,
       count(*) FILTER (WHERE failure = 'call_failed') AS judge_call_failed,
       count(*) FILTER (WHERE failure = 'unparsable') AS unparsable,
       count(*) FILTER (WHERE failure = 'out_of_range') AS out_of_range,
       coalesce(sum(clamped), 0) AS clamps,
       coalesce(sum(fails_triggered), 0) AS fails_triggered,
       coalesce(sum(penalty_points), 0) AS penalty_points,
       round(avg(attempts) FILTER (WHERE failure IS DISTINCT FROM 'agent_call_failed'), 3) AS mean_attempts,
       count(*) FILTER (WHERE questions_truncated) AS questions_truncated,
       any_value(judge) FILTER (WHERE judge <> '') AS judge
FROM judgements
GROUP BY agent, variant, category
ORDER BY agent, variant, category;
