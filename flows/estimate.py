"""`jurisflow estimate`: what a run will send, per stage and agent, before it is sent (read-only, offline).

Single-turn stages are estimated from the prompts they would build: the real requests are rendered for the
configured items (limits applied) without calling any model, and their input tokens are counted with litellm's
token counter for the agent's model. Output tokens are bounded by the agent's `decoding.max_tokens`, or, when it
is unset, `ASSUMED_OUTPUT_TOKENS` per call. The cost comes from litellm's local price map (`model_cost`); a model
it has no price for (local servers, scripted models) has an unknown cost, shown as `-` and never as 0.

Dialogue stages (J1, MILE, UCL-Bench, PLawBench multi-turn) build each prompt from the replies before it, so
only their number of agent calls is bounded here (units × turn cap); their tokens are not estimated.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from flows.kit.config import BENCHMARKS, Params
from flows.kit.paths import PATHS
from steps.llm import ModelConfig
from steps.llm.pricing import pricing_for, prompt_tokens

ASSUMED_OUTPUT_TOKENS = 1024  # per call, when an agent sets no decoding.max_tokens
PLAW_DIR = PATHS.shared("plawbench")
INTERIM_DIR = PATHS.interim
J1_DIR = PATHS.shared("j1")  # the j1_instances stage's output


@dataclass(frozen=True)
class Estimate:
    """One stage's agent calls: how many, their input tokens, the bound on their output tokens, the cost bound."""

    stage: str
    agent: str
    model: str
    calls: int
    input_tokens: int | None  # None: not estimated (dialogue prompts depend on the replies)
    output_tokens: int | None  # the bound: calls × max_tokens (or the assumption)
    cost_usd: float | None  # None: litellm has no price for the model, or the tokens are not estimated
    note: str = ""


def count_tokens(model: ModelConfig, messages: list[dict]) -> int:
    """Input tokens of one request by litellm's counter (steps/llm/pricing.py: the door owns litellm)."""
    return prompt_tokens(model.model, messages)


def _priced(stage: str, agent: ModelConfig, calls: int, input_tokens: int | None, note: str = "") -> Estimate:
    per_call = agent.decoding.max_tokens or ASSUMED_OUTPUT_TOKENS
    output = calls * per_call
    assumed = "" if agent.decoding.max_tokens or agent.is_scripted else f"output assumed {ASSUMED_OUTPUT_TOKENS}/call"
    price = None if agent.is_scripted else pricing_for(agent.model)
    cost = price.cost(input_tokens, output) if price is not None and input_tokens is not None else None
    if agent.is_scripted:
        cost = 0.0  # scripted models run offline, free
    return Estimate(
        stage, agent.name, agent.model, calls, input_tokens, output, cost, "; ".join(n for n in (note, assumed) if n)
    )


def lawbench(params: Params, name: str, interim: Path = INTERIM_DIR) -> list[Estimate]:
    """`lawbench_predict@<agent>-<setting>`: the prompts LawBench builds for the agent's items."""
    from steps.lawbench.predict import build_requests

    agent = params.agent(name)
    items = pd.read_parquet(interim / "lawbench_items.parquet")
    limit = params.limit_for(name, "lawbench")
    out = []
    for setting in ("zero_shot", "one_shot"):
        chosen = items[items.setting == setting].sort_values(["task", "idx"], kind="stable")
        chosen = chosen if limit is None else chosen[chosen.idx < limit]
        requests = build_requests(chosen.reset_index(drop=True), agent)
        tokens = sum(count_tokens(agent, r.messages) for r in requests)
        out.append(_priced(f"lawbench_predict@{name}-{setting}", agent, len(requests), tokens))
    return out


def plawbench(params: Params, name: str, data: Path = PLAW_DIR) -> list[Estimate]:
    """`plawbench_predict@<agent>`: the single-turn prompts exactly; the multi-turn consultations as a bound."""
    from steps.plawbench.params import PlawBenchParams
    from steps.plawbench.predict import build_requests, select_tasks

    agent = params.agent(name)
    tasks = select_tasks(pd.read_parquet(data / "tasks.parquet"), params.limit_for(name, "plawbench"))
    rubric = pd.read_parquet(data / "rubric_items.parquet")
    requests = build_requests(tasks, rubric, agent, params.section(PlawBenchParams))
    tokens = sum(count_tokens(agent, r.messages) for r in requests)
    out = [_priced(f"plawbench_predict@{name}", agent, len(requests), tokens, "single-turn")]
    multi = params.section(PlawBenchParams).multiturn
    if multi.enabled:
        consultations = int((tasks.category == "consultation").sum())
        out.append(
            Estimate(
                f"plawbench_predict@{name}",
                name,
                agent.model,
                consultations * multi.max_turns,
                None,
                None,
                None,
                f"multi-turn: ≤ {multi.max_turns} turns × {consultations} consultations",
            )
        )
    return out


