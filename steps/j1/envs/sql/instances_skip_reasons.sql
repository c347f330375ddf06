-- Why candidates ranked into the sample were skipped, per scenario and reason ("missing: a, b" counts under
-- "missing a" and "missing b").
WITH reasons AS (
    SELECT scenario, unnest(CASE WHEN starts_with(reason, 'missing: ')
                                 THEN list_transform(string_split(reason[10:], ', '), lambda x: 'missing ' || x)
                                 ELSE [split_part(reason, ' (', 1)] END) AS reason
    FROM instance_skips
)
SELECT r.scenario, r.reason, count(*) AS candidates
FROM reasons r LEFT JOIN environments e USING (scenario)
GROUP BY r.scenario, r.reason, e.position
ORDER BY e.position NULLS LAST, r.scenario, candidates DESC, r.reason;
