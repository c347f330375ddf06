-- Coverage of every field of cases.parquet: how many cases have it filled, by kind and document type
-- (a civil or criminal 裁定书 is a ruling: it has no claims, evidence or sentence to read). `failed` counts the
-- cases where the model's call for the field failed, `unparsable` those whose answer for it was invalid after the
-- repair rounds.
-- A text is filled when non-empty, a list when it has an item, a number when it is not null.
WITH fields(field, position, source, criminal, civil) AS (
    VALUES ('court', 1, 'parser', true, true), ('case_number', 2, 'parser', true, true),
           ('doc_type', 3, 'parser', true, true), ('procedure', 4, 'parser', true, true),
           ('title', 5, 'parser', false, true), ('parties', 6, 'parser', true, true),
           ('statutes', 7, 'parser', true, true), ('defendants', 8, 'parser', true, false),
           ('charges', 9, 'parser', true, false), ('penalty', 10, 'parser', true, false),
           ('prison_months', 11, 'parser', true, false), ('probation_months', 12, 'parser', true, false),
           ('fine_yuan', 13, 'parser', true, false), ('rulings', 14, 'parser', false, true),
           ('cost_fee_yuan', 15, 'parser', false, true), ('cost_collected_yuan', 16, 'parser', false, true),
           ('costs_borne_by', 17, 'parser', false, true),
           ('case_details', 20, 'llm', true, true), ('claims', 21, 'llm', false, true),
           ('defence', 22, 'llm', false, true), ('procurator_charges', 23, 'llm', true, false),
           ('procurator_opinion', 24, 'llm', true, false), ('evidence', 25, 'llm', true, true),
           ('pleas', 26, 'llm', true, false), ('cross_exam', 27, 'llm', false, true),
           ('other_statements', 28, 'llm', false, true), ('court_findings', 29, 'llm', true, true),
           ('court_reasoning', 30, 'llm', true, true)
),
docs AS (
    SELECT case_id, kind, CASE WHEN doc_type LIKE '%裁定书' THEN 'ruling' ELSE 'judgment' END AS doc FROM cases
),
flags AS (
    SELECT case_id,
           coalesce(court <> '', false) AS court, coalesce(case_number <> '', false) AS case_number,
           coalesce(doc_type <> '', false) AS doc_type, procedure <> 'other' AS procedure,
           coalesce(title <> '', false) AS title, len(parties) > 0 AS parties, len(statutes) > 0 AS statutes,
           len(defendants) > 0 AS defendants, len(charges) > 0 AS charges, penalty IS NOT NULL AS penalty,
           prison_months IS NOT NULL AS prison_months, probation_months IS NOT NULL AS probation_months,
           fine_yuan IS NOT NULL AS fine_yuan, len(rulings) > 0 AS rulings,
           cost_fee_yuan IS NOT NULL AS cost_fee_yuan, cost_collected_yuan IS NOT NULL AS cost_collected_yuan,
           len(costs_borne_by) > 0 AS costs_borne_by,
           coalesce(case_details <> '', false) AS case_details, coalesce(len(claims) > 0, false) AS claims,
           coalesce(len(defence) > 0, false) AS defence,
           coalesce(len(procurator_charges) > 0, false) AS procurator_charges,
           coalesce(procurator_opinion <> '', false) AS procurator_opinion,
           coalesce(len(evidence) > 0, false) AS evidence, coalesce(len(pleas) > 0, false) AS pleas,
           coalesce(len(cross_exam) > 0, false) AS cross_exam,
           coalesce(len(other_statements) > 0, false) AS other_statements,
           coalesce(court_findings <> '', false) AS court_findings,
           coalesce(court_reasoning <> '', false) AS court_reasoning
    FROM cases
),
long AS (
    UNPIVOT flags ON COLUMNS(* EXCLUDE (case_id)) INTO NAME field VALUE filled
),
failed AS (
    SELECT case_id, field, bool_or(kind = 'call_failed') AS call_failed, bool_or(kind = 'invalid') AS invalid
    FROM extraction_issues
    WHERE stage = 'llm' AND kind IN ('call_failed', 'invalid')
    GROUP BY case_id, field
)
SELECT d.kind, d.doc, l.field, any_value(f.source) AS source, any_value(f.position) AS position,
       count(*) AS n,
       count(*) FILTER (WHERE l.filled) AS filled,
       count(*) FILTER (WHERE x.call_failed) AS failed,
       count(*) FILTER (WHERE x.invalid) AS unparsable,
       round(count(*) FILTER (WHERE l.filled) / count(*), 4) AS share
FROM long l
JOIN docs d USING (case_id)
JOIN fields f ON f.field = l.field AND (CASE WHEN d.kind = 'criminal' THEN f.criminal ELSE f.civil END)
LEFT JOIN failed x ON x.case_id = l.case_id AND x.field = l.field
GROUP BY d.kind, d.doc, l.field
ORDER BY d.kind DESC, d.doc, any_value(f.position);
