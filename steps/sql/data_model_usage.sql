-- Model usage: the calls the stages make, by model and purpose, as a fresh run makes them. `calls` counts every
-- call (a repeat of an earlier call is a call too, answered from the response cache); `requests` the distinct ones
-- (call keys), i.e. what a run with an empty response cache sends; tokens and cost are those of the requests.
-- Nothing here depends on what ran before: cache hits, latency and attempts are in the untracked usage log.
WITH per_request AS (
    SELECT model_name, model, purpose, call_key,
           count(*) AS calls,
           count(*) FILTER (WHERE failure_kind IS NOT NULL) AS failures,
           max(prompt_tokens) AS prompt_tokens,
           max(completion_tokens) AS completion_tokens,
           bool_or(cost_usd IS NULL AND failure_kind IS NULL) AS unpriced,
           max(cost_usd) AS cost_usd
    FROM model_usage
    GROUP BY model_name, model, purpose, call_key
),
kinds AS (
    SELECT model_name, model, purpose, string_agg(DISTINCT failure_kind, ', ' ORDER BY failure_kind) AS failure_kinds
    FROM model_usage
    WHERE failure_kind IS NOT NULL
    GROUP BY model_name, model, purpose
)
SELECT r.model_name, r.model, r.purpose,
       sum(r.calls)::BIGINT AS calls,
       count(*)::BIGINT AS requests,
       sum(r.failures)::BIGINT AS failures,
       coalesce(any_value(k.failure_kinds), '') AS failure_kinds,
       sum(r.prompt_tokens)::BIGINT AS prompt_tokens,
       sum(r.completion_tokens)::BIGINT AS completion_tokens,
       CASE WHEN bool_or(r.unpriced) THEN NULL ELSE round(sum(coalesce(r.cost_usd, 0)), 4) END AS cost_usd,
       CASE WHEN r.model LIKE 'scripted/%' THEN 'yes' ELSE 'no' END AS scripted
FROM per_request r
LEFT JOIN kinds k USING (model_name, model, purpose)
GROUP BY r.model_name, r.model, r.purpose
ORDER BY r.model_name, r.purpose;
