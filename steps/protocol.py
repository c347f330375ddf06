"""Paper protocols: which model plays each role of a benchmark, how it decodes, and how a run differs from the
paper's own setting.

A benchmark's section of params.yaml (`BenchmarkSection`) may name its own roles (`environment`, `judge`, and any
role its package adds, such as a reference model), each a `RoleEntry` merged field by field over the model it
replaces, and `protocol: paper`, which puts the paper's role models and decoding (`PaperProtocol`, declared in the
benchmark's own package as its section's `PAPER`) in place of the global `environment` and `judge` entries. The
order, for one role: the benchmark's own entry over the paper's role (under `protocol: paper`) over the global
entry (`resolve_role`).

Every run records its protocol (`ProtocolRecord.as_dict` in run.json: role models and decoding, each with the
paper's, the prompt source and a sha256 of every prompt template, the data size, the protocol-relevant settings)
and every number carries its label (`ProtocolRecord.label`): `paper protocol`, or the deviations, e.g.
`judge scripted/judge, paper <the paper's model>; 230 of 1,100 items`. A benchmark adds protocol-relevant
settings (`PaperProtocol.settings`: a key of its section, its paper value and the spec section) and caveats that
no setting can remove (`PaperProtocol.caveats`); the kernel never names a benchmark.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BeforeValidator, Discriminator, Field, Tag, field_validator

from steps.llm.config import (
    ApiBase,
    ApiKeyEnv,
    Decoding,
    ModelConfig,
    ModelEntry,
    ModelString,
    StructuredOutput,
    _Frozen,
)
from steps.llm.secrets import missing_keys

if TYPE_CHECKING:
    from steps.params import Params

PAPER_PROTOCOL = "paper protocol"
ProtocolName = Literal["ours", "paper"]
DECODING_FIELDS = ("temperature", "top_p", "max_tokens")  # what a label compares (a seed does not change a paper)
_STEPS = Path(__file__).resolve().parent


@dataclass(frozen=True)
class PaperRole:
    """One role as the paper ran it: the litellm model string of the snapshot it names, the paper's name for it,
    the decoding it reports (what it leaves unsaid: greedy) and the spec section saying so."""

    model: str
    paper: str
    source: str
    decoding: Decoding = field(default_factory=Decoding)

    def entry(self) -> ModelEntry:
        return ModelEntry(model=self.model, decoding=self.decoding)


@dataclass(frozen=True)
class PaperSetting:
    """A protocol-relevant key of the benchmark's section (a dotted path), its value in the paper, the words a
    label uses when a run's value differs (`{value}` is the run's, `{paper}` the paper's) and its spec section."""

    key: str
    value: Any
    source: str
    text: str = "{key} {value}, paper {paper}"
    show: Callable[[Any], str] | None = None  # how `{value}` reads in a label (None: as it is)
    caps: str | None = None  # the agent's decoding field this setting caps (its deviation is named once, here)


@dataclass(frozen=True)
class PaperProtocol:
    """A benchmark's paper protocol: its roles, its protocol-relevant settings, the size of the paper's data
    (`size` units of `unit`), caveats that always hold (e.g. instances rebuilt from public data), the prompt
    source of our runs and the template folders (relative to steps/) whose files are its prompts. A paper that
    decoded the models it evaluated its own way names it in `agent_decoding` (a litellm model string → the paper's
    decoding for it; `agent_source` its spec section): a run then compares its agent's decoding with it."""

    roles: Mapping[str, PaperRole] = field(default_factory=dict)
    settings: tuple[PaperSetting, ...] = ()
    size: int | None = None
    unit: str = "items"
    caveats: tuple[str, ...] = ()
    prompts: str = "ours"
    templates: tuple[str, ...] = ()
    agent_decoding: Callable[[str], Decoding] | None = None
    agent_source: str = ""


class RoleEntry(_Frozen):
    """A benchmark's own entry for one role: every field optional, each replacing that field of the model it
    overrides (the paper's role under `protocol: paper`, else the global entry); `decoding` merges field by field."""

    model: ModelString | None = None
    api_base: ApiBase = None
    api_key_env: ApiKeyEnv = None
    decoding: dict[str, Any] = Field(default_factory=dict)
    concurrency: int | None = Field(default=None, ge=1)
    timeout_s: float | None = Field(default=None, gt=0)
    structured_output: StructuredOutput | None = None

    @field_validator("decoding")
    @classmethod
    def _decoding_fields(cls, value: dict[str, Any]) -> dict[str, Any]:
        Decoding.model_validate(value)  # an unknown field or a wrong type is refused here, at load
        return value

    def over(self, base: ModelEntry) -> ModelEntry:
        """`base` with the fields this entry sets replaced (`decoding` field by field)."""
        given = self.model_dump(include=self.model_fields_set - {"decoding"})
        decoding = Decoding.model_validate({**base.decoding.model_dump(), **self.decoding})
        return base.model_copy(update={**given, "decoding": decoding})


