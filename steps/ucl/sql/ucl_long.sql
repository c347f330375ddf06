-- UCL-Bench result table in long format (the CSV twin of reports/ucl.md).
-- Inputs: `verdicts` (one row per agent, item and order; the candidate's points as `value`, or a failure),
-- `hint_scores` (pointwise mode, ours), `dialogues` (every run, the reference's included), `ucl_tasks`
-- (task -> paper id, Bloom level, scenario, extra), `paper` (Table 3 cells of the paper models our agents
-- match), `agents` (agent -> role, judge, and whether a scripted stand-in touched its numbers: `proxy` its win
-- rates (the agent, the user, the judge, the reference), `proxy_judged` its hint scores (the agent, the user, the
-- judge), `proxy_dialogue` its turn statistics (the agent, the user)).
-- Scopes: each task id; each Bloom level and scenario and `overall` = the unweighted mean of their task
-- values over the 22 paper tasks, only when every one of them has a value (paper: AVG = mean of the 22 task
-- win rates); `CC` (Compensation Calculation) only on its own. Rates and counts (order disagreement,
-- exclusions, rounds) are pooled over the items of the scope instead.
-- n_failed: of the rows behind a number, those that model calls failing after retries left out: verdicts whose
-- candidate or reference dialogue ended in a failed call or whose judge call failed, hint scores likewise, and
-- dialogues that ended in a failed call (turn statistics); NULL for the paper's rows. n_unparsable: of the rows
-- behind a number, the verdicts (or hint scores) left out because the judge's answer did not parse after its repair
-- rounds; 0 for the turn statistics, NULL for the paper's rows.
WITH groups AS (
    SELECT task_id, task_id AS scope FROM ucl_tasks
    UNION ALL SELECT task_id, bloom FROM ucl_tasks WHERE NOT extra
    UNION ALL SELECT task_id, scenario FROM ucl_tasks WHERE NOT extra
    UNION ALL SELECT task_id, 'overall' FROM ucl_tasks WHERE NOT extra
),
expected AS (SELECT scope, count(*) AS k FROM groups GROUP BY scope),
v AS (
    SELECT v.*, v.value AS points, t.task_id,
           coalesce(v.failure IN ('call_failed', 'agent_failed', 'reference_failed'), false) AS fc,
           coalesce(v.failure = 'unparsable', false) AS up
    FROM verdicts v JOIN ucl_tasks t USING (task)
),
h AS (
    SELECT h.*, coalesce(h.failure IN ('call_failed', 'agent_failed', 'reference_failed'), false) AS fc,
           coalesce(h.failure = 'unparsable', false) AS up
    FROM hint_scores h
),
items AS (  -- one row per (agent, item): the candidate's outcome in each order
    SELECT agent, task_id, item_id,
           any_value(outcome) FILTER (WHERE "order" = 'candidate_first') AS first_o,
           any_value(outcome) FILTER (WHERE "order" = 'reference_first') AS second_o,
           avg(points) AS points, count(*) FILTER (WHERE fc) AS n_fc, count(*) FILTER (WHERE up) AS n_up
    FROM v GROUP BY agent, task_id, item_id
),
task_cells AS (  -- macro metrics per (agent, task)
    SELECT agent, task_id, 'win_rate' AS metric, 100 * avg(points) AS value, count(points) AS n,
           count(*) FILTER (WHERE fc) AS n_failed, count(*) FILTER (WHERE up) AS n_unparsable
    FROM v GROUP BY agent, task_id
    UNION ALL
    SELECT agent, task_id, 'win_rate_candidate_first', 100 * avg(points), count(points), count(*) FILTER (WHERE fc),
           count(*) FILTER (WHERE up)
    FROM v WHERE "order" = 'candidate_first' GROUP BY agent, task_id
    UNION ALL
    SELECT agent, task_id, 'win_rate_reference_first', 100 * avg(points), count(points), count(*) FILTER (WHERE fc),
           count(*) FILTER (WHERE up)
    FROM v WHERE "order" = 'reference_first' GROUP BY agent, task_id
    UNION ALL
    SELECT agent, task_id, 'win_rate_balanced',
           100 * avg(CASE WHEN first_o <> second_o THEN 0.5 WHEN first_o = 'win' THEN 1.0
                          WHEN first_o = 'tie' THEN 0.5 ELSE 0.0 END) FILTER (WHERE first_o IS NOT NULL AND second_o IS NOT NULL),
           count(*) FILTER (WHERE first_o IS NOT NULL AND second_o IS NOT NULL),
           count(*) FILTER (WHERE n_fc > 0), count(*) FILTER (WHERE n_up > 0)
    FROM items GROUP BY agent, task_id
    UNION ALL
    SELECT h.agent, t.task_id, 'hint_score', 100 * avg(h.value), count(h.value), count(*) FILTER (WHERE h.fc),
           count(*) FILTER (WHERE h.up)
    FROM h JOIN ucl_tasks t USING (task) GROUP BY h.agent, t.task_id
),
macro AS (
    SELECT c.agent, g.scope, c.metric,
           CASE WHEN count(c.value) = any_value(e.k) THEN avg(c.value) END AS value, sum(c.n) AS n,
           sum(c.n_failed) AS n_failed, sum(c.n_unparsable) AS n_unparsable
    FROM task_cells c JOIN groups g USING (task_id) JOIN expected e USING (scope)
    GROUP BY c.agent, g.scope, c.metric
),
pooled AS (
    SELECT i.agent, g.scope, 'order_disagreement' AS metric,
           100 * avg(CASE WHEN i.first_o <> i.second_o THEN 1.0 ELSE 0.0 END)
               FILTER (WHERE i.first_o IS NOT NULL AND i.second_o IS NOT NULL) AS value,
           count(*) FILTER (WHERE i.first_o IS NOT NULL AND i.second_o IS NOT NULL) AS n,
           count(*) FILTER (WHERE i.n_fc > 0) AS n_failed, count(*) FILTER (WHERE i.n_up > 0) AS n_unparsable
    FROM items i JOIN groups g USING (task_id)
    GROUP BY i.agent, g.scope
    HAVING count(*) FILTER (WHERE i.first_o IS NOT NULL AND i.second_o IS NOT NULL) > 0
    UNION ALL
    SELECT v.agent, g.scope, 'verdicts_excluded', count(*) FILTER (WHERE v.failure IS NOT NULL), count(*),
           count(*) FILTER (WHERE v.fc), count(*) FILTER (WHERE v.up)
    FROM v JOIN groups g USING (task_id) GROUP BY v.agent, g.scope
    UNION ALL
    SELECT h.agent, g.scope, 'hint_scores_excluded', count(*) FILTER (WHERE h.failure IS NOT NULL), count(*),
           count(*) FILTER (WHERE h.fc), count(*) FILTER (WHERE h.up)
    FROM h JOIN ucl_tasks t USING (task) JOIN groups g USING (task_id) GROUP BY h.agent, g.scope
),
d AS (SELECT d.*, d.instance_id AS item_id, t.task_id FROM dialogues d JOIN ucl_tasks t USING (task)),
turns AS (
    SELECT d.agent, g.scope, 'mean_rounds' AS metric, avg(d.rounds) FILTER (WHERE d.failure IS NULL) AS value,
           count(d.rounds) FILTER (WHERE d.failure IS NULL) AS n, count(*) FILTER (WHERE d.failure IS NOT NULL) AS n_failed,
           0 AS n_unparsable
    FROM d JOIN groups g USING (task_id) GROUP BY d.agent, g.scope
    HAVING count(*) FILTER (WHERE d.failure IS NULL) > 0
    UNION ALL
    SELECT d.agent, g.scope, 'cap_rate',
           100 * avg(CASE WHEN d.ended_by = 'max_turns' THEN 1.0 ELSE 0.0 END) FILTER (WHERE d.failure IS NULL),
           count(*) FILTER (WHERE d.failure IS NULL), count(*) FILTER (WHERE d.failure IS NOT NULL), 0
    FROM d JOIN groups g USING (task_id) GROUP BY d.agent, g.scope
    HAVING count(*) FILTER (WHERE d.failure IS NULL) > 0
    UNION ALL
    SELECT d.agent, g.scope, 'dialogues_failed', count(*) FILTER (WHERE d.failure IS NOT NULL), count(*),
           count(*) FILTER (WHERE d.failure IS NOT NULL), 0
    FROM d JOIN groups g USING (task_id) GROUP BY d.agent, g.scope
    UNION ALL  -- the assistant's request outgrew its context (the model's limit): only where it happened
    SELECT d.agent, g.scope, 'dialogues_at_context_limit', count(*) FILTER (WHERE d.ended_by = 'context_exceeded'),
           count(*), 0, 0
    FROM d JOIN groups g USING (task_id) GROUP BY d.agent, g.scope
    HAVING count(*) FILTER (WHERE d.ended_by = 'context_exceeded') > 0
    UNION ALL  -- within a run: do longer dialogues score lower? (rounds vs the item's pooled points)
    SELECT d.agent, 'overall', 'r_rounds_points', corr(d.rounds, i.points), count(*),
           (SELECT count(*) FROM d AS x WHERE x.agent = d.agent AND x.failure IS NOT NULL), 0
    FROM d JOIN items i USING (agent, item_id) JOIN ucl_tasks t ON t.task_id = d.task_id
    WHERE d.failure IS NULL AND i.points IS NOT NULL AND NOT t.extra
    GROUP BY d.agent
),
across AS (  -- across agents (the paper's Fig. 6): mean rounds vs overall win rate
    SELECT 'all agents' AS agent, 'overall' AS scope, 'r_rounds_win_rate' AS metric,
           CASE WHEN count(*) >= 3 THEN corr(t.value, m.value) END AS value, count(*) AS n,
           sum(m.n_failed) AS n_failed, sum(m.n_unparsable) AS n_unparsable
    FROM turns t JOIN macro m USING (agent, scope) JOIN agents a USING (agent)
    WHERE t.metric = 'mean_rounds' AND m.metric = 'win_rate' AND t.scope = 'overall' AND a.role = 'agent'
      AND m.value IS NOT NULL
),
paper_cells AS (
    SELECT p.agent, t.task_id, p.value FROM paper p JOIN ucl_tasks t ON t.task_id = p.scope
),
paper_rows AS (  -- the paper's own cells and AVG; its Bloom and scenario means are derived like ours
    SELECT agent, scope, value FROM paper
    UNION ALL
    SELECT c.agent, g.scope, CASE WHEN count(c.value) = any_value(e.k) THEN avg(c.value) END
    FROM paper_cells c JOIN groups g USING (task_id) JOIN expected e USING (scope)
    WHERE g.scope <> c.task_id AND g.scope <> 'overall'
    GROUP BY c.agent, g.scope
),
ours AS (
    SELECT 'win_rate' AS "table", * FROM macro WHERE metric <> 'hint_score'
    UNION ALL SELECT 'hint_score', * FROM macro WHERE metric = 'hint_score'
    UNION ALL SELECT CASE WHEN metric = 'hint_scores_excluded' THEN 'hint_score' ELSE 'win_rate' END, *
              FROM pooled
    UNION ALL SELECT 'turns', * FROM turns
    UNION ALL SELECT 'turns', * FROM across
)
SELECT 'ucl' AS benchmark, o."table", o.agent, o.scope, o.metric, o.value, o.n, o.n_failed, o.n_unparsable,
       coalesce(a.judge, (SELECT any_value(judge) FROM agents)) AS judge,
       coalesce(CASE o."table" WHEN 'turns' THEN a.proxy_dialogue WHEN 'hint_score' THEN a.proxy_judged
                ELSE a.proxy END,
                (SELECT bool_or(proxy_dialogue) FROM agents)) AS proxy, 'ours' AS source
FROM ours o LEFT JOIN agents a USING (agent)
UNION ALL
SELECT 'ucl', 'win_rate', agent, scope, 'win_rate', value, NULL, NULL, NULL, 'gpt-4-0613', false, 'paper'
FROM paper_rows
ORDER BY 2 DESC, 3, 12 DESC, 5, 4;
