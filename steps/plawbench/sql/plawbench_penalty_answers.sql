-- Ours, opt-in (plawbench.t1_penalties: paper): what the Table 8 penalties did, per agent and variant:
-- consultation answers, penalised, penalty judge failures (failure `penalty_<kind>`; other failures are the
-- rubric judge's or the agent's), answers lowered, zeroed by a red flag, floored at 0, points deducted.
-- Inputs: `scores` (dimension paper_penalty), `judgements` (evidence JSON key `paper_penalties`).
-- Empty when the mode is off.
WITH p AS (
    SELECT agent, variant, item_id, json_extract(evidence, '$.paper_penalties') AS pen
    FROM judgements
    WHERE category = 'consultation' AND json_extract(evidence, '$.paper_penalties') IS NOT NULL
)
SELECT s.agent, s.variant,
       count(*) AS answers,
       count(*) FILTER (WHERE s.failure IS NULL) AS penalised,
       count(*) FILTER (WHERE s.failure LIKE 'penalty_%') AS penalty_judge_failed,
       count(*) FILTER (WHERE s.failure IS NOT NULL AND s.failure NOT LIKE 'penalty_%') AS other_failed,
       count(*) FILTER (WHERE s.failure IS NULL AND (json_extract(p.pen, '$.deducted')::DOUBLE > 0
                                                    OR json_extract(p.pen, '$.zeroed')::BOOLEAN)) AS lowered,
       count(*) FILTER (WHERE s.failure IS NULL AND json_extract(p.pen, '$.zeroed')::BOOLEAN) AS zeroed,
       count(*) FILTER (WHERE s.failure IS NULL AND json_extract(p.pen, '$.floored')::BOOLEAN) AS floored,
       coalesce(sum(json_extract(p.pen, '$.deducted')::DOUBLE) FILTER (WHERE s.failure IS NULL), 0)
           AS points_deducted
FROM scores s LEFT JOIN p USING (agent, variant, item_id)
WHERE s.dimension = 'paper_penalty'
GROUP BY s.agent, s.variant
ORDER BY 1, 2;
