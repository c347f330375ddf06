-- LawBench 2-1 lexicon, confusion set (confusion_dict.txt): lines, characters with a set, pairs, set sizes.
WITH per_line AS (SELECT line, any_value(char) AS char, count(*) AS size FROM lawbench_confusions GROUP BY line)
SELECT count(*) AS lines, count(DISTINCT char) AS chars, sum(size) AS pairs,
       min(size) AS min_set, round(median(size), 1) AS median_set, max(size) AS max_set
FROM per_line;
