"""PLawBench's paper protocol (spec plawbench §3.1): Gemini-3.0-Pro-Preview judges every answer (temperature not
reported: greedy); 850 questions, 280 of them public. The multi-turn consultation's client is ours (no paper
role)."""

from __future__ import annotations

from steps.llm.config import Decoding
from steps.protocol import PaperProtocol, PaperRole

PAPER = PaperProtocol(
    roles={
        "judge": PaperRole(
            "gemini/gemini-3-pro-preview",
            "Gemini-3.0-Pro-Preview",
            "spec plawbench §3.1 (final judge Gemini-3.0-Pro-Preview; temperature not reported)",
            Decoding(),
        ),
    },
    size=850,
    unit="questions",
    templates=("plawbench/templates",),
)
