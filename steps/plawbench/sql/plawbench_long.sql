-- The long CSV twin of reports/plawbench.md (columns of DESIGN.md). Inputs: `rates` (plawbench_rates),
-- `derived` (plawbench_overall over ours and the paper's), `paper3` (paper Table 3: model, metric, value),
-- `agents` (agent, model, scripted), `judge_info` (judge, proxy: the judge is scripted, environment_proxy: the
-- multi-turn variant's client is), `data_stats` (plawbench_data),
-- `paper2` (statistic, T1, T2, T3), `paper4` (judge, metric, value), `health` (plawbench_judge_health),
-- `errors` (plawbench_errors). Opt-in paper-penalty mode (empty otherwise): `rates` also holds the
-- paper_penalty_optin T1 rows (plawbench_penalty_rates), `derived` its Overall (source paper_penalty),
-- `penalty_answers` and `penalty_findings` (plawbench_penalty_answers, plawbench_penalty_findings).
-- n_failed: the responses behind an ours rate that model calls failing after retries left out (rates'
-- n_failed_calls; T3 and Overall sum their inputs'); n_unparsable likewise, the responses whose judge answer did
-- not parse after its repair rounds; both NULL elsewhere.
-- proxy: a scripted stand-in touched the number: the agent, the judge, and on the multi-turn variant's numbers
-- (table multiturn, judge health scopes multiturn/…) the environment playing the client.
WITH parts AS (  -- failed calls behind the derived T3 and Overall (default, and with the penalised T1)
    SELECT agent,
           sum(n_failed_calls) FILTER (WHERE "table" = 'table3' AND metric IN ('T3/Defendant', 'T3/Plaintiff')) AS t3,
           sum(n_failed_calls) FILTER (WHERE "table" = 'table3' AND metric IN ('T1', 'T2')) AS t12,
           sum(n_failed_calls) FILTER (WHERE "table" = 'paper_penalty_optin' AND scope = 'overall') AS t1_penalised,
           sum(n_failed_calls) FILTER (WHERE "table" = 'table3' AND metric = 'T2') AS t2,
           sum(n_unparsable) FILTER (WHERE "table" = 'table3' AND metric IN ('T3/Defendant', 'T3/Plaintiff')) AS u3,
           sum(n_unparsable) FILTER (WHERE "table" = 'table3' AND metric IN ('T1', 'T2')) AS u12,
           sum(n_unparsable) FILTER (WHERE "table" = 'paper_penalty_optin' AND scope = 'overall') AS u1_penalised,
           sum(n_unparsable) FILTER (WHERE "table" = 'table3' AND metric = 'T2') AS u2
    FROM rates WHERE scope = 'overall' GROUP BY agent
),
ours AS (
    SELECT r."table", r.agent, r.scope, r.metric, r.value, r.n, r.n_failed_calls AS n_failed, r.n_unparsable,
           a.scripted OR j.proxy OR (j.environment_proxy AND r."table" = 'multiturn') AS proxy
    FROM rates r JOIN agents a USING (agent) CROSS JOIN judge_info j
    UNION ALL
    SELECT 'table3', d.agent, 'overall', d.metric, d.value, NULL,
           CASE d.metric WHEN 'T3' THEN p.t3 ELSE p.t12 + p.t3 END,
           CASE d.metric WHEN 'T3' THEN p.u3 ELSE p.u12 + p.u3 END, a.scripted OR j.proxy
    FROM derived d JOIN agents a USING (agent) LEFT JOIN parts p USING (agent) CROSS JOIN judge_info j
    WHERE d.source = 'ours'
    UNION ALL
    SELECT 'paper_penalty_optin', d.agent, 'overall', d.metric, d.value, NULL, p.t1_penalised + p.t2 + p.t3,
           p.u1_penalised + p.u2 + p.u3, a.scripted OR j.proxy
    FROM derived d JOIN agents a USING (agent) LEFT JOIN parts p USING (agent) CROSS JOIN judge_info j
    WHERE d.source = 'paper_penalty' AND d.metric = 'Overall'
),
stats AS (
    SELECT task, statistic, value FROM (
        SELECT task, questions::DOUBLE AS questions, avg_prompt_chars::DOUBLE AS avg_prompt_chars,
               rubric_items::DOUBLE AS rubric_items, rubric_items_avg::DOUBLE AS rubric_items_avg
        FROM data_stats
    ) UNPIVOT (value FOR statistic IN (questions, avg_prompt_chars, rubric_items, rubric_items_avg))
),
paper_stats AS (
    SELECT statistic, task, value FROM paper2 UNPIVOT (value FOR task IN ("T1", "T2", "T3"))
),
health_long AS (
    SELECT agent, variant || '/' || category AS scope, metric, value::DOUBLE AS value, responses AS n
    FROM health UNPIVOT (value FOR metric IN (judged, agent_failed, judge_call_failed, unparsable, out_of_range,
                                               clamps, fails_triggered, penalty_points, mean_attempts,
                                               questions_truncated))
),
penalty_long AS (
    SELECT agent, variant AS scope, metric, value::DOUBLE AS value, answers AS n
    FROM penalty_answers UNPIVOT (value FOR metric IN (penalised, penalty_judge_failed, other_failed, lowered,
                                                        zeroed, floored, points_deducted))
)
SELECT 'plawbench' AS benchmark, o."table", o.agent, o.scope, o.metric, o.value, o.n, o.n_failed, o.n_unparsable,
       (SELECT judge FROM judge_info) AS judge, o.proxy, 'ours' AS source
FROM ours o
UNION ALL
SELECT 'plawbench', 'table3', model, 'overall', metric, value, NULL, NULL, NULL, 'Gemini-3.0-Pro-Preview', false,
       'paper'
FROM paper3
UNION ALL
SELECT 'plawbench', 'table3_check', agent, 'overall', metric, value, NULL, NULL, NULL, '', false, 'ours'
FROM derived WHERE source = 'paper'
UNION ALL
SELECT 'plawbench', 'table2', '', task, statistic, value, NULL, NULL, NULL, '', false, 'ours' FROM stats
UNION ALL
SELECT 'plawbench', 'table2', '', task, statistic, value, NULL, NULL, NULL, '', false, 'paper' FROM paper_stats
UNION ALL
SELECT 'plawbench', 'table4', judge, 'overall', metric, value, NULL, NULL, NULL, judge, false, 'paper' FROM paper4
UNION ALL
SELECT 'plawbench', 'judge', h.agent, h.scope, h.metric, h.value, h.n, NULL, NULL, (SELECT judge FROM judge_info),
       (SELECT proxy OR (environment_proxy AND h.scope LIKE 'multiturn/%') FROM judge_info), 'ours'
FROM health_long h
UNION ALL
SELECT 'plawbench', 'errors', e.agent, e.category || '/' || e.paper_category, e.error_type, e.items::DOUBLE,
       NULL, NULL, NULL, (SELECT judge FROM judge_info), (SELECT proxy FROM judge_info), 'ours'
FROM errors e
UNION ALL
SELECT 'plawbench', 'paper_penalty_optin_judge', agent, scope, metric, value, n, NULL, NULL,
       (SELECT judge FROM judge_info), (SELECT proxy FROM judge_info), 'ours'
FROM penalty_long
UNION ALL
SELECT 'plawbench', 'paper_penalty_optin_findings', agent, variant || '/' || dimension, code, findings::DOUBLE,
       answers, NULL, NULL, (SELECT judge FROM judge_info), (SELECT proxy FROM judge_info), 'ours'
FROM penalty_findings
ORDER BY 12 DESC, 2, 3, 4, 5;
