"""MILE's paper protocol (spec maser-mile): gpt-4o-2024-08-06 plays the client, the supervisor, the stage
classifier and the style checker, each with its own decoding (`mile.role_decoding: paper`, §2.6), and judges at
temperature 0 with at most 50 new tokens (§4.1); 693 instances."""

from __future__ import annotations

from steps.llm.config import Decoding
from steps.protocol import PaperProtocol, PaperRole, PaperSetting

GPT4O = "openai/gpt-4o-2024-08-06"
# the released evaluation code's judge calls ask at most 50 tokens (spec maser-mile §4.1, "Reference"); our default
# judge asks no limit so that the explanation survives (a reply cut at 50 tokens is parsed by the regex fallback)
PAPER_JUDGE_MAX_TOKENS = 50

PAPER = PaperProtocol(
    roles={
        "environment": PaperRole(
            GPT4O,
            "gpt-4o-2024-08-06",
            "spec maser-mile §2.6 (client, supervisor, classifier, styler: gpt-4o-2024-08-06, decoding per role)",
            Decoding(),
        ),
        "judge": PaperRole(
            GPT4O,
            "gpt-4o-2024-08-06",
            "spec maser-mile §4.1 (judge gpt-4o-2024-08-06, temperature 0, max_tokens 50)",
            Decoding(temperature=0, max_tokens=PAPER_JUDGE_MAX_TOKENS),
        ),
    },
    settings=(
        PaperSetting("role_decoding", "paper", "spec maser-mile §2.6", "environment decoding {value}, paper's table"),
        PaperSetting("max_turns", 15, "spec maser-mile §2.2 (the released code's 15 turns)"),
        PaperSetting("supervise", "client", "spec maser-mile §2.2 (MILE supervises the client)"),
        PaperSetting(
            "role_models",
            {},
            "spec maser-mile §2.6 (one model for every role)",
            "{value}, paper one model for every role",
            show=lambda v: "; ".join(
                f"{r} {(e or {}).get('model') or 'environment model'}" for r, e in sorted(v.items())
            ),
        ),
    ),
    size=693,
    unit="instances",
    templates=("mile/templates",),
)
