-- Why candidates ranked into the sample were skipped, per scenario and reason ("missing: a, b" counts under
-- "missing a" and "missing b").
WITH reasons AS (
    SELECT scenario, unnest(CASE WHEN starts_with(reason, 'missing: ')
                                 THEN list_transform(string_split(reason[10:], ', '), lambda x: 'missing ' || x)
                                 ELSE [split_part(reason, ' (', 1)] END) AS reason
    FROM instance_skips
)
SELECT scenario, reason, count(*) AS candidates FROM reasons GROUP BY scenario, reason
ORDER BY list_position(['KQ', 'LC', 'CD', 'DD', 'CI', 'CR'], scenario), candidates DESC, reason;
