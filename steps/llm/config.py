"""Typed configuration of models and of the model door (validated from params.yaml by the flows)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


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

    name: str
    model: str
    api_base: str | list[str] | None = None
    api_key_env: str | None = None
    decoding: Decoding = Decoding()
    concurrency: int | None = None  # per-endpoint bound; defaults to LLMSettings.concurrency
    timeout_s: float | None = None

    @field_validator("model")
    @classmethod
    def _has_provider(cls, value: str) -> str:
        if "/" not in value:
            raise ValueError(f"model '{value}' must be a litellm string with a provider, e.g. openai/gpt-4o")
        return value

    @property
    def provider(self) -> str:
        return self.model.split("/", 1)[0]

    @property
    def is_scripted(self) -> bool:
        return self.provider == "scripted"

    @property
    def replicas(self) -> list[str]:
        return self.api_base if isinstance(self.api_base, list) else []

    def endpoint(self) -> str:
        """The key that concurrency is bounded by: the server address, or the provider's API."""
        if isinstance(self.api_base, list):
            return "replicas:" + ",".join(sorted(self.api_base))
        return self.api_base or f"{self.provider}-api"


class LLMSettings(_Frozen):
    """How the door behaves: concurrency, timeouts, retries and where the response cache lives."""

    concurrency: int = 32
    timeout_s: float = 120.0
    max_attempts: int = 6
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0
    retry_budget_s: float = 600.0
    cache: bool = True
    cache_dir: str = ".cache/llm"
