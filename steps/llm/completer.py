"""`Completer`: what steps call on the model door.

Steps take a `Completer` rather than `steps.llm.door.ModelDoor` itself: the door is the implementation (cache,
retries, accounting), a test may pass anything with the same two methods, and a step never needs the door's
module (litellm) to be imported to be type-checked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from steps.llm.config import ModelConfig
from steps.llm.results import Reply, Request


class Completer(Protocol):
    """A model door: one completion (or a typed failure, never an exception for a failed call), or many at once."""

    async def complete(
        self,
        model: ModelConfig,
        messages: list[dict[str, Any]],
        *,
        purpose: str,
        metadata: dict | None = None,
        fresh: bool = False,
        response_format: dict[str, Any] | None = None,
    ) -> Reply: ...

    async def complete_many(
        self, requests: Iterable[Request], on_reply: Callable[[Reply], None] | None = None
    ) -> list[Reply]: ...
