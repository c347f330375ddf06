"""`jurisflow estimate`: what a run will send, per stage and role, before anything is sent (offline, read-only).

Every stage that calls a model (its declaration says `calls_models`), and the stages between two of them, runs its
own body (steps/<benchmark>/stages.py, as its flow runs it) with an `EstimateContext`: tables it reads come from the
project (or from what an earlier estimated stage wrote), tables it writes go to a scratch folder, and every call
goes to a `StandInDoor` (steps/llm/standin.py), answered at once by a deterministic scripted stand-in and recorded
with its call key and its input tokens counted by the real model's tokenizer. So:

- exact: the requests of single-turn stages (LawBench, PLawBench single-turn, extraction's first call, persona
  levels, each judge's first call) and, for a scripted configuration, every count (its stand-ins are its models);
- following the stand-ins: the calls and prompts of dialogues after their first reply (when a dialogue ends,
  revisions, forced deliverables, repair rounds) and of the stages downstream of them (J1 instances from the
  stand-ins' extraction and personas, judges over the stand-ins' dialogues);
- assumed: output tokens, i.e. the stand-in's reply lengths (`output`); `output ≤` bounds them by the model's
  `decoding.max_tokens`, or `ASSUMED_OUTPUT_TOKENS` per request when it sets none.

A real agent is played twice (steps/llm/standin.py): the expected figure by the real-model-like filler (`REAL_LIKE`:
replies of the agent's max_tokens that end nothing, so every dialogue runs to its turn cap or until the environment
ends it, as small real models do), the low one by `scripted/oracle` (`EARLY`: an agent that ends every dialogue as
early as it can). The per-stage table is the expected run; `by_benchmark` gives the range. A scripted agent is
played by itself: both figures are the same.

With a calibration record of a real model (`jurisflow models check`, flows/calibrate.py), its prompt tokens are
scaled by the server's ratio to our count, and each stage gets a wall time (`stage_wall`): every call takes the
record's overhead + prompt / prefill speed + output / generation speed; a dialogue's calls run one after another,
items in parallel up to the model's `concurrency` (the server's slots; else `llm.concurrency`) per endpoint,
stages one after another; scripted calls take no time. Without a record the wall time is unknown and the output
says to run `jurisflow models check`.

Stages that DVC finds up to date (`up_to_date`, from `dvc status` in `main`) are not run: a run skips them, so
they send nothing; the estimate lists them as "up to date, not run".

`sent` counts the distinct requests (call keys), the ones not already sent by an earlier stage of the run: what a
run with an empty response cache sends and pays for. Cost = the sent requests' input tokens × input price +
output × output price from litellm's local price map; a model without a price shows `-`, scripted models $0.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flows.kit.config import BENCHMARKS, Params
from flows.kit.context import FlowContext
from flows.kit.paths import PATHS, Paths
from steps import runs, tables
from steps.pipeline import stages
from steps.stages import Stage

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow

    from flows.evaluate import Settings as EvalSettings
    from steps.llm import ModelConfig
    from steps.llm.calibration import Calibration
    from steps.llm.standin import Sent, StandIn, StandInDoor
    from steps.simulate.journal import Journal

ASSUMED_OUTPUT_TOKENS = 1024  # per request, for the bound, when a real model sets no decoding.max_tokens


@dataclass(frozen=True)
class Estimate:
    """One stage's calls of one role (purpose) and model: counts, tokens, the output bound and the cost."""

    stage: str
    agent: str  # the agent the stage runs ("" for a stage shared by every agent)
    role: str  # the purpose of the calls: agent | environment | judge | extraction
    model_name: str
    model: str
    calls: int  # what the stage's usage table will hold (a repeated request is a call too)
    sent: int  # distinct requests not sent earlier in the run: what an empty response cache sends
    input_tokens: int  # of the sent requests
    output_tokens: int  # of the sent requests: the stand-in's replies (assumed lengths for a real model)
    output_bound: int  # sent × max_tokens (or the assumption); a scripted model's own replies
    cost_usd: float | None  # input + assumed output at litellm's prices; None: no price known
    cost_bound_usd: float | None  # input + output bound
    failed: int  # calls the stand-in could not answer (a failed call in a scripted run)
    seconds: float  # time the estimate of this stage took (shared by its rows)
    note: str = ""


