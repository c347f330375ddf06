-- Issues of the extraction by stage (parser, llm, crosscheck) and kind, per kind of case: rows and cases.
SELECT stage, kind, case_kind, count(*) AS issues, count(DISTINCT case_id) AS cases
FROM extraction_issues
GROUP BY stage, kind, case_kind
ORDER BY list_position(['parser', 'llm', 'crosscheck'], stage), kind, case_kind DESC;
