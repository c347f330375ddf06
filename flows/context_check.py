"""The context check of `jurisflow estimate`, `eval` (and its `--dry-run`) and `models check`: ask each server the
estimate's requests go to for its context size (steps/llm/vllm.py: `server_limits`, one GET per server and model),
then name every item whose longest request would need more (steps/llm/context.py). Nothing is sent to a model."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from flows.kit.config import Params
    from steps.llm import ModelConfig
    from steps.llm.context import Overflow
    from steps.llm.standin import Sent
    from steps.llm.vllm import ServerLimits

SHOWN = 20  # items listed; the rest are counted per stage


class Servers:
    """What each (api_base, model) reports of its context (`server_limits`: one GET per server and model), asked
    once each."""

    def __init__(self, probe: Callable[[str, str | None], ServerLimits] | None = None):
        from steps.llm.vllm import server_limits

        self.probe = probe or server_limits
        self.found: dict[tuple[str, str], ServerLimits] = {}

    def __call__(self, api_base: str, model: str) -> ServerLimits:
        if (api_base, model) not in self.found:
            self.found[(api_base, model)] = self.probe(api_base, model.split("/", 1)[-1])
        return self.found[(api_base, model)]

    def ask(self, models: Iterable[ModelConfig]) -> bool:
        """Ask the servers of `models` (the first replica of each); whether one reports its context."""
        for m in models:
            bases = m.replicas or ([m.api_base] if isinstance(m.api_base, str) else [])
            if bases:
                self(bases[0], m.model)
        return any(limits.context for limits in self.found.values())


def check_before_run(
    params: Params,
    agents: list[str],
    benchmarks: list[str] | None,
    say: Callable[[str], None],
    servers: Servers | None = None,
    params_file: Path | None = None,
) -> list[Overflow]:
    """The check before a run of `agents` on `benchmarks` (None: all): ask the servers of the agents and the shared
    roles for their contexts and, when one reports its context, run the estimate (flows/estimate.py: once, with the
    real-model-like agent whose replies run as long as a real model's, and the calibrated token counts `models check`
    saved; with `params_file`, without the shared stages DVC finds up to date) and say the items that would overflow;
    the overflowing items. Says in one line why when it cannot check."""
    from flows.estimate import estimate, load_calibrations, targets, up_to_date
    from steps.llm.standin import REAL_LIKE

    servers = servers or Servers()
    models = [params.agent(a) for a in agents] + params.role_models(benchmarks)
    if not servers.ask(models):
        asked = "; ".join(f"{m} at {b}: {limits.describe()}" for (b, m), limits in servers.found.items())
        say(f"context check: no server reports its context size ({asked or 'no model has an api_base'})")
        return []
    try:
        fixed = up_to_date(params_file, targets(params, agents, benchmarks)) if params_file else []
        calibrations = load_calibrations()
        report = estimate(
            params, agents, benchmarks, stand_ins=dict(REAL_LIKE), calibrations=calibrations, up_to_date=fixed
        )
    except FileNotFoundError as err:
        say(
            f"context check skipped: {err} (the estimate reads what the stages before the first model call write: "
            "run `dvc repro` of those first, or `jurisflow eval --dry-run` once they ran)"
        )
        return []
    lines, found = context_lines(report.sent, servers)
    for line in lines:
        say(line)
    return found


def context_lines(sent: list[Sent], servers: Servers | None = None) -> tuple[list[str], list[Overflow]]:
    """The lines of the check, and the overflowing items: each server's context as reported, the items whose
    longest request needs more (stage, item, prompt tokens + max_tokens vs context), the dialogue requests that
    would need more were the model's earlier replies as long as max_tokens allows, and what to change."""
    from steps.llm.context import APPROXIMATE, may_overflow, overflows
    from steps.llm.errors import address
    from steps.llm.results import CONTEXT_REMEDY

    servers = servers or Servers()
    asked = {(s.api_base, s.model): servers(s.api_base, s.model) for s in sent if s.api_base}
    if not asked:
        return ["context check: no request goes to a server of its own (api_base), so none reports a context"], []
    lines = [f"context check, before any call ({APPROXIMATE}):"]
    for (base, model), limits in asked.items():
        said = f"context {limits.context:,} tokens" if limits.context else "reports no context size: not checked"
        lines.append(f"  {model} at {address(base)}: {said} ({limits.source})")

    def context_of(base: str, model: str) -> int | None:
        return servers(base, model).context

    found = overflows(sent, context_of)
    if not any(limits.context for limits in asked.values()):
        return lines, found
    if found:
        lines.append(
            f"  {len(found)} items would overflow (prompt + max_tokens > context: vLLM refuses such a request, "
            "llama.cpp a prompt that fills its context and cuts a reply at its end):"
        )
        lines += [f"    {o.line()}" for o in found[:SHOWN]]
        rest = Counter(o.stage for o in found[SHOWN:])
        if rest:
            lines.append("    … and " + ", ".join(f"{n} more of {stage}" for stage, n in rest.items()))
    else:
        lines.append("  no item would overflow")
    for stage, n in may_overflow(sent, context_of).items():
        lines.append(
            f"  {stage}: {n} more dialogue requests would overflow if the model's earlier replies ran to max_tokens"
        )
    if found:
        lines.append(
            "  an agent whose dialogue overflows ends it context_exceeded (the model's limit, not a failure); any "
            f"other request that overflows is a failed call. To fit them, give {CONTEXT_REMEDY}"
        )
    return lines, found
