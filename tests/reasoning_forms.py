"""The three ways a served model can answer the same thing (issue 38 item 5's Done-when): the answer alone
(`plain`), the answer after a `<think>…</think>` trace in the text (`think`), and the answer with the trace in
the reply's `reasoning_content` field (`field`). `serve(form, answer_of, trace_of)` starts a fake
OpenAI-compatible server answering in that form; a benchmark's scores must not depend on the form.

`answer_of(body)` and `trace_of(body)` give the answer and the trace of a request. An answer of "" makes a
trace-only reply in the `think` and `field` forms (and an empty reply in `plain`): an empty answer everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.fake_openai_server import FakeOpenAIServer

FORMS = ("plain", "think", "field")
Text = Callable[[dict[str, Any]], str]


def last_user(body: dict[str, Any]) -> str:
    return next((m["content"] for m in reversed(body["messages"]) if m["role"] == "user"), "")


def serve(form: str, answer_of: Text, trace_of: Text) -> FakeOpenAIServer:
    """A started-on-enter fake server answering in `form` (one of FORMS)."""
    if form == "plain":
        return FakeOpenAIServer(reply=answer_of)
    if form == "think":
        return FakeOpenAIServer(reply=lambda body: f"<think>\n{trace_of(body)}\n</think>\n\n{answer_of(body)}")
    if form == "field":
        return FakeOpenAIServer(reply=answer_of, reasoning=trace_of)
    raise ValueError(f"unknown form {form!r}; the forms are {', '.join(FORMS)}")


def leaked(trace: str, answer: str) -> str:
    """What a scorer would read if the trace were not removed (to check that the trace would change a score)."""
    return f"<think>\n{trace}\n</think>\n\n{answer}"
