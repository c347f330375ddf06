-- What the model's answers left open, by field: failed calls and answers invalid after the repair rounds,
-- mandatory fields left empty (stage llm), and values the cross-check did not accept (stage crosscheck):
-- disagreements with the parser (the case keeps the parser's value) and text not grounded in the document
-- (not stored). `cases` = distinct cases affected.
SELECT case_kind, stage, kind, field, count(*) AS issues, count(DISTINCT case_id) AS cases
FROM extraction_issues
WHERE stage IN ('llm', 'crosscheck')
GROUP BY case_kind, stage, kind, field
ORDER BY case_kind DESC, stage DESC, kind, issues DESC, field;
