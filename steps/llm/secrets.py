"""Which key the door sends where, and keeping every key it sends out of what it writes or logs.

Light on purpose (no litellm): `CallFailure` redacts its message through `redact` when it is created, so
no caller can persist a failure text that still holds a key.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable

from steps.llm.config import ModelConfig

# Sent as the key to a server given by `api_base` with no `api_key_env`: litellm's OpenAI-compatible
# clients need some key, and a local server without auth must not receive a real one.
NO_KEY = "jurisflow-no-key"

_SECRET_SUFFIXES = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD")  # *_API_KEY ends in _KEY
_MIN_SECRET_LEN = 4  # shorter values are not keys, and replacing them would garble text
_sent: set[str] = set()  # every key value the door has passed to litellm in this process


class MissingApiKeyError(ValueError):
    """A model names an `api_key_env` variable that is not set (raised before any call to it)."""


def remember_secret(value: str) -> None:
    """Redact `value` from every text that `redact` sees from now on."""
    if len(value) >= _MIN_SECRET_LEN:
        _sent.add(value)


def redact(text: str) -> str:
    """Replace every key the door has sent, and the value of every secret-looking environment variable
    (`*_API_KEY`, `*_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`), by ***."""
    secrets = [v for n, v in os.environ.items() if len(v) >= 8 and n.endswith(_SECRET_SUFFIXES)]
    secrets.extend(_sent)
    for value in sorted((v for v in set(secrets) if v in text), key=len, reverse=True):  # longest first
        text = text.replace(value, "***")
    return text


def api_key_for(model: ModelConfig) -> str | None:
    """The key to send with a call to `model`, remembered for redaction.

    - `api_key_env` set: the value of that variable; unset or empty raises MissingApiKeyError.
    - `api_base` without `api_key_env`: NO_KEY, so no provider's key (OPENAI_API_KEY, ...) from the
      environment reaches a server it does not belong to.
    - neither (a provider's own API, or a scripted model): None, and litellm reads the provider's variable.
    """
    if model.api_key_env:
        value = os.environ.get(model.api_key_env)
        if not value:
            raise MissingApiKeyError(
                f"model '{model.name}': api_key_env names {model.api_key_env}, which is not set in the environment "
                "(export it, or drop api_key_env for a server that needs no key)"
            )
        remember_secret(value)
        return value
    if model.api_base and not model.is_scripted:
        return NO_KEY
    return None


def check_api_keys(models: Iterable[ModelConfig]) -> None:
    """Raise one MissingApiKeyError naming every model whose `api_key_env` variable is unset."""
    problems = []
    for model in models:
        try:
            api_key_for(model)
        except MissingApiKeyError as exc:
            problems.append(str(exc))
    if problems:
        raise MissingApiKeyError("; ".join(problems))


class RedactingFilter(logging.Filter):
    """Redact keys from log records (installed on litellm's loggers by the door)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and record.exc_info[1] is not None:
            text = redact(str(record.exc_info[1]))
            if text != str(record.exc_info[1]):
                record.msg, record.args = f"{cleaned} ({type(record.exc_info[1]).__name__}: {text})", None
                record.exc_info, record.exc_text = None, None
        return True


def missing_keys(models: Iterable[ModelConfig]) -> list[str]:
    """One line per API key variable the models need and the environment lacks (`api_key_env`, else the
    provider's own variable as litellm reads it; a model with an `api_base` and no `api_key_env` needs none)."""
    lines: dict[str, str] = {}
    for m in models:
        if m.is_scripted:
            continue
        if m.api_key_env:
            if not os.environ.get(m.api_key_env):
                lines.setdefault(m.api_key_env, f"{m.api_key_env} is not set ({m.name}: {m.model})")
            continue
        if m.api_base:
            continue
        import litellm

        wanted = litellm.validate_environment(model=m.model).get("missing_keys") or []
        if wanted:  # litellm lists every variable it would read (several for one provider): one is enough
            names = " or ".join(sorted(wanted))
            lines.setdefault(names, f"{names} is not set ({m.name}: {m.model})")
    return list(lines.values())
