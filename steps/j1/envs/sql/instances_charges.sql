-- Charges of the instances built from criminal cases (a multi-charge case counts once per charge).
SELECT charge, count(*) AS instances
FROM (SELECT unnest(facets.charges) AS charge FROM instances
      WHERE scenario IN (SELECT scenario FROM environments WHERE population = 'criminal'))
GROUP BY charge ORDER BY instances DESC, charge;
