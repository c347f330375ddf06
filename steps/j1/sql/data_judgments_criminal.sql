-- JuDGE criminal judgments: per procedure (first instance 刑初 / appeal 刑终 / other), length and articles.
-- The document's own case number (…刑初N号, …刑初字第N号, …刑一终N号) is the first one in the text.
SELECT CASE regexp_extract(full_text, '刑[一二]?(初|终)字?第?[0-9０-９]+号', 1)
            WHEN '初' THEN 'first instance (刑初)' WHEN '终' THEN 'appeal (刑终)' ELSE 'other' END AS procedure,
       count(*) AS judgments,
       min(length(full_text)) AS text_min,
       CAST(median(length(full_text)) AS INTEGER) AS text_median,
       max(length(full_text)) AS text_max,
       round(avg(len(articles)), 2) AS mean_labelled_articles
FROM judgments_criminal
GROUP BY ROLLUP (1)
ORDER BY procedure IS NULL, judgments DESC;