Aggregation = Literal["majority", "mean"]


class JudgePanel(_Frozen):
    """A panel of judges for one benchmark: `judge: [a, b, c]` (each member a model string or a role entry, merged
    over the model it replaces as a single judge is), or `judge: {panel: [...], aggregate: majority|mean}`. Every
    member judges every row; each member's rows are kept and their aggregate feeds the scores (`aggregate`
    None: the judged table's default, majority for pairwise verdicts, the mean for scores; steps/judges/panel.py)."""

    panel: list[RoleEntry]
    aggregate: Aggregation | None = None

    @field_validator("panel", mode="before")
    @classmethod
    def _members(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"model": m} if isinstance(m, str) else m for m in value]
        return value

    @field_validator("panel")
    @classmethod
    def _distinct(cls, value: list[RoleEntry]) -> list[RoleEntry]:
        if not value:
            raise ValueError("an empty panel; name one judge or more")
        unnamed = [i for i, m in enumerate(value) if m.model is None]
        if unnamed:
            raise ValueError(f"panel member {unnamed[0]} names no model (each member is told apart by its model)")
        models = [str(m.model) for m in value]
        repeated = sorted({m for m in models if models.count(m) > 1})
        if repeated:
            raise ValueError(f"panel member {repeated[0]} is listed twice; each judge once")
        return value


# the union's tags appear in an error's key path: named `function-…`, which the one-line errors leave out
# (flows/kit/config.py), so an error reads `<benchmark>.judge.decoding` or `<benchmark>.judge.panel`, as without them
_ONE, _PANEL = "function-one-judge", "function-judge-panel"


def _judge_shape(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, JudgePanel) or (isinstance(value, Mapping) and "panel" in value):
        return _PANEL
    return _ONE


def _panel_shorthand(value: Any) -> Any:
    """`judge: [a, b]` is `judge: {panel: [a, b]}`."""
    return {"panel": value} if isinstance(value, list) else value


# A benchmark section's `judge`: one judge (a role entry) or a panel of them.
JudgeSetting = Annotated[
    Annotated[
        Annotated[RoleEntry, Tag(_ONE)] | Annotated[JudgePanel, Tag(_PANEL)],
        Discriminator(_judge_shape),
    ]
    | None,
    BeforeValidator(_panel_shorthand),
]


def resolve_role(name: str, fallback: ModelEntry, paper: PaperRole | None, own: RoleEntry | None) -> ModelConfig:
    """The model playing role `name`: `own` (the benchmark's entry) over `paper` (when the protocol is the
    paper's) over `fallback` (the global entry)."""
    base = paper.entry() if paper is not None else fallback
    merged = own.over(base) if own is not None else base
    return merged.resolve(name)


def is_judge_template(path: str) -> bool:
    """Whether a template (its path under steps/) is a judge's prompt: the judge kernel's (judges/templates) or a
    benchmark's `templates/judge/`. A run that calls no judge does not record them (nor depends on them in dvc.yaml:
    flows/dvc_yaml.py), so that a changed judge prompt leaves the dialogues' runs as they are."""
    return path.startswith("judges/") or "/templates/judge/" in f"/{path}"


