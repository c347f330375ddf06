"""The table of stages is dvc.yaml: every stage, the flow module its `cmd` runs, the arguments it passes, and
the benchmark whose agents a per-agent stage iterates. The `jurisflow` stage commands and `jurisflow eval`'s
targets are made from it, so a new stage needs neither a CLI edit nor an eval edit.

Read without importing any flow (no Prefect): the flow function's docstring and required parameters come from
its module's source (`ast`). Convention (tests/cli/test_stage_commands.py checks it): stage `x` runs
`python -m flows.x [ARGS]`, flows/x.py defines the flow `x()`, and its parameters without a default are the ARGS
in order (an agent's name, LawBench's setting).
"""

from __future__ import annotations

import ast
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


def _flow_signature(module_file: Path, name: str) -> tuple[list[str], str]:
    """The required parameters (no default) of `def name(...)` in a module, and the first paragraph of its
    docstring (or of the module's)."""
    tree = ast.parse(module_file.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            positional = [*node.args.posonlyargs, *node.args.args]
            required = [a.arg for a in positional[: len(positional) - len(node.args.defaults)]]
            required += [a.arg for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True) if d is None]
            doc = (ast.get_docstring(node) or ast.get_docstring(tree) or "").split("\n\n")[0]
            return required, " ".join(doc.split())
    raise ValueError(f"{module_file}: no flow function `{name}` (stage `{name}` runs flows/{name}.py: `{name}()`)")


@cache
def stage_table(dvc_file: Path = DVC_FILE) -> dict[str, Stage]:
    """Every stage of dvc.yaml, in its order."""
    stages = yaml_text.load(dvc_file.read_text(encoding="utf-8"))
    out = {}
    for name, stage in stages["stages"].items():
        words = str(stage["cmd"]).split()
        if words[:2] != ["python", "-m"] or words[2] != f"flows.{name}":
            raise ValueError(f"{dvc_file}: stage '{name}' must run `python -m flows.{name}`, not `{stage['cmd']}`")
        keys = []
        for word in words[3:]:
            match = _ARGUMENT.match(word)
            if match is None:
                raise ValueError(f"{dvc_file}: stage '{name}': arguments are matrix items (${{item.key}}): {word}")
            keys.append(match.group(1))
        parameters, doc = _flow_signature(dvc_file.parent / "flows" / f"{name}.py", name)
        if len(parameters) != len(keys):
            raise ValueError(
                f"{dvc_file}: stage '{name}' passes {len(keys)} argument(s), flows/{name}.py: {name}() requires "
                f"{len(parameters)} ({', '.join(parameters) or 'none'})"
            )
        matrix = stage.get("matrix") or {}
        benchmark = None
        if isinstance(matrix.get("agent"), str):
            runs = re.fullmatch(r"\$\{runs\.(\w+)\}", matrix["agent"])
            benchmark = runs.group(1) if runs else None
        arguments = tuple(
            Argument(p, k, tuple(map(str, matrix[k])) if isinstance(matrix.get(k), list) else ())
            for p, k in zip(parameters, keys, strict=True)
        )
        out[name] = Stage(name, f"flows.{name}", arguments, benchmark, doc)
    return out


def benchmark_targets(benchmark: str, agent: str, dvc_file: Path = DVC_FILE) -> list[str]:
    """The DVC targets that evaluate one agent on a benchmark: its per-agent stages (every setting) and the
    benchmark's report stage, `<benchmark>_report` (`jurisflow eval` plans the stages it runs from these)."""
    table = stage_table(dvc_file)
    out = [t for s in table.values() if s.benchmark == benchmark for t in s.targets(agent)]
    return out + ([f"{benchmark}_report"] if f"{benchmark}_report" in table else [])
