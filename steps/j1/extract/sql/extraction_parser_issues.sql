-- The parser's issues by field, with the names of parties and defendants folded into `*`
-- (parties.张某 → parties.*, verdict.张某.penalty → verdict.*.penalty), per kind of case.
SELECT case_kind, regexp_replace(field, '^(parties|verdict)\.[^.]+', '\1.*') AS field, kind,
       count(*) AS issues, count(DISTINCT case_id) AS cases
FROM extraction_issues
WHERE stage = 'parser'
GROUP BY ALL
ORDER BY case_kind DESC, issues DESC, field, kind;
