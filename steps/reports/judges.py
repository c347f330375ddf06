"""The judge audit (stage `judges_report`): how reliable the judge behind each LLM-judged number is.

For every judged table of every run (the registrations' `judged`), one row per (benchmark, table, agent, judge
model, prompt) with the number of versions of that prompt it was asked with (a prompt version `name@hash` hashes the
template and what it is filled with, e.g. one version per rubric), and:

- the judge's failures by kind (`unparsable`, `out_of_range`, `call_failed`) and the unparsable share of what it was
  asked; `repaired`: judgements that took more calls than the fewest any judgement of that row took: a repair round
  after an invalid answer where a judgement asks one question, but also a longer dialogue where it asks one per
  window of it; `calls`: every judge call behind the rows, repair rounds included;
- position consistency, where the table judges each item in both orders (an `order` column beside `outcome`): the
  pairs with both orders answered and the share whose outcome for the candidate flips when the order is swapped;
- self-preference: `same model` when the judge is the agent's own model, `same family` when both names start with
  the same family (gpt, qwen, deepseek, …); the proxy judge (a scripted model) is never flagged.

Rows a rule valued or nothing was asked for are left out. Written to reports/judges.md and its CSV twin.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from steps.paths import Paths
from steps.stages import StageContext

COLUMNS = [
    "benchmark",
    "table",
    "agent",
    "judge",
    "prompt",
    "versions",
    "proxy",
    "judged",
    "valued",
    "unparsable",
    "out_of_range",
    "call_failed",
    "unparsable_pct",
    "repaired",
    "calls",
    "order_pairs",
    "flipped",
    "flip_pct",
    "self_preference",
]
FAILURES = ("unparsable", "out_of_range", "call_failed")
BASE = ["judge", "judge_prompt_version", "judge_proxy", "value", "failure", "attempts"]
PAIRED = ["item_id", "order", "outcome"]  # a table judged in both orders
_FAMILY = re.compile(r"[a-z]+")


def family(model: str) -> str:
    """The family of a litellm model string: the leading letters of its name (openai/gpt-4o → gpt)."""
    name = model.rsplit("/", 1)[-1].lower()
    found = _FAMILY.match(name)
    return found.group(0) if found else name


def self_preference(judge: str, agent_model: str | None, proxy: bool) -> str:
    """`same model`, `same family` or "" (unknown agent model, a proxy judge, or unrelated models); a panel's label
    (`panel(mean): a + b`) is flagged as its most flagged member."""
    if proxy or not agent_model:
        return ""
    if judge.startswith("panel(") and ": " in judge:
        flags = {self_preference(m, agent_model, False) for m in judge.split(": ", 1)[1].split(" + ")}
        return next((f for f in ("same model", "same family") if f in flags), "")
    if judge.rsplit("/", 1)[-1] == agent_model.rsplit("/", 1)[-1]:
        return "same model"
    return "same family" if family(judge) == family(agent_model) else ""


def flips(rows: pd.DataFrame) -> tuple[int, int]:
    """(pairs with both orders answered, pairs whose candidate outcome differs between the orders)."""
    answered = rows[rows.outcome.notna()]
    per_item = answered.groupby("item_id").outcome.agg(["nunique", "size"])
    pairs = per_item[per_item["size"] >= 2]
    return len(pairs), int((pairs["nunique"] > 1).sum())


def audit_table(labels: Mapping[str, str], frame: pd.DataFrame, agent_model: str | None) -> list[dict]:
    """The audit rows of one judged table of one run."""
    asked = frame[~frame.judge.isin(["rule", ""])]
    asked = asked.assign(prompt=asked.judge_prompt_version.str.split("@").str[0])
    out = []
    for (judge, prompt), rows in asked.groupby(["judge", "prompt"], sort=True):
        proxy = bool(rows.judge_proxy.any())
        counts = {kind: int((rows.failure == kind).sum()) for kind in FAILURES}
        called = rows[rows.attempts > 0]
        fewest = int(called.attempts.min()) if len(called) else 0
        pairs, flipped = flips(rows) if set(PAIRED) <= set(rows.columns) else (0, 0)
        out.append(
            {
                **labels,
                "judge": judge,
                "prompt": prompt,
                "versions": int(rows.judge_prompt_version.nunique()),
                "proxy": proxy,
                "judged": len(rows),
                "valued": int(rows.value.notna().sum()),
                **counts,
                "unparsable_pct": round(100 * counts["unparsable"] / len(rows), 1),
                "repaired": int((called.attempts > fewest).sum()),
                "calls": int(rows.attempts.sum()),
                "order_pairs": pairs,
                "flipped": flipped,
                "flip_pct": round(100 * flipped / pairs, 1) if pairs else None,
                "self_preference": self_preference(str(judge), agent_model, proxy),
            }
        )
    return out


def audit(files: list[tuple[dict[str, str], Path]], agent_models: Mapping[str, str]) -> pd.DataFrame:
    """Every judged table's audit rows; `files` as `steps.reports.stages.judged_files` lists them, the run's
    agent being the folder the table lies in."""
    from steps.reports.judge_panels import panel_file

    rows = []
    for labels, path in files:
        agent = path.parent.name
        # a panel's members' rows (their failures, repairs and flips each), after the aggregated rows
        for source in [path, panel_file(path)] if panel_file(path).is_file() else [path]:
            columns = pq.read_schema(source).names
            frame = pd.read_parquet(source, columns=BASE + [c for c in PAIRED if c in columns])
            rows += audit_table({**labels, "agent": agent}, frame, agent_models.get(agent))
    out = pd.DataFrame(rows, columns=COLUMNS)
    out["flip_pct"] = out.flip_pct.astype("Float64")
    return out


HEAD = """# The judges

