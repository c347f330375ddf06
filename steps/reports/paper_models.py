"""The model lists of the papers whose tables the reports reproduce, and an agent's `paper_model` resolved in each.

`agents.<name>.paper_model` in params.yaml names the paper model an agent corresponds to, whatever the agent is
called: a string (e.g. `GPT-4o`, matched in every paper ignoring case and punctuation, with each paper's other
spellings) or a mapping per benchmark (`{j1: GPT-4o, plawbench: GPT-4o-20240806}`). LawBench's list is its
`results.csv` (data, read by the report stage), so it is checked there; the four others are checked when
params.yaml is loaded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from steps.reports.labels import BENCHMARKS, name_key, paper_model_name


def paper_names(benchmark: str) -> dict[str, tuple[str, ...]]:
    """Paper model -> its other spellings, for the benchmarks whose model list is in the code."""
    if benchmark == "j1":
        from steps.j1eval.paper import ALIASES, models

        return {m: ALIASES.get(m, ()) for m in models()}
    if benchmark == "mile":
        from steps.mile.published import ALIASES, paper_long

        return {m: ALIASES.get(m, ()) for m in dict.fromkeys(paper_long().query("table == 'goal'").model)}
    if benchmark == "ucl":
        from steps.ucl.paper import paper_models

        return {p.name: tuple(p.keys) for p in paper_models()}
    if benchmark == "plawbench":
        from steps.plawbench.paper import table3

        return {m: () for m in table3().model}
    raise ValueError(f"no model list in the code for benchmark '{benchmark}'")


CHECKED = ("j1", "mile", "ucl", "plawbench")


def check_paper_model(paper_model: str | Mapping[str, str]) -> None:
    """A ValueError unless `paper_model` names a model of some paper (a string) or of each benchmark named."""
    if isinstance(paper_model, Mapping):
        for benchmark in paper_model:
            if benchmark not in BENCHMARKS:
                raise ValueError(f"paper_model: unknown benchmark '{benchmark}' (one of {', '.join(BENCHMARKS)})")
            if benchmark in CHECKED:
                paper_model_name(paper_model, benchmark, paper_names(benchmark))
        return
    if not any(paper_model_name(paper_model, b, paper_names(b)) for b in CHECKED):
        known = "; ".join(f"{b}: {', '.join(paper_names(b))}" for b in CHECKED)
        raise ValueError(
            f"paper_model: '{paper_model}' is a model of no paper ({known}; or LawBench's "
            "results.csv, named per benchmark as {lawbench: NAME})"
        )


def match_paper_model(
    agent: str,
    model: str | None,
    names: Mapping[str, Iterable[str]],
    explicit: Mapping[str, str] | None = None,
    section: str = "paper_names",
) -> str | None:
    """The paper model an agent corresponds to when `agents.<name>.paper_model` names none: `explicit[agent]` (the
    benchmark's own map, the params `section` `j1eval.paper_names` or `plawbench.paper_names`; it must name a paper
    model), else the paper model whose name or other spelling equals the agent's name, else its model string's last
    part, ignoring case and punctuation (`gpt4o` and `openai/gpt-4o-2024-11-20` both find GPT-4o)."""
    if explicit and agent in explicit:
        if explicit[agent] not in names:
            known = ", ".join(names)
            raise ValueError(f"{section}.{agent}: '{explicit[agent]}' is not a model of the paper ({known})")
        return explicit[agent]
    keys: dict[str, str] = {}
    for paper, spellings in names.items():
        for spelling in (paper, *spellings):
            keys.setdefault(name_key(spelling), paper)
    found = keys.get(name_key(agent))
    if found is None and model:
        found = keys.get(name_key(model.rsplit("/", 1)[-1]))
    return found
