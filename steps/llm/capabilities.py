"""What `jurisflow models check` measured about each endpoint's structured output, and what the door asks for.

A model's `structured_output` setting says whether the door asks for output constrained to a JSON schema
(OpenAI's `response_format` of type `json_schema`, which litellm hands on unchanged to OpenAI-compatible servers:
vLLM turns it into guided decoding, llama.cpp's server into a grammar). `auto` asks only where the record says the
endpoint honoured it; the record is a JSON file beside the response cache (`structured_output.json`), keyed by the
model string and the endpoint, written by `models check`. Scripted models are never asked: their answers are a
function of the messages, so the defaults' cache keys, transcripts and reports stay as they were.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from steps.llm.config import ModelConfig

RECORD_FILE = "structured_output.json"


@dataclass(frozen=True)
class StructuredCheck:
    """One endpoint's answer to the structured-output probe: `works` when the reply was valid under the schema."""

    model: str
    endpoint: str
    works: bool
    detail: str


def record_key(model: ModelConfig) -> str:
    return f"{model.model} @ {model.endpoint()}"


def load_record(cache_dir: Path) -> dict[str, StructuredCheck]:
    """The checks recorded beside the response cache in `cache_dir` (none when the file is absent or unreadable)."""
    try:
        data = json.loads((cache_dir / RECORD_FILE).read_text(encoding="utf-8"))
        return {key: StructuredCheck(**value) for key, value in data.items()}
    except (OSError, ValueError, TypeError):
        return {}