How reliable the judge behind each LLM-judged number is, per benchmark table, agent, judge model and prompt (with how
many versions of it the rows were asked; rows a rule valued are left out). `unparsable %`: judge answers that held no
valid answer after the repair round, of those asked; `repaired`: judgements that took more calls than the fewest of
their row took (a repair round; for a judge that asks once per window of a dialogue, also a longer dialogue); `calls`:
judge calls, repairs included. `flip %` (tables judged in both orders): pairs whose outcome for the
candidate changes when the order is swapped. `self-preference`: the judge is the agent's own model or of its family.
`[proxy]`: the scripted proxy judge, which checks the pipeline and measures no model.

Not audited yet: probes of the graded judges. Panels of judges and agreement with human labels follow the table
(no human labels ship with the project).

"""
HEADER = (
    "benchmark",
    "table",
    "agent",
    "judge",
    "prompt (versions)",
    "judged",
    "valued",
    "unparsable",
    "out of range",
    "call failed",
    "unparsable %",
    "repaired",
    "calls",
    "pairs",
    "flip %",
    "self-preference",
)


def render(frame: pd.DataFrame) -> str:
    """reports/judges.md."""
    if frame.empty:
        return HEAD + "No judged table found.\n"
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for r in frame.itertuples(index=False):
        cells = (
            r.benchmark,
            r.table,
            r.agent,
            f"`{r.judge} [proxy]`" if r.proxy else f"`{r.judge}`",
            f"{r.prompt} ({r.versions})",
            r.judged,
            r.valued,
            r.unparsable,
            r.out_of_range,
            r.call_failed,
            f"{r.unparsable_pct:g}",
            r.repaired,
            r.calls,
            r.order_pairs,
            "—" if pd.isna(r.flip_pct) else f"{r.flip_pct:g}",
            r.self_preference or "—",
        )
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    return HEAD + "\n".join(lines) + "\n"


PROBE_COLUMNS = [
    "benchmark",
    "agent",
    "judge",
    "proxy",
    "calls",
    "repeat_items",
    "rounds",
    "unanimous_pct",
    "within_sd",
    "shuffle_items",
    "rubric_items",
    "changed_pct",
    "mean_diff",
]


def probe_audit(files: list[tuple[str, Path]]) -> pd.DataFrame:
    """Self-consistency and rubric order per (benchmark, agent, judge) from the runs' `judge_probes` tables
    (`steps.judges.probes`); `files` are (benchmark, path), the agent being the folder the table lies in."""
    from steps.judges.probes import consistency, order_effect

    rows = []
    for bench, path in files:
        frame = pd.read_parquet(path)
        for judge, probes in frame.groupby("judge", sort=True):
            rows.append(
                {
                    "benchmark": bench,
                    "agent": path.parent.name,
                    "judge": judge,
                    "proxy": bool(probes.judge_proxy.any()),
                    "calls": int((probes["round"] > 0).sum()),
                    **consistency(probes),
                    **order_effect(probes),
                }
            )
    out = pd.DataFrame(rows, columns=PROBE_COLUMNS)
    return out.astype({c: "Float64" for c in ("unanimous_pct", "within_sd", "changed_pct", "mean_diff")})


PROBE_HEAD = """
## Self-consistency and rubric order

Where a judge stage probes its judge (`<benchmark>.judge_probes`: a seeded sample of the answers it valued), each
sampled answer is judged again `repeats` times with the judge's decoding seed moved by the round (distinct calls, not
cache hits), and once more with the rubric items in a seeded random order. `unanimous %`: sampled answers whose
judgement and re-judgements all gave the same value; `within SD`: the mean over those answers of the standard
deviation (n − 1) of their values (a value is the share of the maximum, 0–1). `changed %`: rubric items whose verdict
differs between the shuffled and the original order; `mean Δ`: the mean value difference (shuffled − original).
A deterministic stand-in (the `[proxy]` judge) answers alike by construction: its agreement is trivially 100 % and
its order effect nil, which measures no model; its rows show that instead of numbers. A real judge decoding greedily
(temperature 0) mostly answers alike whatever the seed: there, agreement shows the server's determinism more than the
judge's uncertainty, and the rubric order is the informative probe.

