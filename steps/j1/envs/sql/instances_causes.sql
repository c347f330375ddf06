-- Civil case types (案由) of the instances of the environments built from civil cases, most frequent first.
SELECT scenario, coalesce(facets.cause, '(unknown)') AS cause, count(*) AS instances
FROM instances JOIN environments USING (scenario)
WHERE population = 'civil'
GROUP BY scenario, position, cause
ORDER BY position, instances DESC, cause;
