-- MILE instances: per cause-of-action category, plaintiff type, defendants, evidence and complaint length.
SELECT law_reason, count(*) AS instances,
       count(*) FILTER (WHERE plaintiff_type = 'company') AS company_plaintiffs,
       round(avg(len(string_split(defendant, '身份：被告')) - 1), 2) AS mean_defendants,
       round(avg(len(evidence)), 2) AS mean_evidence_items,
       min(length(output)) AS complaint_min,
       CAST(median(length(output)) AS INTEGER) AS complaint_median,
       max(length(output)) AS complaint_max
FROM mile
GROUP BY ROLLUP (law_reason)
ORDER BY law_reason IS NULL, instances DESC, law_reason;
