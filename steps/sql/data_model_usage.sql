-- Model usage: every call through the model door, by model and purpose (hits, misses and failures). Cache hits
-- are left out: they depend on what ran before (they are in each usage.parquet), and a report must not.
SELECT model_name, model, purpose,
       count(*) AS calls,
       count(*) FILTER (WHERE failure_kind IS NOT NULL) AS failures,
       coalesce(string_agg(DISTINCT failure_kind, ', ' ORDER BY failure_kind), '') AS failure_kinds,
       sum(prompt_tokens) AS prompt_tokens,
       sum(completion_tokens) AS completion_tokens,
       CASE WHEN count(*) FILTER (WHERE cost_usd IS NULL AND failure_kind IS NULL) > 0 THEN NULL
            ELSE round(sum(coalesce(cost_usd, 0)), 4) END AS cost_usd,
       CASE WHEN model LIKE 'scripted/%' THEN 'yes' ELSE 'no' END AS scripted
FROM model_usage
GROUP BY model_name, model, purpose
ORDER BY model_name, purpose;
