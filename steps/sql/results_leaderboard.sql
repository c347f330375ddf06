-- `jurisflow results`: each benchmark's headline numbers, ours and the paper's, in long format.
-- Inputs: `twins` (every benchmark's CSV twin, reports/<benchmark>.csv, read together by name), `headlines` (the
-- leaderboard's columns: every registration's headlines with a column, steps/<benchmark>/benchmark.py, in order)
-- and `paper_headlines` (a paper's numbers that a headline takes from its paper's table instead of the CSV twin:
-- UCL-Bench's Table 3 AVG, which the UCL report quotes; ucl.csv holds the paper's cells only for agents matched to
-- a paper model). Both are registered by steps.benchmarks.register_headlines.
-- A headline is one (table, metric, scope) of one benchmark, as its paper's main table reports it; `scale`
-- puts every number on 0-100 (LawBench and PLawBench store fractions).
-- Our rows keep n (the units the number averages) and n_failed, and their 95 % interval (ci_low, ci_high, on the
-- same scale) where the twin has one; `proxy` marks a number a scripted stand-in touched.
-- Each row names its twin's `table`: the labels (`[scripted]`, `[limit N]`) are those of the agent in that table
-- (steps.results.labelled, the rule of steps/reports/labels.py).
-- A row whose number is empty (e.g. LawBench's overall of published predictions that miss a task) is kept only
-- when the same agent has some other headline number, so an agent never vanishes and no empty row is listed.
WITH rows AS (
    SELECT t.benchmark, t."table", t.agent, t.scope, t.metric, t.value, t.n, t.n_failed, t.judge, t.proxy, t.source,
           t.ci_low, t.ci_high
    FROM twins t
    WHERE NOT (t.source = 'paper' AND EXISTS (
        SELECT 1 FROM paper_headlines p
        WHERE p.benchmark = t.benchmark AND p."table" = t."table" AND p.metric = t.metric AND p.scope = t.scope))
    UNION ALL
    SELECT p.benchmark, p."table", p.agent, p.scope, p.metric, p.value, NULL, NULL, p.judge, false, 'paper', NULL, NULL
    FROM paper_headlines p
),
picked AS (
    SELECT h.benchmark, h."column", h.position, h."table", r.agent, r.source, coalesce(r.proxy, false) AS proxy,
           h.scale * r.value AS value, r.n, r.n_failed, r.judge, h.scale * r.ci_low AS ci_low,
           h.scale * r.ci_high AS ci_high
    FROM headlines h
    JOIN rows r ON r.benchmark = h.benchmark AND r."table" = h."table" AND r.metric = h.metric AND r.scope = h.scope
    WHERE r.agent IS NOT NULL AND r.agent <> ''
)
SELECT * FROM picked
WHERE value IS NOT NULL
   OR (agent, source) IN (SELECT (agent, source) FROM picked WHERE value IS NOT NULL)
ORDER BY position, source DESC, agent;
