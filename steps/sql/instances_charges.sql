-- Charges of the criminal-court instances (a multi-charge case counts once per charge).
SELECT charge, count(*) AS instances
FROM (SELECT unnest(facets.charges) AS charge FROM instances WHERE scenario = 'CR')
GROUP BY charge ORDER BY instances DESC, charge;
