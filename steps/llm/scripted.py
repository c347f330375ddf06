"""Deterministic offline models (`scripted/oracle`, `scripted/null`, `scripted/persona`, `scripted/judge`, and
`scripted/judge_contrary`, a second proxy judge that disagrees with the first by construction, for panels).

They are a litellm custom provider (`steps/llm/scripted_provider.py`, installed by the door), so they travel
the same path as real models (cache, accounting, concurrency bounds). Each call is answered by a *policy* looked
up by (model, scenario); later stages register one policy per scenario. Policies are plain functions of the
messages and the call metadata (instance id, scenario, role, purpose, and whatever context the caller passes,
such as a reference answer for the oracle). Numbers produced with scripted models are labelled as such in every
report. This module does not import litellm: stages register their policies at import, and only a stage that
calls a model needs litellm.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

SCRIPTED_MODELS = ("oracle", "null", "persona", "judge", "judge_contrary")
ANY_SCENARIO = "*"


@dataclass(frozen=True)
class ScriptedRequest:
    model: str  # "oracle", "null", ...
    messages: list[dict[str, Any]]
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def scenario(self) -> str:
        return str(self.metadata.get("scenario", ""))

    @property
    def last_user(self) -> str:
        return next((m.get("content") or "" for m in reversed(self.messages) if m.get("role") == "user"), "")


Policy = Callable[[ScriptedRequest], str]
_POLICIES: dict[tuple[str, str], Policy] = {}


class NoPolicyError(LookupError):
    """No policy is registered for a scripted model in a scenario."""


def register_policy(model: str, scenario: str, policy: Policy) -> Policy:
    """Register `policy` to answer `scripted/<model>` calls whose metadata names `scenario`."""
    if model not in SCRIPTED_MODELS:
        raise ValueError(f"unknown scripted model '{model}'; expected one of {', '.join(SCRIPTED_MODELS)}")
    _POLICIES[(model, scenario)] = policy
    policy_fingerprint.cache_clear()
    return policy


def policy_for(model: str, scenario: str) -> Policy:
    for key in ((model, scenario), (model, ANY_SCENARIO)):
        if key in _POLICIES:
            return _POLICIES[key]
    raise NoPolicyError(f"no policy for scripted/{model} in scenario '{scenario}'; register one with register_policy")


@lru_cache(maxsize=256)
def policy_fingerprint(model: str, scenario: str, kind: str = "") -> str:
    """A short hash of the source file that defines the policy answering (model, scenario).

    It enters the cache key of scripted calls, so that editing a policy never serves its old answers from
    the response cache (policies that call helpers elsewhere should pass a version in their metadata). A policy
    that dispatches on the request's `kind` (the proxy judge on its judge kind) names the files of that kind with
    a `sources(kind)` attribute: the key of a call depends on the code that answers it, never on what else happens
    to be registered in the process.
    """
    try:
        policy = policy_for(model, scenario)
    except NoPolicyError:
        return ""
    path = inspect.getsourcefile(policy)
    content = Path(path).read_bytes() if path else policy.__qualname__.encode()
    extra = getattr(policy, "sources", None)
    for other in extra(kind) if extra is not None else ():
        if other != path:
            content += b"\0" + Path(other).read_bytes()
    return hashlib.sha256(content).hexdigest()[:16]


def fingerprint_of(model: str, metadata: dict) -> str:
    """`policy_fingerprint` of a call to scripted `model` ("scripted/<name>") with these call metadata."""
    name = model.split("/", 1)[1]
    return policy_fingerprint(name, str(metadata.get("scenario", "")), str(metadata.get("judge_kind", "")))


def answer(request: ScriptedRequest) -> str:
    return policy_for(request.model, request.scenario)(request)


def _null_policy(request: ScriptedRequest) -> str:
    """The null agent answers nothing, whatever it is asked."""
    return ""


register_policy("null", ANY_SCENARIO, _null_policy)
