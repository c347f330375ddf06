"""Typed configuration of models and of the model door (validated from params.yaml by the flows)."""

from __future__ import annotations

import functools
import re
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

# A name that becomes a path component (agents, models, settings): letters, digits, `_`, `-`, `.`, starting with a
# letter, digit or `_` (so never `.`, `..` or a hidden name), at most 64 characters.
SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
SCRIPTED_PROVIDER = "scripted"
# What `api_key_env` must be: the NAME of an environment variable (POSIX portable), never a key value.
ENV_VAR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_LABEL = r"[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?"
_HOST = re.compile(rf"{_LABEL}(\.{_LABEL})*\.?|\[[0-9A-Fa-f:.]+\]")  # a host name, an IPv4 address or [IPv6]
# Whether the door asks the endpoint for output constrained to a JSON schema when a step wants JSON (the judges,
# extraction, personas): `json_schema` always, `off` never (the answer is parsed leniently, with a repair round),
# `auto` when `jurisflow models check` measured that this endpoint honours it (steps/llm/capabilities.py).
StructuredOutput = Literal["auto", "json_schema", "off"]


def check_safe_name(name: str) -> str:
    """Return `name` if it is a safe single path component, else raise a ValueError saying the rule."""
    if not isinstance(name, str) or not SAFE_NAME.fullmatch(name):
        raise ValueError(
            f"name {name!r} must be a single path component: 1-64 of A-Z a-z 0-9 _ . - , not starting with '.' or '-'"
        )
    return name


def check_api_key_env(value: str | None) -> str | None:
    """`value` if it is an environment variable's name; else a ValueError that never repeats it (it may be the key)."""
    if value is not None and not (isinstance(value, str) and ENV_VAR_NAME.fullmatch(value)):
        raise ValueError(
            "must be the NAME of the environment variable that holds the key (letters, digits and _, not starting "
            "with a digit, e.g. DEEPSEEK_API_KEY), never the key itself; the value given is not shown"
        )
    return value


def check_url(value: str) -> str:
    """`value` if it is an http(s)://host[:port][/path] URL (no user, password, query or fragment), else a
    ValueError saying the form (quoting the value unless it holds `@`, `?` or `#`, where credentials would go)."""
    ok = isinstance(value, str) and not any(c.isspace() for c in value)
    if ok:
        try:
            parts = urlsplit(value)
            port_ok = parts.port is None or parts.port > 0
        except ValueError:  # a port that is not a number in 0-65535, a bad [IPv6] literal
            port_ok = False
        netloc = parts.netloc.rsplit(":", 1)[0] if port_ok and parts.port is not None else parts.netloc
        ok = (
            port_ok
            and parts.scheme in ("http", "https")
            and bool(_HOST.fullmatch(netloc))
            and not parts.query
            and not parts.fragment
            and not any(c in value for c in "@?#")
        )
    if not ok:
        if isinstance(value, str) and not any(c in value for c in "@?#"):
            raise ValueError(f"{value!r} is not a URL of the form http(s)://host[:port][/path]")
        raise ValueError(
            "not a URL of the form http(s)://host[:port][/path] (no user, password, query or fragment; the value "
            "is not shown)"
        )
    return value


def check_api_base(value: str | list[str] | None) -> str | list[str] | None:
    """An `api_base`: one URL, or a non-empty list of them (replicas)."""
    if isinstance(value, list):
        if not value:
            raise ValueError("an empty list of replicas; give one URL or several")
        for url in value:
            check_url(url)
    elif value is not None:
        check_url(value)
    return value


@functools.cache
def known_providers() -> frozenset[str]:
    """litellm's provider prefixes (steps/llm/providers.txt, checked against litellm by the tests) plus `scripted`."""
    from steps.llm.providers import listed_providers

    return frozenset(listed_providers()) | {SCRIPTED_PROVIDER}


def check_model_string(value: str) -> str:
    """A litellm model string `provider/model` whose provider litellm knows (or `scripted/...`)."""
    if "/" not in value:
        raise ValueError(f"model '{value}' must be a litellm string with a provider, e.g. openai/gpt-4o")
    provider = value.split("/", 1)[0]
    if provider != SCRIPTED_PROVIDER and provider not in known_providers():
        raise ValueError(f"model '{value}': unknown provider '{provider}' (not in litellm.provider_list nor scripted)")
    return value


# The checked field types every model entry shares (ModelConfig, ModelEntry, a benchmark's RoleEntry).
ModelString = Annotated[str, AfterValidator(check_model_string)]
ApiBase = Annotated[str | list[str] | None, AfterValidator(check_api_base)]
ApiKeyEnv = Annotated[str | None, AfterValidator(check_api_key_env)]
SafeName = Annotated[str, AfterValidator(check_safe_name)]


