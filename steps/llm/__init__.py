"""The only door to models: litellm calls, response cache, retries, accounting, scripted offline models.

Nothing else in jurisflow imports litellm. The heavy parts (litellm itself) load on first use, so that
configuration classes can be imported cheaply.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

# litellm fetches a remote price map at import unless told not to; we use the map pinned with the package.
# This must run before the first `import litellm`.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from steps.llm.completer import Completer
from steps.llm.config import Decoding, LLMSettings, ModelConfig
from steps.llm.results import (
    EMPTY_ANSWER,
    CallFailure,
    Completion,
    FailureKind,
    Reply,
    Request,
    UsageRecord,
    outcome,
    reasoning_of,
)

_LAZY = {
    "ModelDoor": "steps.llm.door",
    "ScriptedRequest": "steps.llm.scripted",
    "register_policy": "steps.llm.scripted",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'steps.llm' has no attribute '{name}'")


__all__ = [
    "EMPTY_ANSWER",
    "CallFailure",
    "Completer",
    "Completion",
    "Decoding",
    "FailureKind",
    "LLMSettings",
    "ModelConfig",
    "ModelDoor",
    "Reply",
    "Request",
    "ScriptedRequest",
    "UsageRecord",
    "outcome",
    "reasoning_of",
    "register_policy",
]