def template_hashes(folders: Iterable[str], root: Path = _STEPS, *, judge: bool = True) -> dict[str, str]:
    """sha256 of every prompt template (`*.j2`) under `folders` (relative to `root`), keyed by its path; the judges'
    only with `judge` (`is_judge_template`)."""
    out: dict[str, str] = {}
    for folder in folders:
        base = root / folder
        files = [base] if base.is_file() else sorted(base.rglob("*.j2"))
        for path in files:
            key = path.relative_to(root).as_posix()
            if judge or not is_judge_template(key):
                out[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return dict(sorted(out.items()))


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def decoding_deviations(role: str, used: Decoding, paper: Decoding) -> list[str]:
    """`judge temperature 0.7, paper 0` for each compared decoding field that differs."""
    ours, theirs = used.model_dump(), paper.model_dump()
    return [
        f"{role} {name} {_shown(ours[name])}, paper {_shown(theirs[name])}"
        for name in DECODING_FIELDS
        if ours[name] != theirs[name]
    ]


def _shown(value: Any) -> str:
    return "unset" if value is None else _number(value)


def _dig(section: Mapping[str, Any], key: str) -> Any:
    value: Any = section
    for part in key.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


@dataclass(frozen=True)
class ProtocolRecord:
    """What a run of one benchmark ran with, beside what its paper ran with (run.json's `protocol`)."""

    protocol: str  # the section's `protocol`: ours | paper
    roles: Mapping[str, ModelConfig]
    paper: PaperProtocol
    settings: Mapping[str, Any] = field(default_factory=dict)  # the section's values of the paper's settings
    size: int | None = None  # units this run had (None: not known, e.g. a report-level record)
    agent: ModelConfig | None = None  # the agent as the run sent it (compared when the paper has `agent_decoding`)
    panels: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # role → its panel's models (none: one model)

    def agent_paper_decoding(self) -> Decoding | None:
        """The paper's decoding for this record's agent, when the paper names one and the agent is a model (a
        scripted stand-in's decoding means nothing to a paper: its numbers are labelled `[scripted]`)."""
        if self.agent is None or self.agent.is_scripted or self.paper.agent_decoding is None:
            return None
        return self.paper.agent_decoding(self.agent.model)

    def agent_deviations(self) -> list[str]:
        """`agent temperature 0, paper 0.7` for each decoding field of the agent that differs from the paper's
        decoding of its family; a field a deviating setting caps (`PaperSetting.caps`) at the agent's value is
        left to that setting's words."""
        theirs = self.agent_paper_decoding()
        if self.agent is None or theirs is None:
            return []
        capped = {
            s.caps
            for s in self.paper.settings
            if s.caps is not None
            and self.settings.get(s.key) != s.value
            and self.settings.get(s.key) == getattr(self.agent.decoding, s.caps)
        }
        return [
            line
            for line in decoding_deviations("agent", self.agent.decoding, theirs)
            if line.split(" ", 2)[1] not in capped
        ]

    def deviations(self) -> list[str]:
        """Each way the run differs from the paper, in the order roles, decoding (the agent's last), settings,
        data, caveats."""
        out: list[str] = []
        for role, theirs in self.paper.roles.items():
            used = self.roles.get(role)
            if used is None:
                continue
            if role in self.panels:
                out.append(f"{role} panel {' + '.join(self.panels[role])}, paper {theirs.paper}")
            elif used.model != theirs.model:
                out.append(f"{role} {used.model}, paper {theirs.paper}")
            elif not used.is_scripted:
                out += decoding_deviations(role, used.decoding, theirs.decoding)
        out += self.agent_deviations()
        for setting in self.paper.settings:
            value = self.settings.get(setting.key)
            if value != setting.value:
                shown = setting.show(value) if setting.show is not None else value
                out.append(setting.text.format(key=setting.key, value=shown, paper=setting.value))
        if self.size is not None and self.paper.size is not None and self.size < self.paper.size:
            out.append(f"{self.size:,} of {self.paper.size:,} {self.paper.unit}")
        return out + list(self.paper.caveats)

    @property
    def label(self) -> str:
        """`paper protocol`, or the deviations joined by `; `."""
        return "; ".join(self.deviations()) or PAPER_PROTOCOL

    def as_dict(self) -> dict[str, Any]:
        """The record as run.json holds it (no keys, no replica addresses)."""
        roles = {
            role: {
                "model": m.model,
                "endpoint": m.api_base if isinstance(m.api_base, str) else None,
                "decoding": m.decoding.model_dump(),
                **(
                    {
                        "paper": self.paper.roles[role].paper,
                        "paper_model": self.paper.roles[role].model,
                        "paper_decoding": self.paper.roles[role].decoding.model_dump(),
                        "source": self.paper.roles[role].source,
                    }
                    if role in self.paper.roles
                    else {}
                ),
                **({"panel": list(self.panels[role])} if role in self.panels else {}),
            }
            for role, m in sorted(self.roles.items())
        }
        theirs = self.agent_paper_decoding()
        agent = (
            {
                "agent": {
                    "model": self.agent.model,
                    "decoding": self.agent.decoding.model_dump(),
                    "paper_decoding": theirs.model_dump(),
                    "source": self.paper.agent_source,
                }
            }
            if self.agent is not None and theirs is not None
            else {}  # only a model the paper decodes its own way: a scripted agent's record stays as it was
        )
        return {
            "protocol": self.protocol,
            "roles": roles,
            **agent,
            "settings": {
                s.key: {"value": self.settings.get(s.key), "paper": s.value, "source": s.source}
                for s in self.paper.settings
            },
            # a benchmark whose prompts are one of its settings (`prompts: released|ours`) records the run's choice
            "prompts": {
                "source": self.settings.get("prompts") or self.paper.prompts,
                "templates": template_hashes(self.paper.templates, judge="judge" in self.roles),
            },
            "data": {"size": self.size, "paper_size": self.paper.size, "unit": self.paper.unit},
            "caveats": list(self.paper.caveats),
            "label": self.label,
        }


def settings_of(section: Mapping[str, Any], paper: PaperProtocol) -> dict[str, Any]:
    """The section's value (its `model_dump()`) of each of the paper's protocol-relevant settings."""
    return {s.key: _dig(section, s.key) for s in paper.settings}


def role_lines(record: ProtocolRecord) -> list[str]:
    """One line per role: `judge openai/<model> (temperature 0): follows the paper (<spec section>)`,
    or what deviates."""
    lines = []
    for role, m in sorted(record.roles.items()):
        theirs = record.paper.roles.get(role)
        decoding = ", ".join(
            f"{k} {_number(v)}" for k, v in m.decoding.model_dump().items() if k in DECODING_FIELDS and v is not None
        )
        head = f"{role} {m.model}" + (f" ({decoding})" if decoding else "")
        if theirs is None:
            lines.append(f"{head}: no such role in the paper")
            continue
        diffs = (
            [f"paper {theirs.paper}"]
            if m.model != theirs.model
            else ([] if m.is_scripted else decoding_deviations(role, m.decoding, theirs.decoding))
        )
        verdict = "follows the paper" if not diffs else "deviates: " + "; ".join(diffs)
        lines.append(f"{head}: {verdict} ({theirs.source})")
    return lines


def agent_line(name: str, record: ProtocolRecord) -> str:
    """`agent mine openai/<model> (temperature 0): deviates: agent temperature 0, paper 0.7 (<source>)`: an
    agent's decoding beside the paper's for its family (a record with an agent the paper decodes its own way)."""
    assert record.agent is not None
    m = record.agent
    decoding = ", ".join(
        f"{k} {_number(v)}" for k, v in m.decoding.model_dump().items() if k in DECODING_FIELDS and v is not None
    )
    diffs = record.agent_deviations()
    verdict = "follows the paper" if not diffs else "deviates: " + "; ".join(diffs)
    head = f"agent {name} {m.model}" + (f" ({decoding})" if decoding else "")
    return f"{head}: {verdict} ({record.paper.agent_source})"


def protocol_lines(params: Params, benchmarks: Sequence[str] | None = None) -> list[str]:
    """What `params check` and `models check` say about protocols: per benchmark, each role (follows the paper or
    deviates) and the label before any data size; then the API keys the roles lack."""
    chosen = list(benchmarks) if benchmarks is not None else list(params.derived_runs())
    lines: list[str] = []
    for benchmark in chosen:
        record = params.protocol_record(benchmark)
        lines.append(f"{benchmark} (protocol: {record.protocol}): {record.label}")
        lines += [f"  {line}" for line in role_lines(record)]
        panel = params.section_named(benchmark).own_panel("judge")
        if panel is not None:
            how = panel.aggregate or "default: majority for pairwise verdicts, mean for scores"
            members = ", ".join(m.model for m in params.judge_panel(benchmark) or [])
            lines.append(f"  judge panel of {len(panel.panel)} ({how}): {members}")
        if record.paper.agent_decoding is not None:
            for name in params.derived_runs().get(benchmark, []):
                sent = params.protocol_record(benchmark, agent=name)
                if sent.agent is not None and not sent.agent.is_scripted:
                    lines.append(f"  {agent_line(name, sent)}")
    missing = missing_keys(params.role_models(chosen))
    lines += [f"missing API key: {line}" for line in missing] or ["API keys: none missing for the roles"]
    lines += [f"warning: {w}" for name in params.agents if (w := params.repeats_warning(name))]
    return lines


def describe_roles(record: ProtocolRecord) -> str:
    """`environment scripted/persona, judge openai/<model> (temperature 0)`: the role models of a record."""
    parts = []
    for role, m in record.roles.items():
        decoding = ", ".join(
            f"{k} {_number(v)}" for k, v in m.decoding.model_dump().items() if k in DECODING_FIELDS and v is not None
        )
        parts.append(f"{role} {m.model}" + (f" ({decoding})" if decoding and not m.is_scripted else ""))
    return ", ".join(parts)
