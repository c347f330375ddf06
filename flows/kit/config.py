"""`params.yaml` read and validated once, here, into the frozen pydantic models of `steps.params` (`Params`, one
section per benchmark); every problem is one line naming the file, the key and the rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from flows.kit import yaml_text
from steps.params import (
    BENCHMARKS,
    SECTIONS,
    AgentEntry,
    Params,
    SourcesParams,
    benchmark_sections,
    check_benchmarks,
    runs_of,
    smaller,
)

__all__ = [
    "BENCHMARKS",
    "MANIFEST_FILE",
    "PARAMS_FILE",
    "SECTIONS",
    "AgentEntry",
    "Params",
    "ParamsError",
    "SourcesParams",
    "benchmark_sections",
    "check_benchmarks",
    "load_params",
    "read_params_data",
    "runs_of",
    "smaller",
    "summary",
]

PARAMS_FILE = Path("params.yaml")
MANIFEST_FILE = Path("sources.yaml")


class ParamsError(ValueError):
    """params.yaml is missing, is not YAML, or breaks a rule; the message is one line naming file, key and rule."""


def load_params(path: Path = PARAMS_FILE, text: str | None = None) -> Params:
    """Read and validate the parameters file (defaults apply to absent sections, never to an absent or empty file);
    `text`: the file's contents as they would be written, validated without reading or writing a file.

    Any problem raises a ParamsError of one line naming the file and, per problem, the key path and the rule
    (e.g. `params.yaml: agents.foo.concurrency: Input should be greater than or equal to 1`)."""
    data = read_params_data(path, text)
    try:
        return Params.model_validate(data)
    except ValidationError as err:
        problems = [_problem(e) for e in err.errors()]
        raise ParamsError(f"{path}: " + "; ".join(problems)) from None


def read_params_data(path: Path = PARAMS_FILE, text: str | None = None) -> dict[str, Any]:
    """The parameters file (or `text`, named `path`) as a mapping of sections, before validation: a ParamsError of
    one line when it is missing, not UTF-8, not YAML, holds a key twice in one mapping (with its line), or holds no
    section at all (an empty file would silently run the scripted defaults)."""
    if text is None and not path.is_file():
        raise ParamsError(
            f"{path}: parameters file not found (every stage needs one; see docs/evaluate.md#the-agents-entry)"
        )
    try:
        source = path.read_text(encoding="utf-8") if text is None else text
        try:  # libyaml's parser; on an error, the pure-Python one's words and positions
            data = yaml_text.load(source, unique_keys=True)
        except yaml_text.DuplicateKeyError:
            raise
        except yaml.YAMLError:
            data = yaml_text.load(source, unique_keys=True, pure=True)
    except yaml_text.DuplicateKeyError as err:
        mark = err.problem_mark
        assert mark is not None
        raise ParamsError(
            f"{path}: line {mark.line + 1}: duplicate key {err.key_path(source)} (first at line {err.first_line}; YAML "
            "would silently keep the last, so one of the two settings is ignored)"
        ) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise ParamsError(f"{path}:{where}: not valid YAML: {problem}") from None
    except UnicodeDecodeError as err:
        raise ParamsError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    if data is not None and not isinstance(data, dict):
        raise ParamsError(f"{path}: the top level must be a mapping of sections, got {type(data).__name__}")
    if not data:
        raise ParamsError(
            f"{path}: empty (no section at all): refusing to run every stage on the built-in scripted defaults; "
            "write the sections you mean (see docs/evaluate.md#the-agents-entry)"
        )
    return data


def _problem(error: Any) -> str:
    """One pydantic error as `key.path: rule`."""
    where = ".".join(str(part) for part in error["loc"] if not str(part).startswith("function-"))
    message = " ".join(error["msg"].removeprefix("Value error, ").split())
    return f"{where}: {message}" if where else message


def summary(params: Params) -> str:
    """A short description of loaded parameters for `jurisflow params check`."""
    agents = ", ".join(f"{name} ({entry.model}{_scope(entry)})" for name, entry in params.agents.items()) or "none"
    llm = params.llm
    return (
        f"agents: {agents}; environment: {params.environment.model}; judge: {params.judge.model}; "
        f"llm: concurrency {llm.concurrency}, timeout {llm.timeout_s:g} s, {llm.max_attempts} attempts, "
        f"retry budget {llm.retry_budget_s:g} s"
    )


def _scope(entry: AgentEntry) -> str:
    """`; lawbench, ucl; limit 3` when an agent does not run everything or is capped (for the summary)."""
    parts = [] if set(entry.benchmarks) == set(BENCHMARKS) else [", ".join(entry.benchmarks) or "no benchmark"]
    parts += [] if entry.limit is None else [f"limit {entry.limit}"]
    return "".join(f"; {p}" for p in parts)