def save_record(cache_dir: Path, checks: list[StructuredCheck]) -> Path:
    """Merge `checks` into the record in `cache_dir` (a later check of the same endpoint replaces the earlier)."""
    record = load_record(cache_dir)
    record.update({f"{c.model} @ {c.endpoint}": c for c in checks})
    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / RECORD_FILE
    body = {key: asdict(c) for key, c in sorted(record.items())}
    path.write_text(json.dumps(body, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path


def asks_structured(model: ModelConfig, record: dict[str, StructuredCheck]) -> bool:
    """Whether the door asks `model` for constrained output: never for scripted models; else by its setting."""
    if model.is_scripted or model.structured_output == "off":
        return False
    if model.structured_output == "json_schema":
        return True
    check = record.get(record_key(model))
    return check is not None and check.works


def structured_spec(model: ModelConfig, cache_dir: Path | str) -> dict[str, Any]:
    """What a judge run records of its structured output (run.json): the setting, the effective mode the door
    uses (`json_schema` or `off`; under `auto` by the record beside the cache in `cache_dir`) and, under `auto`,
    what `models check` recorded. A flip of `auto`'s outcome changes the run id, which DVC cannot see (the record
    is no stage dependency). Empty for a scripted model (never asked), so that the defaults' run ids stay."""
    if model.is_scripted:
        return {}
    record = load_record(Path(cache_dir))
    check = record.get(record_key(model))
    effective = "json_schema" if asks_structured(model, record) else "off"
    found = None if model.structured_output != "auto" else (check.detail if check is not None else "not checked")
    return {"structured_output": {"setting": model.structured_output, "effective": effective, "checked": found}}


# Characters of free text (reasons, justifications) a constrained answer may hold per token of its model's max_tokens,
# over all its free-text fields together: the verdict and the closing braces must fit in the rest (a CJK character
# costs about two tokens on a small English-first tokenizer, SmolLM2: 42 tokens for 20 characters, and one or so on
# Qwen's or GPT-4o's).
TEXT_PER_TOKEN = 0.25
MIN_TEXT = 8  # below this many characters per field, an optional free-text field is left out of the schema


def response_format(
    schema: type[BaseModel] | dict[str, Any], name: str | None = None, max_tokens: int | None = None
) -> dict[str, Any]:
    """OpenAI's `response_format` asking for JSON valid under `schema` (a pydantic model or a JSON schema); with
    `max_tokens` (the model's cap), its free text is bounded so that the answer closes within the cap."""
    body = schema if isinstance(schema, dict) else wire_schema(schema)
    if max_tokens is not None:
        body = bound_text(body, int(max_tokens * TEXT_PER_TOKEN))
    title = name or (schema.__name__ if not isinstance(schema, dict) else "answer")
    return {"type": "json_schema", "json_schema": {"name": _safe(title), "schema": body}}


def wire_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema sent for `schema`: its own `wire_schema()` when it declares a tighter one (the ids of a
    rubric, the keys of a scale), else pydantic's, with the free-text properties moved after the others in every
    object (a model cut at max_tokens has then written its verdict already)."""
    own = getattr(schema, "wire_schema", None)
    body = own() if callable(own) else schema.model_json_schema()
    return _text_last(body)


def bound_text(schema: dict[str, Any], chars: int) -> dict[str, Any]:
    """`schema` with its free-text properties sharing `chars` characters (`maxLength` each); where a share is under
    `MIN_TEXT`, the optional ones are left out and the required ones get `MIN_TEXT`."""
    count = _count_free(schema)
    if not count:
        return schema
    share = chars // count
    return _bounded(schema, share)


def _count_free(node: Any) -> int:
    if isinstance(node, list):
        return sum(_count_free(x) for x in node)
    if not isinstance(node, dict):
        return 0
    props = node.get("properties")
    own = sum(1 for v in props.values() if _free_text(v)) if isinstance(props, dict) else 0
    return (
        own
        + sum(_count_free(v) for k, v in node.items() if k != "properties")
        + sum(_count_free(v) for v in (props.values() if isinstance(props, dict) else []))
    )


def _bounded(node: Any, share: int) -> Any:
    if isinstance(node, list):
        return [_bounded(x, share) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _bounded(v, share) for k, v in node.items() if k != "properties"}
    props = node.get("properties")
    if isinstance(props, dict):
        required = set(node.get("required", []))
        kept: dict[str, Any] = {}
        for key, prop in props.items():
            if not _free_text(prop):
                kept[key] = _bounded(prop, share)
            elif share >= MIN_TEXT or key in required:
                limit = max(share, MIN_TEXT)
                kept[key] = {**prop, "maxLength": min(prop.get("maxLength", limit), limit)}
        out["properties"] = kept
    return out


def _text_last(node: Any) -> Any:
    if isinstance(node, list):
        return [_text_last(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _text_last(v) for k, v in node.items()}
    props = out.get("properties")
    if isinstance(props, dict):
        free = [k for k, v in props.items() if _free_text(v)]
        out["properties"] = {**{k: v for k, v in props.items() if k not in free}, **{k: props[k] for k in free}}
        if isinstance(out.get("required"), list):
            out["required"] = sorted(out["required"], key=lambda k: k in free)
    return out


def _free_text(prop: Any) -> bool:
    """A string property that is not an allowed set (enum/const): a reason, a justification."""
    if not isinstance(prop, dict):
        return False
    types = [prop.get("type")] + [x.get("type") for x in prop.get("anyOf", []) if isinstance(x, dict)]
    return "string" in types and "enum" not in prop and "const" not in prop


def _safe(name: str) -> str:
    """A `json_schema.name` OpenAI accepts: a-z, A-Z, 0-9, `_` and `-`, at most 64 characters."""
    return "".join(c if (c.isascii() and c.isalnum()) or c in "_-" else "_" for c in name)[:64] or "answer"


def obj(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """A JSON-schema object with these properties, all required unless `required` says which."""
    return {"type": "object", "properties": properties, "required": list(properties) if required is None else required}


def one_each(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """A JSON-schema array of exactly these items in this order (`prefixItems`, as many as there are)."""
    return {"type": "array", "prefixItems": lines, "minItems": len(lines), "maxItems": len(lines)}


TEXT: dict[str, Any] = {"type": "string"}
