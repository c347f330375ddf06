"""`scripted/sampler`: a scripted agent that samples, for repeated runs (docs/statistics.md#repeated-runs).

Each call is answered as the oracle (its policy for the call's scenario) or as the null agent (nothing), by a coin
hashed from the call (instance, messages) and, when its temperature is above 0, its seed: greedy (temperature 0)
it answers alike whatever the seed; sampling, each seed (each repeat of a run) answers its own way. The decoding
reaches it in the call's metadata (`DECODING`, put there by the scripted provider).

It lives apart from steps/llm/scripted.py on purpose: a scripted call's cache key holds the hash of the file that
defines its policy (the null agent's is scripted.py), so an edit there would re-key every null call. For the same
reason, the sampler's keys hold this file's hash only: an edit to an oracle policy does not re-key its calls
(clear the cache, `make clean-cache`, after one).
"""

from __future__ import annotations

import hashlib
import json

from steps.llm import scripted
from steps.llm.scripted import ANY_SCENARIO, ScriptedRequest, policy_for

MODEL = "sampler"
DECODING = "_decoding"  # the metadata key the scripted provider gives a call's decoding under
SHARE = 0.5  # the share of calls answered as the oracle


def sampler_policy(request: ScriptedRequest) -> str:
    """The oracle's answer or nothing, by the call's coin (see the module docstring)."""
    decoding = request.metadata.get(DECODING) or {}
    temperature = float(decoding.get("temperature") or 0.0)
    seed = decoding.get("seed") if temperature > 0 else None
    messages = request.messages
    coin = json.dumps(
        [seed, str(request.metadata.get("instance_id", "")), messages], ensure_ascii=False, sort_keys=True
    )
    draw = int(hashlib.sha256(coin.encode("utf-8")).hexdigest()[:8], 16) / 16**8
    return policy_for("oracle", request.scenario)(request) if draw < SHARE else ""


def install() -> None:
    """Register the sampler (scripted.register_policy knows only the four models scripted.py defines, and scripted.py
    stays as it is: see the module docstring)."""
    scripted._POLICIES[(MODEL, ANY_SCENARIO)] = sampler_policy
    scripted.policy_fingerprint.cache_clear()


install()
