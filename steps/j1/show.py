"""J1's dialogue as `jurisflow show` prints it (its registration's `show`): every turn with its index, court stage,
speaker → addressee, text and the model call behind it, under a header naming the court failure causes (read from
the turns as the judge stage reads them), then the deliverable. Lines of rich markup; the CLI prints them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from rich.markup import escape

from steps.j1.envs.catalog import SCENARIOS
from steps.j1.eval.failures import causes_of_rows
from steps.paths import DIALOGUES, TURNS
from steps.simulate.transcript import lines


def dialogue_lines(folder: Path, iid: str, usage: dict[str, dict[str, Any]]) -> list[str]:
    """The dialogue `iid` of the run in `folder`; `usage`: the usage log's rows by call key (tokens, latency)."""
    deliverables = pd.read_parquet(folder / DIALOGUES)
    d = deliverables[deliverables.instance_id == iid].iloc[0].to_dict()
    turns = pd.read_parquet(folder / TURNS)
    turns = turns[turns.instance_id == iid].sort_values("turn_index").to_dict("records")
    labels = {t["speaker"]: t["speaker_label"] for t in turns}  # every role that is addressed also speaks
    scenario = SCENARIOS.get(d["scenario"])
    causes = (", ".join(causes_of_rows(turns, scenario)) if scenario else "") or "none"
    out = [
        f"[bold]{escape(iid)}[/]  agent [cyan]{d['agent']}[/], run {d['run_id']}: ended by "
        f"[bold]{d['ended_by']}[/] after {d['exchanges']} exchanges; failure causes: {causes}"
    ]
    for line in lines(turns, labels, usage):
        to = f" → {escape(line.addressee)}" if line.addressee else ""
        stage = f"[magenta]{escape(line.stage)}[/] " if line.stage else ""
        kind = "" if line.kind == "utterance" else f" [yellow]({line.kind})[/]"
        out.append(f"[dim]{line.turn_index:>3}[/] {stage}[bold]{escape(line.speaker)}{to}[/]{kind}")
        if line.text and line.kind != "check":
            out.append("      " + escape(line.text).replace("\n", "\n      "))
        if line.note:
            out.append(f"      [dim]{escape(line.note)}[/]")
    text = d["deliverable"] if isinstance(d["deliverable"], str) else "(none)"
    title = f"deliverable: {d['deliverable_kind']}" + (" (asked for after the turn cap)" if d["forced"] else "")
    out += [f"[bold]── {escape(title)} ──[/]", escape(text)]
    return out
