-- `jurisflow results`: each benchmark's headline numbers, ours and the paper's, in long format.
-- Inputs: `twins` (every benchmark's CSV twin, reports/<benchmark>.csv, read together by name) and
-- `ucl_paper` (steps/ucl/paper_tables/table3.csv: the UCL-Bench paper's Table 3, whose AVG the UCL report quotes;
-- ucl.csv holds the paper's cells only for agents matched to a paper model, so the paper's rows come from there).
-- A headline is one (table, metric, scope) of one benchmark, as its paper's main table reports it; `scale`
-- puts every number on 0-100 (LawBench and PLawBench store fractions).
-- Our rows keep n (the units the number averages) and n_failed; `proxy` marks scripted models or the proxy judge.
-- A row whose number is empty (e.g. LawBench's overall of published predictions that miss a task) is kept only
-- when the same agent has some other headline number, so an agent never vanishes and no empty row is listed.
WITH headline(benchmark, "column", position, "table", metric, scope, scale) AS (
    VALUES ('lawbench', 'LawBench 0-shot', 1, 'zero_shot', 'score', 'overall', 100.0),
           ('lawbench', 'LawBench 1-shot', 2, 'one_shot', 'score', 'overall', 100.0),
           ('j1', 'J1 AVG (OO)', 3, 'table3', 'AVG_OO', 'overall', 1.0),
           ('j1', 'J1 AVG (PO)', 4, 'table3', 'AVG_PO', 'overall', 1.0),
           ('mile', 'MILE goal', 5, 'goal', 'AVE', 'overall', 1.0),
           ('mile', 'MILE interaction', 6, 'interaction', 'AVE', 'overall', 1.0),
           ('ucl', 'UCL win rate', 7, 'win_rate', 'win_rate', 'overall', 1.0),
           ('plawbench', 'PLawBench', 8, 'table3', 'Overall', 'overall', 100.0)
),
rows AS (
    SELECT t.benchmark, t."table", t.agent, t.scope, t.metric, t.value, t.n, t.n_failed, t.judge, t.proxy, t.source
    FROM twins t
    WHERE NOT (t.benchmark = 'ucl' AND t.source = 'paper')
    UNION ALL
    SELECT 'ucl', 'win_rate', p.model, 'overall', 'win_rate', p."AVG", NULL, NULL, 'gpt-4-0613', false, 'paper'
    FROM ucl_paper p
),
picked AS (
    SELECT h.benchmark, h."column", h.position, r.agent, r.source, coalesce(r.proxy, false) AS proxy,
           h.scale * r.value AS value, r.n, r.n_failed, r.judge
    FROM headline h
    JOIN rows r ON r.benchmark = h.benchmark AND r."table" = h."table" AND r.metric = h.metric AND r.scope = h.scope
    WHERE r.agent IS NOT NULL AND r.agent <> ''
)
SELECT * FROM picked
WHERE value IS NOT NULL
   OR (agent, source) IN (SELECT (agent, source) FROM picked WHERE value IS NOT NULL)
ORDER BY position, source DESC, agent;