"""
PROBE_HEADER = (
    "benchmark",
    "agent",
    "judge",
    "calls",
    "answers",
    "rounds",
    "unanimous %",
    "within SD",
    "shuffled",
    "rubric items",
    "changed %",
    "mean Δ",
)
TRIVIAL = "trivially 100 % (deterministic stand-in)"


def render_probes(frame: pd.DataFrame) -> str:
    """The self-consistency and rubric-order section of reports/judges.md ("" when no stage probed its judge)."""
    if frame.empty:
        return ""
    lines = ["| " + " | ".join(PROBE_HEADER) + " |", "|" + "---|" * len(PROBE_HEADER)]

    def num(value: object) -> str:
        return "—" if pd.isna(value) else f"{value:g}"

    for r in frame.itertuples(index=False):
        measured = (
            (TRIVIAL, "—", "—", "none by construction", "—")
            if r.proxy
            else (num(r.unanimous_pct), num(r.within_sd), r.rubric_items, num(r.changed_pct), num(r.mean_diff))
        )
        cells = (
            r.benchmark,
            r.agent,
            f"`{r.judge} [proxy]`" if r.proxy else f"`{r.judge}`",
            r.calls,
            r.repeat_items,
            r.rounds,
            measured[0],
            measured[1],
            r.shuffle_items,
            measured[2],
            measured[3],
            measured[4],
        )
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    return PROBE_HEAD + "\n".join(lines) + "\n"


def probe_files(paths: Paths, benchmarks: list[str]) -> list[tuple[str, Path]]:
    """(benchmark, path) of every run's judge probes table."""
    from steps.judges.probes import PROBE_FILE

    return [(b, p) for b in benchmarks for p in sorted(paths.runs(b).glob(f"*/{PROBE_FILE}"))]


def judges_report(ctx: StageContext) -> str:
    """Write reports/judges.md and reports/judges.csv (and the probes' reports/judge_probes.csv) from every run's
    judged tables and judge probes."""
    from steps.benchmarks import judged_tables
    from steps.reports.stages import judged_files

    files = [(labels, ctx.input_path(path)) for labels, path in judged_files(ctx.paths)]
    models = {name: ctx.params.agent(name).model for name in ctx.params.agents}
    frame = audit(files, models)
    probed = probe_audit([(b, ctx.input_path(p)) for b, p in probe_files(ctx.paths, list(judged_tables()))])
    md, csv = ctx.paths.reports / "judges.md", ctx.paths.reports / "judges.csv"
    text = render(frame) + render_probes(probed) + "\n" + panels_and_humans(ctx, files)
    ctx.write_text(md, text)
    ctx.write_text(csv, frame.to_csv(index=False, lineterminator="\n"))
    ctx.write_text(ctx.paths.reports / "judge_probes.csv", probed.to_csv(index=False, lineterminator="\n"))
    ctx.publish_markdown(
        "report-judges", text, "The judge audit: failures, repairs, order flips, probes, panels, humans"
    )
    unparsable = int(frame.unparsable.sum())
    return f"{md} written ({len(frame)} judge rows over {len(files)} judged tables, {unparsable} unparsable); 0 failed"


def panels_and_humans(ctx: StageContext, files: list[tuple[dict[str, str], Path]]) -> str:
    """The panels' agreement and rankings (reports/judges_panels.csv, judges_rankings.csv) and the agreement with
    human labels (reports/judges_human.csv): the sections of reports/judges.md after the audit's table."""
    from steps.params import BENCHMARKS
    from steps.reports import human_labels, judge_panels

    agreement, ranking = judge_panels.panels(files)
    folder = ctx.input_path(ctx.paths.data / human_labels.FOLDER)
    studies = human_labels.studies()
    labels = human_labels.read_labels(folder, BENCHMARKS)
    judged = human_labels.judged_frames(files, studies) if len(labels) else {}
    humans = human_labels.human_agreement(studies, judged, labels)
    for name, table in (("panels", agreement), ("rankings", ranking), ("human", humans)):
        ctx.write_text(ctx.paths.reports / f"judges_{name}.csv", table.to_csv(index=False, lineterminator="\n"))
    where = f"data/{human_labels.FOLDER}"
    return judge_panels.render(agreement, ranking) + "\n" + human_labels.render(humans, labels, studies, where)
