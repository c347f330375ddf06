"""Honest row labels shared by every output: scripted stand-ins, limited runs, and the paper model an agent is.

One rule labels an agent's numbers wherever they are shown (`jurisflow eval`'s summary, `jurisflow results`, the
Markdown reports, the HTML report): `agent_label`, fed per (table, agent) of a benchmark's long rows (its CSV
twin) by `stand_ins` and `twin_limits`.

- `[scripted]`: a scripted stand-in (a `scripted/*` model) touched the agent's numbers in that table: the agent
  itself, or a role (environment, judge, the reference model) that those numbers use. Each benchmark sets this per
  number, as the twin's `proxy` column (LawBench's rule-scored numbers use no role: only a scripted agent marks
  them; a J1 metric scored by the proxy judge is marked, a rule-scored one is marked only when a scripted
  environment played the dialogue).
- `[limit N]`: the agent's run sent only the first N items (its `run.json` records `limit`; the twin's `limit`
  column), so its row is never read as a full-size result; each report also shows the `n` a row averages.
- `[paper protocol]` or `[<the deviations>]`: how the run's protocol differs from the paper's (steps/protocol.py:
  the role models and decoding, the protocol-relevant settings, the data size, caveats; its run.json records it,
  the twin's `protocol` column carries it), e.g. `[judge scripted/judge, paper GPT-4 (gpt-4-0613); 230 of 1,100
  items]`. The leaderboard of `jurisflow results` (one row per agent across benchmarks) names it per benchmark
  under the table instead (`twin_protocols`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

OURS = "ours"


def agent_label(name: str, scripted: bool = False, limit: int | None = None, protocol: str | None = None) -> str:
    """`name`, then `[scripted]` when a stand-in touched the numbers, `[limit N]` for a run limited to N items and
    the protocol label (`[paper protocol]`, or `[<deviations>]`) when it is known."""
    return (
        name
        + (" [scripted]" if scripted else "")
        + (f" [limit {limit}]" if limit is not None else "")
        + (f" [{protocol}]" if protocol else "")
    )


def _ours(rows: pd.DataFrame) -> pd.DataFrame:
    """Our rows that name an agent (a twin's data rows name none)."""
    agent = rows.agent.astype("string")
    return rows[(rows.source == OURS) & agent.notna() & (agent != "")]


def stand_ins(rows: pd.DataFrame) -> dict[tuple[str, str], bool]:
    """(table, agent) -> whether a scripted stand-in touched any of the agent's numbers in that table: any `proxy`
    of its rows among `rows` (long rows with `table`, `agent`, `proxy`, `source`: a CSV twin or the frame a report
    writes into it)."""
    ours = _ours(rows)
    touched = ours.proxy.fillna(False).astype(bool).groupby([ours["table"], ours.agent.astype(str)]).any()
    return {(str(t), str(a)): bool(v) for (t, a), v in touched.items()}


def _per_agent(rows: pd.DataFrame, column: str, pick: Callable[[pd.Series], Any]) -> dict[str, Any]:
    """agent -> `pick` of the known values of `column` in its own rows of one benchmark's long rows (None: no
    value, or a twin written before it had the column)."""
    ours = _ours(rows)
    if column not in ours:
        return dict.fromkeys(ours.agent.astype(str))
    out: dict[str, Any] = {}
    for agent, values in ours.groupby(ours.agent.astype(str))[column]:
        known = values.dropna()
        out[str(agent)] = pick(known) if len(known) else None
    return out


def twin_limits(rows: pd.DataFrame) -> dict[str, int | None]:
    """agent -> the item limit its run had (the largest in its rows' `limit`; None: a full run)."""
    return _per_agent(rows, "limit", lambda known: int(known.max()))


def twin_protocols(rows: pd.DataFrame) -> dict[str, str | None]:
    """agent -> its run's protocol label (the first non-empty `protocol` of its rows)."""
    return _per_agent(rows, "protocol", lambda known: next((str(v) for v in known if str(v)), None))


def twin_labels(rows: pd.DataFrame, protocol: bool = True) -> dict[tuple[str, str], str]:
    """(table, agent) -> the agent's label in that table of one benchmark's long rows (`agent_label`); without
    `protocol`, the label leaves the protocol out (a table that names it elsewhere, as the leaderboard does)."""
    limits, protocols = twin_limits(rows), (twin_protocols(rows) if protocol else {})
    return {
        (t, a): agent_label(a, scripted, limits.get(a), protocols.get(a))
        for (t, a), scripted in stand_ins(rows).items()
    }


def size_phrase(sizes: Iterable[int], unit: str) -> str:
    """What a header may say about the rows' sizes: one number when every row has it, else the range."""
    values = sorted({int(s) for s in sizes})
    tail = f" {unit}" if unit else ""
    if not values:
        return f"none{tail}"
    if len(values) == 1:
        return f"{values[0]:,}{tail}"
    return f"{values[0]:,}–{values[-1]:,}{tail} (each row's `n`)"


def name_key(name: str) -> str:
    """A model name for matching: lower case, letters and digits only (`GPT-4o` and `gpt4o` are one key)."""
    return re.sub(r"[^0-9a-z]", "", name.lower())


def paper_model_name(
    paper_model: str | Mapping[str, str] | None, benchmark: str, names: Mapping[str, Iterable[str]]
) -> str | None:
    """The paper's name for an agent's `paper_model` in one benchmark's paper, or None when that paper has no such
    model. `names` maps each paper model to its other spellings; a mapping `paper_model` names one model per
    benchmark and must match it (a ValueError says which names the paper has)."""
    if paper_model is None:
        return None
    wanted = paper_model.get(benchmark) if isinstance(paper_model, Mapping) else paper_model
    if wanted is None:
        return None
    keys = {name_key(s): model for model, spellings in names.items() for s in (model, *spellings)}
    found = keys.get(name_key(wanted))
    if found is None and isinstance(paper_model, Mapping):
        raise ValueError(
            f"paper_model.{benchmark}: '{wanted}' is not a model of the {benchmark} paper ({', '.join(names)})"
        )
    return found


def agent_paper_model(
    name: str, paper_model: str | Mapping[str, str] | None, benchmark: str, names: Mapping[str, Iterable[str]]
) -> str | None:
    """`paper_model_name` of agent `name`'s `paper_model` (its entry in params.yaml); an error names the key."""
    try:
        return paper_model_name(paper_model, benchmark, names)
    except ValueError as err:
        raise ValueError(f"agents.{name}.{err}") from None
