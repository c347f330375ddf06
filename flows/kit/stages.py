"""The table of stages as the `jurisflow` commands and `jurisflow eval` read it: dvc.yaml, which `jurisflow stages
write` generates from the stage declarations (steps/stages.py; a test keeps it fresh). Reading the file rather than
the declarations keeps `jurisflow --help` from importing every benchmark: each stage's `cmd` is
`python -m flows.run <stage> [${item.agent}] [${item.setting}]`, its `desc` the declaration's help, its `matrix` the
agents (`${runs.<benchmark>}`) and settings it iterates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from flows.kit import yaml_text

ROOT = Path(__file__).resolve().parents[2]
DVC_FILE = ROOT / "dvc.yaml"
_ARGUMENT = re.compile(r"^\$\{item\.(\w+)\}$")


@dataclass(frozen=True)
class Argument:
    """A command-line argument of a stage: the flow parameter it sets and, when dvc.yaml's matrix lists them, the
    values it takes (LawBench's settings; the agents come from params.yaml)."""

    parameter: str
    matrix_key: str
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Stage:
    name: str
    module: str
    arguments: tuple[Argument, ...]
    benchmark: str | None  # the `runs.<benchmark>` a per-agent stage iterates; None for the others
    help: str

    @property
    def per_agent(self) -> bool:
        return self.benchmark is not None

    def target(self, agent: str, **values: str) -> str:
        """The DVC name of this stage for one agent (and one value of each other matrix key), e.g.
        `lawbench_predict@oracle-zero_shot`; the stage's own name when it is not per agent."""
        if not self.per_agent:
            return self.name
        keys = [a.matrix_key for a in self.arguments]
        return f"{self.name}@" + "-".join(agent if k == "agent" else values[k] for k in keys)

    def targets(self, agent: str) -> list[str]:
        """Every DVC name of this stage for one agent (each value of the other matrix keys)."""
        if not self.per_agent:
            return [self.name]
        others = [a for a in self.arguments if a.matrix_key != "agent"]
        combos: list[dict[str, str]] = [{}]
        for a in others:
            combos = [{**c, a.matrix_key: v} for c in combos for v in a.choices]
        return [self.target(agent, **c) for c in combos]


_WHERE = re.compile(r"\s*\[[^\]]*→[^\]]*\]$")  # the declaration's place, at the end of a desc


@cache
def stage_table(dvc_file: Path = DVC_FILE) -> dict[str, Stage]:
    """Every stage of dvc.yaml, in its order."""
    stages = yaml_text.load(dvc_file.read_text(encoding="utf-8"))
    out = {}
    for name, stage in stages["stages"].items():
        words = str(stage["cmd"]).split()
        if words[:4] != ["python", "-m", "flows.run", name]:
            raise ValueError(f"{dvc_file}: stage '{name}' must run `python -m flows.run {name}`, not `{stage['cmd']}`")
        keys = []
        for word in words[4:]:
            match = _ARGUMENT.match(word)
            if match is None:
                raise ValueError(f"{dvc_file}: stage '{name}': arguments are matrix items (${{item.key}}): {word}")
            keys.append(match.group(1))
        matrix = stage.get("matrix") or {}
        benchmark = None
        if isinstance(matrix.get("agent"), str):
            runs = re.fullmatch(r"\$\{runs\.(\w+)\}", matrix["agent"])
            benchmark = runs.group(1) if runs else None
        arguments = tuple(
            Argument(
                "agent_name" if k == "agent" else k,
                k,
                tuple(map(str, matrix[k])) if isinstance(matrix.get(k), list) else (),
            )
            for k in keys
        )
        help_text = _WHERE.sub("", str(stage.get("desc", "")))
        out[name] = Stage(name, "flows.run", arguments, benchmark, help_text)
    return out


def benchmark_targets(benchmark: str, agent: str, dvc_file: Path = DVC_FILE) -> list[str]:
    """The DVC targets that evaluate one agent on a benchmark: its per-agent stages (every setting) and the
    benchmark's report stage, `<benchmark>_report` (`jurisflow eval` plans the stages it runs from these)."""
    table = stage_table(dvc_file)
    out = [t for s in table.values() if s.benchmark == benchmark for t in s.targets(agent)]
    return out + ([f"{benchmark}_report"] if f"{benchmark}_report" in table else [])
