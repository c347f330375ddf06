"""The litellm custom provider behind the `scripted/` prefix: answers each call with its policy
(`steps/llm/scripted.py`). Kept apart from the policies so that registering them does not import litellm."""

from __future__ import annotations

import litellm
from litellm import CustomLLM

from steps.llm import sampler
from steps.llm.scripted import ScriptedRequest, answer


def _approx_tokens(text: str) -> int:
    """A deterministic stand-in for token counts: one token per character (labelled as approximate)."""
    return len(text)


class ScriptedProvider(CustomLLM):
    """The litellm handler behind the `scripted/` prefix."""

    def _respond(
        self, model: str, messages: list, litellm_params: dict | None, optional_params: dict | None = None
    ) -> litellm.ModelResponse:
        metadata = dict((litellm_params or {}).get("metadata") or {})
        if model == sampler.MODEL:  # temperature, seed … as sent: what the sampler samples with
            metadata[sampler.DECODING] = dict(optional_params or {})
        text = answer(ScriptedRequest(model=model, messages=list(messages), metadata=metadata))
        prompt = sum(_approx_tokens(str(m.get("content") or "")) for m in messages)
        return litellm.ModelResponse(
            model=f"scripted/{model}",
            choices=[{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            usage={
                "prompt_tokens": prompt,
                "completion_tokens": _approx_tokens(text),
                "total_tokens": prompt + _approx_tokens(text),
            },
        )

    def completion(self, model, messages, *args, litellm_params=None, **kwargs) -> litellm.ModelResponse:
        return self._respond(model, messages, litellm_params, kwargs.get("optional_params"))

    async def acompletion(self, model, messages, *args, litellm_params=None, **kwargs) -> litellm.ModelResponse:
        return self._respond(model, messages, litellm_params, kwargs.get("optional_params"))


_HANDLER = ScriptedProvider()


def install() -> None:
    """Register the `scripted` provider with litellm (idempotent)."""
    providers = [p for p in (litellm.custom_provider_map or []) if p.get("provider") != "scripted"]
    litellm.custom_provider_map = [*providers, {"provider": "scripted", "custom_handler": _HANDLER}]