def estimates(
    params: Params,
    agents: list[str] | None = None,
    benchmarks: list[str] | None = None,
    interim: Path = INTERIM_DIR,
    plaw: Path = PLAW_DIR,
) -> list[Estimate]:
    """Every estimate for the chosen agents (default: all) on the benchmarks they take part in."""
    chosen = [b for b in BENCHMARKS if b in (benchmarks or BENCHMARKS)]
    out: list[Estimate] = []
    for name in agents or list(params.agents):
        taking = [b for b in chosen if b in params.agents[name].benchmarks]
        if "lawbench" in taking:
            out += lawbench(params, name, interim)
        if "plawbench" in taking:
            out += plawbench(params, name, plaw)
        for b in taking:
            if b not in ("lawbench", "plawbench"):
                out.append(dialogue_bound(params, name, b, interim))
    return out


def dialogue_bound(
    params: Params, name: str, benchmark: str, interim: Path = INTERIM_DIR, processed: Path = J1_DIR
) -> Estimate:
    """The most agent calls a dialogue benchmark can make: units × the agent's turn cap."""
    agent = params.agent(name)
    limit = params.limit_for(name, benchmark)
    if benchmark == "ucl":
        items = pd.read_parquet(interim / "ucl.parquet", columns=["task"])
        units = int(items.groupby("task").size().clip(upper=limit or 10**9).sum())
        from steps.ucl.params import UclParams

        cap, stage, what = params.section(UclParams).exchanges(), f"ucl_simulate@{name}", "items"
    elif benchmark == "mile":
        from steps.mile.params import MileParams

        mile = params.section(MileParams)
        units = min(x for x in (mile.sample or 693, limit or 10**9))
        cap, stage, what = mile.max_turns + 1, f"mile_simulate@{name}", "dialogues (turns + complaint)"
    else:
        from steps.j1.params import J1Params
        from steps.scenarios.registry import SCENARIOS, instance_sizes

        j1 = params.section(J1Params)

        built = processed / "instances.parquet"  # the j1_instances stage's output, else the configured sizes
        sizes = (
            pd.read_parquet(built, columns=["scenario"]).scenario.value_counts().to_dict()
            if built.is_file()
            else {s: n or 0 for s, n in instance_sizes(j1.instances.sizes).items()}
        )
        caps = {s: j1.simulate.max_turns.get(s, SCENARIOS[s].ending.max_turns) for s in j1.simulate.scenarios}
        per = {s: (min(int(sizes.get(s, 0)), limit or 10**9), cap) for s, cap in caps.items()}
        calls = sum(n * c for n, c in per.values())
        detail = ", ".join(f"{s} {n}×{c}" for s, (n, c) in per.items())
        return Estimate(
            f"j1_simulate@{name}", name, agent.model, calls, None, None, None, f"≤ instances × turn cap ({detail})"
        )
    return Estimate(stage, name, agent.model, units * cap, None, None, None, f"≤ {cap} calls × {units} {what}")


def render(rows: list[Estimate]) -> list[list[str]]:
    """The rows `jurisflow estimate` prints: stage, agent, calls, input tokens, output bound, cost bound, note;
    then a total over what was estimated (calls of every row; tokens and cost of the rows that have them)."""

    def num(v: int | None) -> str:
        return "-" if v is None else f"{v:,}"

    out = [
        [
            r.stage,
            r.agent,
            num(r.calls),
            num(r.input_tokens),
            num(r.output_tokens),
            "-" if r.cost_usd is None else f"${r.cost_usd:,.4f}",
            r.note,
        ]
        for r in rows
    ]
    costs = [r.cost_usd for r in rows if r.cost_usd is not None]
    out.append(
        [
            "total",
            "",
            num(sum(r.calls for r in rows)),
            num(sum(r.input_tokens or 0 for r in rows)),
            num(sum(r.output_tokens or 0 for r in rows)),
            f"${sum(costs):,.4f}" if costs else "-",
            "priced rows only" if len(costs) < len(rows) else "",
        ]
    )
    return out
