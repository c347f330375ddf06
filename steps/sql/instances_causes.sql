-- Civil case types (案由) of the civil scenarios' instances, most frequent first.
SELECT scenario, coalesce(facets.cause, '(unknown)') AS cause, count(*) AS instances
FROM instances WHERE scenario IN ('CD', 'DD', 'CI')
GROUP BY scenario, cause
ORDER BY list_position(['CD', 'DD', 'CI'], scenario), instances DESC, cause;
