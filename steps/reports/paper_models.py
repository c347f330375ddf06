"""An agent's paper model when `agents.<name>.paper_model` names none: matched by name in a paper's model list.

`agents.<name>.paper_model` in params.yaml names the paper model an agent corresponds to, whatever the agent is
called: a string (e.g. `GPT-4o`, matched in every paper ignoring case and punctuation, with each paper's other
spellings) or a mapping per benchmark (`{j1: GPT-4o, plawbench: GPT-4o-20240806}`). Each paper's list is named in
its benchmark's registration (`paper_names`, e.g. `steps.ucl.paper:paper_names`) and `jurisflow params check`
checks the names against them (`steps.benchmarks.check_paper_model`); LawBench's list is its `results.csv` (data,
read by the report stage), so it is checked there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from steps.reports.labels import name_key


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
