-- Ours, opt-in (plawbench.t1_penalties: paper): the judge's Table 8 findings per agent, variant, dimension and
-- penalty type (red flags are types zero_*): how many, in how many answers, and the points they cost after
-- the caps and duplicate quotes (the quoted text of each is in judgements.evidence). Input: `judgements`.
SELECT agent, variant, f.dimension, f.code, count(*) AS findings, count(DISTINCT item_id) AS answers,
       sum(f.counted) AS points_counted
FROM (
    SELECT agent, variant, item_id,
           unnest(from_json(json_extract(evidence, '$.paper_penalties.findings'),
                            '[{"code": "VARCHAR", "dimension": "VARCHAR", "counted": "DOUBLE"}]')) AS f
    FROM judgements
    WHERE category = 'consultation' AND json_extract(evidence, '$.paper_penalties.findings') IS NOT NULL
)
GROUP BY ALL
ORDER BY 1, 2, 3, 4;
