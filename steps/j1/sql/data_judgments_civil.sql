-- C3RD mini civil cases: per document type, cases, causes and section lengths.
SELECT doc_type, count(*) AS cases, count(DISTINCT cause) AS causes,
       CAST(median(length(coalesce(accusation, '') || coalesce(reason, '') || coalesce(result, ''))) AS INTEGER)
           AS text_median,
       max(length(coalesce(accusation, '') || coalesce(reason, '') || coalesce(result, ''))) AS text_max,
       round(avg(len(legal_basis)), 2) AS mean_statutes,
       round(avg(len(parties)), 2) AS mean_parties
FROM judgments_civil
GROUP BY ROLLUP (doc_type)
ORDER BY doc_type IS NULL, cases DESC;