@dataclass
class Report:
    rows: list[Estimate]
    seconds: dict[str, float] = field(default_factory=dict)  # per stage
    notes: list[str] = field(default_factory=list)
    sent: list[Sent] = field(default_factory=list)  # every recorded request, in the order the stages made them
    wall: dict[str, float | None] = field(default_factory=dict)  # per stage, from calibration (None: unknown)
    skipped: list[str] = field(default_factory=list)  # stages DVC finds up to date: not run, nothing sent
    low: Report | None = None  # the same run with agents that end every dialogue as early as they can
    uncalibrated: list[str] = field(default_factory=list)  # real models with no calibration record


@dataclass(frozen=True)
class StandInSession:
    """A model session of the estimate: the stand-in door and a journal in the scratch folder."""

    door: StandInDoor
    journal: Journal | None = None
    calls: int = 0
    hits: int = 0

    def usage(self) -> pd.DataFrame:
        """Nothing to check: the estimate checks no calls."""
        import pandas as pd

        return pd.DataFrame()


@dataclass
class EstimateContext(FlowContext):
    """A stage body's context in the estimate: reads from the project (or the scratch copy an earlier estimated
    stage wrote), writes to the scratch folder, calls through the stand-in door, checks nothing, shows nothing."""

    door: StandInDoor | None = None
    scratch: Path = Path(".")

    def _scratch_of(self, path: Path) -> Path:
        return self.scratch / "files" / Path(path).resolve().relative_to(Path("/"))

    def input_path(self, path: Path) -> Path:
        copy = self._scratch_of(path)
        return copy if copy.exists() else path

    def output_path(self, path: Path) -> Path:
        out = self._scratch_of(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        return out

    def read_table(self, path: Path, schema: type) -> pd.DataFrame:
        return tables.read_table(self.input_path(path), schema)

    def write_table(
        self,
        df: pd.DataFrame,
        path: Path,
        schema: type,
        *,
        table: str,
        arrow_types: Mapping[str, pyarrow.DataType] | None = None,
    ) -> pd.DataFrame:
        return tables.write_table(
            df, self.output_path(path), schema, table=table, arrow_types=dict(arrow_types or {}) or None
        )

    def write_text(self, path: Path, text: str) -> None:
        tables.write_text_atomic(self.output_path(path), text)

    def exists(self, path: Path) -> bool:
        return self.input_path(path).exists()

    def begin_run(self, directory: Path, spec: dict[str, Any]) -> str:
        return runs.run_id(spec)

    def write_run_json(self, directory: Path, spec: dict[str, Any]) -> str:
        return runs.write_run_json(self.output_path(directory), spec)

    @contextmanager
    def model_session(
        self,
        run_id: str,
        *,
        usage: Path | None = None,
        journal: Path | None = None,
        models: Iterable[ModelConfig] = (),
    ) -> Iterator[StandInSession]:
        from steps.simulate.journal import Journal

        assert self.door is not None
        log = Journal(self.output_path(journal)) if journal is not None else None
        try:
            yield StandInSession(self.door, log)
        finally:
            if log is not None:
                log.close()

    def check_calls(
        self, *usage: Path | pd.DataFrame, judged: Sequence[Path | pd.DataFrame] = (), limits: Iterable[str] = ()
    ) -> None:
        return None  # a call the stand-in could not answer is counted in the estimate's `failed`

    def served_tokenizer(self, model: ModelConfig) -> None:
        return None  # offline: no server is asked; prompts are counted by the character rule

    def counter(self, description: str, total: int) -> Any:
        return nullcontext(lambda *_: None)

    def track(self, items: Iterable[Any], description: str, total: int | None = None) -> Iterator[Any]:
        return iter(items)

    def task(self, fn: Callable[..., Any], name: str | None = None) -> Callable[..., Any]:
        return fn

    def publish_table(self, key: str, rows: list[dict[str, Any]], description: str) -> None:
        return None

    def publish_markdown(self, key: str, markdown: str, description: str) -> None:
        return None

    def log(self, message: str) -> None:
        return None


def _covers(read: str, written: str) -> bool:
    """A stage reading `read` (a file or folder) reads what another writes at `written`."""
    return written == read or written.startswith(read.rstrip("/") + "/") or read.startswith(written.rstrip("/") + "/")


def on_disk(declared: str, paths: Paths) -> Path:
    """Where a stage's declared path (`data/...`, `reports/...`, relative to the project) is under `paths`."""
    head, _, rest = declared.partition("/")
    if head == "data":
        return paths.data / rest
    if head == "reports":
        return paths.reports / rest
    return paths.data.parent / declared


def estimated_stages(chosen: Sequence[str], paths: Paths | None = None) -> list[Stage]:
    """The stages the estimate runs for benchmarks `chosen`, in pipeline order: those that call models, and those
    that read what an estimated stage wrote and write what a later estimated stage reads (J1's instances). With the
    project's `paths`, also every stage (shared ones too) whose outputs are missing there and that an estimated stage
    reads, however far back (`ingest` on a fresh clone): it calls no model, and the estimate runs it in its scratch
    folder, as the run will before its first call."""
    from steps.pipeline import owner

    every = list(stages().values())
    ordered = [s for s in every if owner(s.name) in chosen]
    run = {s.name for s in ordered if s.calls_models}
    for i, s in enumerate(ordered):
        if s.name in run:
            continue
        after_model = any(_covers(r, w) for r in s.reads for e in ordered[:i] if e.name in run for w in e.writes)
        before_model = any(_covers(r, w) for w in s.writes for e in ordered[i + 1 :] if e.calls_models for r in e.reads)
        if after_model and before_model:
            run.add(s.name)
    if paths is not None:
        for i in reversed(range(len(every))):  # a missing input's writer, then that writer's missing inputs
            s = every[i]
            if s.name in run:
                continue
            later = [r for e in every[i + 1 :] if e.name in run for r in e.reads if "{" not in r]
            if any(_covers(r, w) for r in later if not on_disk(r, paths).exists() for w in s.writes):
                run.add(s.name)
    return [s for s in every if s.name in run]


def estimate(
    params: Params,
    agents: list[str] | None = None,
    benchmarks: list[str] | None = None,
    paths: Paths = PATHS,
    stand_ins: dict[str, StandIn] | None = None,
    calibrations: Mapping[str, Calibration] | None = None,
    up_to_date: Iterable[str] = (),
) -> Report:
    """The estimate of a run of the chosen agents (default all) on the benchmarks each takes part in, reading the
    item tables where `paths` says the stages find them. Real agents are played by the real-model-like filler, and
    the report's `low` is the same run with `scripted/oracle` agents (unless `stand_ins` says who plays them: then
    one run, no `low`). `calibrations` (flows/calibrate.py's records) scale prompt tokens and give wall times;
    stages named in `up_to_date` are not run."""
    from steps.llm.standin import EARLY, REAL_LIKE

    skip = set(up_to_date)
    records = dict(calibrations or {})
    if stand_ins is not None:
        return _estimate_once(params, agents, benchmarks, paths, dict(stand_ins), records, skip)
    expected = _estimate_once(params, agents, benchmarks, paths, dict(REAL_LIKE), records, skip)
    if any(not r.model.startswith("scripted/") for r in expected.rows if r.role == "agent"):
        expected.low = _estimate_once(params, agents, benchmarks, paths, dict(EARLY), records, skip)
    return expected


def targets(
    params: Params, agents: list[str] | None, benchmarks: list[str] | None, paths: Paths | None = None
) -> list[tuple[Stage, str, str | None, str | None]]:
    """(stage, DVC target, agent, setting) of every stage instance the estimate runs, in pipeline order (`root`:
    where the project's tables are: a missing output makes its stage run first, `estimated_stages`)."""
    from steps.pipeline import owner

    names = agents or list(params.agents)
    chosen = [b for b in BENCHMARKS if b in (benchmarks or BENCHMARKS)]
    taking = {b: [n for n in names if b in params.agents[n].benchmarks] for b in chosen}
    out: list[tuple[Stage, str, str | None, str | None]] = []
    for stage in estimated_stages([b for b, n in taking.items() if n], paths):
        if stage.per_agent:
            agents_here = taking.get(owner(stage.name) or "", [])
            out += [(stage, stage.target(a, s), a, s) for a in agents_here for s in (stage.settings or (None,))]
        else:
            out.append((stage, stage.target(None, None), None, None))
    return out


def _estimate_once(
    params: Params,
    agents: list[str] | None,
    benchmarks: list[str] | None,
    paths: Paths,
    stand_ins: dict[str, StandIn],
    calibrations: dict[str, Calibration],
    up_to_date: set[str],
) -> Report:
    from steps.llm.standin import StandInDoor

    ratios = {(c.model, c.api_base): c.prompt_ratio for c in calibrations.values()}
    repairs = {(c.model, c.api_base): c.judge_repair_rate for c in calibrations.values() if c.judge_repair_rate}
    door = StandInDoor(stand_ins, prompt_ratios=ratios, repair_rates=repairs)
    seconds: dict[str, float] = {}
    agent_of: dict[str, str] = {}
    skipped: list[str] = []
    with tempfile.TemporaryDirectory(prefix="jurisflow-estimate-") as tmp:
        for stage, target, agent, setting in targets(params, agents, benchmarks, paths):
            if target in up_to_date:
                skipped.append(target)
                continue
            door.stage, agent_of[target] = target, agent or ""
            repeats = params.repeats(agent) if stage.per_agent and agent else 1
            for i in range(repeats):  # each repeat of the agent's run sends its own calls, as the stage does
                ctx = EstimateContext(
                    params.for_repeat(agent, i) if agent else params,
                    paths.for_repeat(agent, i) if agent else paths,
                    agent,
                    setting,
                    door=door,
                    scratch=Path(tmp),
                )
                started = time.perf_counter()
                try:
                    stage.run_body(ctx)
                finally:
                    seconds[target] = seconds.get(target, 0.0) + time.perf_counter() - started
    rows = tally(door.sent, seconds, agent_of)
    wall, uncalibrated = stage_wall(door.sent, calibrations, params.llm.concurrency)
    report = Report(
        rows, seconds, notes(rows, door.stand_ins) + repair_notes(door.sent, calibrations), door.sent, wall, skipped
    )
    report.uncalibrated = uncalibrated
    return report


def stage_wall(
    sent: list[Sent], calibrations: Mapping[str, Calibration], default_slots: int
) -> tuple[dict[str, float | None], list[str]]:
    """Each stage's wall time from the calibration records (steps/llm/calibration.py's `stage_seconds`): the sent
    requests only (a repeat comes from the response cache at once); None for a stage that calls a real model with no
    record. Also the real models without a record."""
    from steps.llm.calibration import TimedCall, calibration_key, stage_seconds

    calls: dict[str, list[TimedCall]] = {}
    unknown: set[str] = set()
    missing: list[str] = []
    seen: set[str] = set()
    for s in sent:
        calls.setdefault(s.stage, [])
        if s.call_key in seen:
            continue
        seen.add(s.call_key)
        if s.model.startswith("scripted/"):
            continue
        record = calibrations.get(calibration_key(s.model, s.api_base))
        if record is None:
            unknown.add(s.stage)
            where = f"{s.model} @ {s.api_base or 'its provider'}"
            if where not in missing:
                missing.append(where)
            continue
        endpoint = f"{s.model} @ {s.api_base}"
        seconds = record.call_seconds(s.input_tokens, s.output_tokens)
        calls[s.stage].append(TimedCall(s.item or s.call_key, endpoint, s.concurrency or default_slots, seconds))
    wall = {stage: None if stage in unknown else round(stage_seconds(cs), 1) for stage, cs in calls.items()}
    return wall, missing


def tally(sent: list[Sent], seconds: dict[str, float], agent_of: dict[str, str]) -> list[Estimate]:
    """The recorded requests as rows per (stage, role, model), in the order the stages ran; a request counts as
    sent in the first row that makes it (later stages get it from the response cache)."""
    from steps.llm.pricing import pricing_for

    groups: dict[tuple[str, str, str, str], list] = {}
    for s in sent:
        groups.setdefault((s.stage, s.purpose, s.model_name, s.model), []).append(s)
    seen: set[str] = set()
    rows = []
    for (stage, purpose, model_name, model), calls in groups.items():
        first = []
        for s in calls:
            if s.call_key not in seen:
                seen.add(s.call_key)
                first.append(s)
        scripted = model.startswith("scripted/")
        tokens_in = sum(s.input_tokens for s in first)
        tokens_out = sum(s.output_tokens for s in first)
        bound = tokens_out if scripted else sum(s.max_tokens or ASSUMED_OUTPUT_TOKENS for s in first)
        price = None if scripted else pricing_for(model)
        cost = 0.0 if scripted else price.cost(tokens_in, tokens_out) if price else None
        cost_bound = 0.0 if scripted else price.cost(tokens_in, bound) if price else None
        assumed = not scripted and any(s.max_tokens is None for s in first)
        failed = sum(s.failed for s in calls)
        note = "; ".join(
            x
            for x in (
                f"≤ assumes {ASSUMED_OUTPUT_TOKENS}/request" if assumed else "",
                f"{failed} not answered by {calls[0].stand_in}" if failed else "",
            )
            if x
        )
        rows.append(
            Estimate(
                stage,
                agent_of.get(stage, ""),
                purpose,
                model_name,
                model,
                len(calls),
                len(first),
                tokens_in,
                tokens_out,
                bound,
                cost,
                cost_bound,
                failed,
                round(seconds.get(stage, 0.0), 2),
                note,
            )
        )
    return rows


def notes(rows: list[Estimate], stand_ins: dict) -> list[str]:
    """What the figures are, for the output."""
    out = [
        "calls: what each stage's usage table will hold; sent: the distinct requests not sent by an earlier stage "
        "(what a run with an empty response cache sends; a stage DVC finds up to date sends nothing)",
        "input tokens: exact for each request as the stage builds it, counted by litellm for the real model "
        "(scripted: 1 per character); dialogue turns after the first reply, and the stages downstream, follow the "
        "stand-ins' replies",
        "output: assumed, the stand-ins' reply lengths; output ≤: max_tokens per request, or "
        f"{ASSUMED_OUTPUT_TOKENS} when the model sets none; cost and cost ≤: litellm's prices (-: none known)",
    ]
    real = sorted({r.role for r in rows if not r.model.startswith("scripted/")})
    if real:
        who = ", ".join(f"{role} by {_name(stand_ins.get(role))}" for role in real)
        out.append(f"real models' replies are played by stand-ins: {who}")
    failed = sum(r.failed for r in rows)
    if failed:
        out.append(f"{failed} calls the stand-ins could not answer (counted as calls; a real model would answer)")
    return out


def repair_notes(sent: list[Sent], calibrations: Mapping[str, Calibration]) -> list[str]:
    """Where each real judge's repair rate came from: `models check`'s judge probes, or nowhere (first-time parses)."""
    from steps.llm.calibration import calibration_key

    out = []
    judges = sorted(
        {(s.model, s.api_base) for s in sent if s.purpose == "judge" and not s.model.startswith("scripted/")}
    )
    for model, base in judges:
        key = calibration_key(model, base)
        c = calibrations.get(key)
        if c is not None and c.judge_repair_rate is not None:
            out.append(
                f"judge {key}: repair rate {c.judge_repair_rate:.2f} ({round(c.judge_repair_rate * c.judge_probes)} "
                f"of {c.judge_probes} judge probe answers unreadable, `jurisflow models check` at {c.measured_at}): "
                "that share of its answers is played unparsable, so their repair rounds are counted"
            )
        else:
            out.append(
                f"judge {key}: no measured repair rate (`jurisflow models check` measures it); every answer is taken "
                "to parse the first time, no repair round counted"
            )
    return out


def _name(stand_in) -> str:
    from steps.llm.standin import FILLER

    if stand_in == FILLER:
        return "the real-model-like filler (replies of max_tokens tokens that end nothing)"
    return f"scripted/{stand_in}" if isinstance(stand_in, str) else getattr(stand_in, "__name__", "a policy")


def by_model(rows: list[Estimate]) -> list[list[str]]:
    """Totals per model and role (what each configured model will be sent and cost), for the second table."""
    groups: dict[tuple[str, str, str], list[Estimate]] = {}
    for r in rows:
        groups.setdefault((r.model_name, r.model, r.role), []).append(r)
    out = []
    for (name, model, role), rs in groups.items():
        costs, bounds = [r.cost_usd for r in rs], [r.cost_bound_usd for r in rs]
        out.append(
            [
                name,
                model,
                role,
                f"{sum(r.calls for r in rs):,}",
                f"{sum(r.sent for r in rs):,}",
                f"{sum(r.input_tokens for r in rs):,}",
                f"{sum(r.output_tokens for r in rs):,}",
                f"{sum(r.output_bound for r in rs):,}",
                _usd(_total(costs)),
                _usd(_total(bounds)),
            ]
        )
    return out


def _total(values: list[float | None]) -> float | None:
    """The sum, or None when any value is unknown."""
    known = [v for v in values if v is not None]
    return sum(known) if len(known) == len(values) else None


def _usd(v: float | None) -> str:
    return "-" if v is None else f"${v:,.4f}"


def render(report: Report) -> list[list[str]]:
    """The rows `jurisflow estimate` prints, then a total (tokens and costs summed over the rows that have them)."""

    def num(v: int | None) -> str:
        return "-" if v is None else f"{v:,}"

    usd = _usd
    rows = report.rows
    out = [
        [
            r.stage,
            r.role,
            r.model,
            num(r.calls),
            num(r.sent),
            num(r.input_tokens),
            num(r.output_tokens),
            num(r.output_bound),
            usd(r.cost_usd),
            usd(r.cost_bound_usd),
            f"{r.seconds:.1f}",
            r.note,
        ]
        for r in rows
    ]
    costs = [r.cost_usd for r in rows if r.cost_usd is not None]
    bounds = [r.cost_bound_usd for r in rows if r.cost_bound_usd is not None]
    unpriced = len(costs) < len(rows)
    out.append(
        [
            "total",
            "",
            "",
            num(sum(r.calls for r in rows)),
            num(sum(r.sent for r in rows)),
            num(sum(r.input_tokens for r in rows)),
            num(sum(r.output_tokens for r in rows)),
            num(sum(r.output_bound for r in rows)),
            usd(sum(costs)) if costs else "-",
            usd(sum(bounds)) if bounds else "-",
            f"{sum(report.seconds.values()):.1f}",
            "priced rows only" if unpriced and costs else "",
        ]
    )
    return out


FIGURES = ("calls", "sent", "input tokens", "output", "output ≤", "cost", "cost ≤")
HEADER = ("stage", "role", "model", *FIGURES, "s", "note")
MODEL_HEADER = ("name", "model", "role", *FIGURES)
BENCHMARK_HEADER = ("benchmark", "stages", "calls", "sent", "input tokens", "output", "wall time")
NO_WALL = "run `jurisflow models check` for a wall time"


def benchmark_of(target: str) -> str:
    """The benchmark a stage target belongs to ("shared" for ingest and the like)."""
    from steps.pipeline import owner

    return owner(target.split("@", 1)[0]) or "shared"


@dataclass(frozen=True)
class Totals:
    """One benchmark's figures in one run of the estimate."""

    stages: int
    calls: int
    sent: int
    input_tokens: int
    output_tokens: int
    wall_s: float | None  # None: a real model without a calibration record
    real: bool = False  # a real model is called (else the wall time is the scripted models' nothing)


def totals(report: Report) -> dict[str, Totals]:
    """Per benchmark (in the order the stages ran): the stages estimated, calls, tokens and wall time."""
    stages: dict[str, list[str]] = {}
    for target in report.seconds:
        stages.setdefault(benchmark_of(target), []).append(target)
    out = {}
    for benchmark, names in stages.items():
        rows = [r for r in report.rows if r.stage in names]
        walls = [report.wall.get(n, 0.0) for n in names]
        wall = None if any(w is None for w in walls) else sum(w or 0.0 for w in walls)
        out[benchmark] = Totals(
            len(names),
            sum(r.calls for r in rows),
            sum(r.sent for r in rows),
            sum(r.input_tokens for r in rows),
            sum(r.output_tokens for r in rows),
            wall,
            any(not r.model.startswith("scripted/") for r in rows),
        )
    return out


def duration(seconds: float | None) -> str:
    """`1 h 02 min`, `3 min 05 s`, `12 s`; `-` when unknown."""
    if seconds is None:
        return "-"
    s = round(seconds)
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    if s >= 60:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{seconds:.0f} s" if seconds >= 1 else f"{seconds:.1f} s"


def by_benchmark(report: Report) -> list[list[str]]:
    """Per benchmark: stages run (and up to date, not run), then calls, sent, tokens and wall time as `low – expected`
    when a real agent makes the two differ (low: `report.low`, agents that end as early as they can; expected: the
    real-model-like run), else one figure."""
    expected = totals(report)
    low = totals(report.low) if report.low is not None else {}
    skipped: dict[str, int] = {}
    for target in report.skipped:
        skipped[benchmark_of(target)] = skipped.get(benchmark_of(target), 0) + 1

    def pair(a: float | None, b: float | None, fmt: Callable[[float | None], str]) -> str:
        return fmt(b) if not low or a == b else f"{fmt(a)} – {fmt(b)}"

    def num(v: float | None) -> str:
        return "-" if v is None else f"{int(v):,}"

    out = []
    for benchmark in [*expected, *(b for b in skipped if b not in expected)]:
        e = expected.get(benchmark, Totals(0, 0, 0, 0, 0, 0.0))
        lo = low.get(benchmark, e)
        stages = f"{e.stages}" + (f" (+{skipped[benchmark]} up to date, not run)" if benchmark in skipped else "")
        out.append(
            [
                benchmark,
                stages,
                pair(lo.calls, e.calls, num),
                pair(lo.sent, e.sent, num),
                pair(lo.input_tokens, e.input_tokens, num),
                pair(lo.output_tokens, e.output_tokens, num),
                pair(lo.wall_s, e.wall_s, duration) if e.real and e.wall_s is not None else "-",
            ]
        )
    return out


def wall_notes(report: Report) -> list[str]:
    """What the wall time assumes, or how to get one."""
    lines = []
    if report.low is not None:
        lines.append(
            "per benchmark, `low – expected`: low, an agent that ends every dialogue as early as it can (played by "
            "scripted/oracle); expected, a real-model-like agent (replies of its max_tokens that end nothing, so "
            "every dialogue runs to its turn cap or until the environment ends it); the per-stage table is the "
            "expected run"
        )
    if report.uncalibrated:
        lines.append(
            f"wall time: {NO_WALL} (no calibration for {', '.join(report.uncalibrated)}); tokens counted "
            "by our tokenizer, unscaled"
        )
    elif any(not r.model.startswith("scripted/") for r in report.rows):
        lines.append(
            "wall time: from `jurisflow models check`'s measured throughput (prompt tokens scaled by the server's "
            "ratio to our count); a dialogue's calls one after another, items in parallel up to the model's "
            "concurrency (its server's slots), stages one after another; a busy or shared server is slower"
        )
    if report.skipped:
        lines.append(f"up to date, not run (DVC skips them, they send nothing): {', '.join(report.skipped)}")
    return lines


def show(report: Report) -> None:
    """Print the estimate: the table per stage, the table per model, the range and wall time per benchmark, and
    what the figures are."""
    from flows.terminal import console, table

    out = console()
    grid = table(*HEADER, title="per stage")
    for row in render(report):
        grid.add_row(*row)
    out.print(grid)
    models = table(*MODEL_HEADER, title="per model")
    for row in by_model(report.rows):
        models.add_row(*row)
    out.print(models)
    title = "per benchmark (low – expected)" if report.low is not None else "per benchmark"
    benchmarks = table(*BENCHMARK_HEADER, title=title)
    for row in by_benchmark(report):
        benchmarks.add_row(*row)
    out.print(benchmarks)
    for line in [*report.notes, *wall_notes(report)]:
        out.print(f"- {line}", soft_wrap=True)


def load_calibrations() -> dict[str, Calibration]:
    """The records `jurisflow models check` saved in this project (flows/calibrate.py), none when it has not run."""
    from flows.calibrate import load

    return load()


def dvc_stale(stages: list[str], timeout_s: float = 120.0) -> list[str] | None:
    """Which of `stages` `dvc status --json` reports as not up to date; None when DVC cannot tell (it failed, timed
    out, or another DVC command holds the repository's lock: the estimate never waits for a running pipeline)."""
    import json
    import subprocess

    from flows.dvc_cli import command

    try:
        done = subprocess.run(command("status", "--json", *stages), capture_output=True, text=True, timeout=timeout_s)
        return sorted(json.loads(done.stdout or "{}")) if done.returncode == 0 else None
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def up_to_date(file: Path, planned: list[tuple[Stage, str, str | None, str | None]]) -> list[str]:
    """The planned shared stages (J1's extraction and personas, UCL-Bench's reference, …) that `dvc status` finds up
    to date in the project of `file`, and so a run skips; none of a benchmark after one of its planned stages that is
    stale (its inputs may change). The agents' own stages are always estimated (what their usage tables will hold,
    whether or not DVC reruns them). None without a dvc.yaml beside `file` in the working directory, or when DVC
    cannot tell (`dvc_stale`)."""
    if not (file.resolve().parent / "dvc.yaml").exists() or file.resolve().parent != Path.cwd().resolve():
        return []
    candidates = [target for stage, target, _, _ in planned if not stage.per_agent]
    found = dvc_stale(candidates) if candidates else None
    if found is None:
        return []
    stale = set(found)
    out: list[str] = []
    behind: set[str] = set()  # benchmarks with a stale planned stage: what follows it is taken to run
    for _, target, _, _ in planned:
        benchmark = benchmark_of(target)
        if target in candidates and target not in stale and benchmark not in behind:
            out.append(target)
        elif target in stale:
            behind.add(benchmark)
    return out


def main(
    file: Path,
    agents: list[str] | None,
    benchmarks: str | None,
    model: str | None = None,
    settings: EvalSettings | None = None,
) -> int:
    """`jurisflow estimate`: print the estimate table and what its figures are; 1 with one line on bad input. With
    `model`, the estimate of `jurisflow eval --agent AGENT --model MODEL` with `settings` (one agent, new or not):
    its parameters are built in memory, as the eval would write them, and the file is not touched."""
    import sys

    from flows.kit.config import ParamsError, load_params

    try:
        chosen = [b.strip() for b in benchmarks.split(",") if b.strip()] if benchmarks else None
        wrong = [b for b in chosen or [] if b not in BENCHMARKS]
        if wrong:
            raise ParamsError(f"unknown benchmark(s) {', '.join(wrong)}; expected {', '.join(BENCHMARKS)}")
        if model is not None:
            from flows.evaluate import Settings, chosen_benchmarks, preview

            if len(agents or []) != 1:
                raise ParamsError("--model estimates one agent as `jurisflow eval` would add it: give one --agent")
            settings = replace(settings or Settings(), benchmarks=chosen)
            chosen = chosen_benchmarks(chosen)
            params = preview(file, (agents or [])[0], model, settings)
        else:
            if settings is not None:
                raise ParamsError(
                    "--api-base, --limit, --max-tokens … describe an eval: give --model (and one --agent) too"
                )
            params = load_params(file)
        unknown = [a for a in agents or [] if a not in params.agents]
        if unknown:
            raise ParamsError(
                f"unknown agent(s) {', '.join(unknown)}; {file} lists: {', '.join(params.agents)} (with --model, the "
                "estimate of a new agent as `jurisflow eval` would add it)"
            )
        trust = model is None or not (settings and (settings.judge or settings.environment))
        fixed = up_to_date(file, targets(params, agents, chosen)) if trust else []
        report = estimate(params, agents, chosen, calibrations=load_calibrations(), up_to_date=fixed)
    except (ParamsError, FileNotFoundError, ValueError) as err:
        hint = " (the estimate reads what the stages before the first model call write: run `dvc repro` of those first)"
        print(f"error: {err}{hint if isinstance(err, FileNotFoundError) else ''}", file=sys.stderr)
        return 1
    show(report)
    show_context(report)
    return 0


def show_context(report: Report, say: Callable[[str], None] = print) -> list:
    """Say the context check of the estimate's requests (flows/context_check.py); the overflowing items."""
    from flows.context_check import context_lines

    lines, found = context_lines(report.sent)
    for line in lines:
        say(line)
    return found
