-- LawBench 2-1 lexicon, Cilin (cilin.txt): entries per top-level semantic class; a word on several lines counts once.
SELECT left(code, 1) AS class, count(DISTINCT line) AS lines, count(*) AS words,
       count(DISTINCT word) AS distinct_words
FROM lawbench_cilin
GROUP BY class
ORDER BY class;