class _Frozen(BaseModel):
    # hide_input_in_errors: a ValidationError's text never repeats the value refused (an api_key_env given a key)
    model_config = ConfigDict(frozen=True, extra="forbid", hide_input_in_errors=True)


class Decoding(_Frozen):
    """Decoding parameters; every field here changes the output and so enters the cache key."""

    temperature: float = 0.0
    top_p: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    extra: dict[str, Any] = Field(default_factory=dict)  # passed through to litellm as is

    def as_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"temperature": self.temperature, **self.extra}
        for name in ("top_p", "max_tokens", "seed"):
            if getattr(self, name) is not None:
                kwargs[name] = getattr(self, name)
        return kwargs


class ModelConfig(_Frozen):
    """One model as the door reaches it: a litellm model string plus where and how to call it.

    `api_base` may be a list: the replicas are load-balanced (litellm Router) and, being interchangeable,
    stay out of the cache key. API keys are never configured here, only the *name* of the environment
    variable that holds one (`api_key_env`). Without it, a model with an `api_base` gets a placeholder key
    and one without reaches its provider's API with litellm's usual variable (OPENAI_API_KEY, ...); see
    steps.llm.secrets.api_key_for.
    """

    name: SafeName
    model: ModelString
    api_base: ApiBase = None
    api_key_env: ApiKeyEnv = None
    decoding: Decoding = Decoding()
    concurrency: int | None = Field(default=None, ge=1)  # per-endpoint bound; defaults to LLMSettings.concurrency
    timeout_s: float | None = Field(default=None, gt=0)
    structured_output: StructuredOutput = "auto"
    # which of an agent's repeated runs this is (`agents.<name>.repeats`): 0, the first, calls and keys as an agent
    # without repeats; a later one enters the response cache key, so its calls are its own
    repeat: int = Field(default=0, ge=0)

    @property
    def provider(self) -> str:
        return self.model.split("/", 1)[0]

    @property
    def is_scripted(self) -> bool:
        return self.provider == "scripted"

    @property
    def replicas(self) -> list[str]:
        return self.api_base if isinstance(self.api_base, list) else []

    def as_entry(self) -> ModelEntry:
        """The model as params.yaml writes it: without its name and its repeat index (a run's, not the model's)."""
        return ModelEntry(**self.model_dump(exclude={"name", "repeat"}))

    def endpoint(self) -> str:
        """The key that concurrency is bounded by: the server address, or the provider's API."""
        if isinstance(self.api_base, list):
            return "replicas:" + ",".join(sorted(self.api_base))
        return self.api_base or f"{self.provider}-api"


class ModelEntry(_Frozen):
    """A model as params.yaml writes it (its name is the key it is listed under): `resolve` names it."""

    model: ModelString
    api_base: ApiBase = None
    api_key_env: ApiKeyEnv = None
    decoding: Decoding = Decoding()
    concurrency: int | None = Field(default=None, ge=1)
    timeout_s: float | None = Field(default=None, gt=0)
    structured_output: StructuredOutput = "auto"
    # the paper model this agent corresponds to (its rows are shown under ours): a name, or one per benchmark.
    # Checked against the papers' model lists by `jurisflow params check` and by each report stage, not at load:
    # the lists live with the benchmarks, and every stage (the J1 simulation's code fingerprint too) would depend
    # on them.
    paper_model: str | dict[str, str] | None = None

    def resolve(self, name: str) -> ModelConfig:
        return ModelConfig(name=name, **self.model_dump(exclude={"paper_model"}))


class LLMSettings(_Frozen):
    """How the door behaves: concurrency, timeouts, retries and where the response cache lives.

    `max_failed_fraction` is read by the flows, not the door: the share of a stage's calls that may still fail
    after retries with the stage counting as done (flows/kit/models.py: check_calls).
    """

    concurrency: int = Field(default=32, ge=1)  # 0 would admit no call at all (a hang)
    timeout_s: float = Field(default=120.0, gt=0)
    max_attempts: int = Field(default=6, ge=1)
    backoff_base_s: float = Field(default=1.0, ge=0)
    backoff_max_s: float = Field(default=60.0, ge=0)
    retry_budget_s: float = Field(default=600.0, ge=0)
    cache: bool = True
    cache_dir: str = ".cache/llm"
    max_failed_fraction: float = Field(default=0.0, ge=0.0, le=1.0)
    # the most one run may spend on new calls, in USD from litellm's price map (cache hits cost nothing): the stages
    # of one run session together (steps/llm/ledger.py), else one door; once reached, every further call is a
    # `budget` failure, never sent. None: no cap
    budget_usd: float | None = Field(default=None, gt=0)
