"""MILE's supervisor (spec maser-mile §1.4, §1.6, §2.2–2.4): stage first, then the stage's rule.

For a client candidate (from turn 2; turns 0 and 1 are not supervised):
1. the stage classifier labels the candidate (plaintiff info, defendant info, facts, claims, evidence);
2. the first time it reads as facts, the supervisor does not critique: the turn is *replaced* by a vague,
   slightly wrong first-person retelling of the facts in the client's style (fact blurring; one of five
   instructions, drawn per instance from the run seed);
3. otherwise the supervisor checks the candidate against the archive and persona with the stage's rule
   (plaintiff info: the withheld detail `less` is held back the first time the lawyer asks and given when
   asked again; defendant info: complete; else: no contradiction, no unasked litigation costs) and answers
   `**对话监督者**：回复无误` or advice. Advice sends the turn back for one revision; the style checker's
   suggestion rides along with it (a style mismatch alone revises only with `style_triggers_revision`).
For a lawyer candidate (data-synthesis mode only) the stage is read from the client's last reply and the
lawyer rules apply (follow up `less`, complete party info, contradictions in the facts, one question a turn).
Each supervisor call is fresh (system prompt + one user message); the only state is the list of stages seen.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from steps.simulate.echo import copies_prompt
from steps.simulate.review import Reviewer, Verdict, parse_advice
from steps.simulate.templates import render

TEMPLATES = Path(__file__).parent / "templates"
LABEL = "对话监督者"
STAGES = {
    "原告的基本信息": "plaintiff",
    "被告的基本信息": "defendant",
    "案件的事实": "facts",
    "原告的诉讼请求": "claims",
    "原告的证据": "evidence",
}
STAGE_LABELS = {v: f"<{k}>" for k, v in STAGES.items()}
SPEAKERS = {"client": "原告", "lawyer": "律师"}
BLUR_INSTRUCTIONS = (
    "请你用有点拿不准的口吻，把下面这段经过讲给律师听，讲的时候夹带一两处小的出入或遗漏：",
    "请你像一时有些糊涂的人那样，把下面这段经过讲给律师听，有的地方记混了，有的细节漏掉了：",
    "请你用心里有点乱、理不太清头绪的口吻，把下面这段经过讲给律师听，其中有一两处说得不准确：",
    "请你像刚回过神来、还有点发懵的人那样，断断续续地讲下面这段经过，个别细节说错或者没说：",
    "请你以不太确定的语气复述下面这段经过，说得含糊一些，并且带上一两处小错误：",
)
_STYLE_MISMATCH = re.compile(r"不\s*匹配")
_SUGGESTION = re.compile(r"建议\**\s*[：:]\s*(.*)", re.S)


def parse_stage(text: str) -> str:
    """The first stage label named in a classifier answer (brackets and spacing optional), else `other`."""
    compact = re.sub(r"\s+", "", text)
    hits = [(compact.find(label), stage) for label, stage in STAGES.items() if label in compact]
    return min(hits)[1] if hits else "other"


def history_text(engine: Any) -> str:
    return "\n".join(f"**{SPEAKERS.get(t.speaker, t.speaker)}**：{t.text}" for t in engine.dialogue.utterances())


def blur_instruction(seed: int, instance_id: str) -> str:
    digest = hashlib.sha256(f"{seed}:{instance_id}:blur".encode()).hexdigest()
    return BLUR_INSTRUCTIONS[int(digest, 16) % len(BLUR_INSTRUCTIONS)]


class MileSupervisor(Reviewer):
    role = "supervisor"
    accept_phrase = "回复无误"
    max_revisions = 1

    def __init__(self, reviews: frozenset[str], *, style_triggers_revision: bool = False, seed: int = 0):
        self.reviews, self.style_triggers_revision, self.seed = reviews, style_triggers_revision, seed

    # ------------------------------------------------------------------ the verdict
    async def check(self, engine: Any, role: str, text: str) -> Verdict | None:
        if engine.dialogue.exchanges - 1 < 2:  # turns 0 (fixed) and 1 are kept as they are
            return None
        if role == "client":
            return await self._client(engine, text)
        return await self._lawyer(engine, text)

    async def _client(self, engine: Any, text: str) -> Verdict | None:
        stage = await self._stage(engine, "client", text)
        if stage is None:
            return None
        seen = engine.dialogue.state.setdefault("stages", [])
        first_facts = stage == "facts" and "facts" not in seen
        seen.append(stage)
        if first_facts:
            engine.dialogue.state["pending"] = {"mode": "blur"}
            instruction = blur_instruction(self.seed, engine.instance.instance_id)
            return Verdict(False, instruction, replace=True, data={"stage": stage, "blurred": True})
        verdict = await self._advise(engine, "client", text, stage, "review_client.j2")
        if verdict is None:
            return None
        style = ""
        if not verdict.accepted or self.style_triggers_revision:
            style = await self._style(engine, text)
        if style and verdict.accepted:
            verdict = Verdict(False, f"说话风格：{style}", data={"stage": stage, "style": style})
        elif style:
            verdict = Verdict(False, f"{verdict.advice}（说话风格：{style}）", data={"stage": stage, "style": style})
        else:
            verdict = Verdict(verdict.accepted, verdict.advice, data={"stage": stage})
        if not verdict.accepted:
            engine.dialogue.state["pending"] = {"mode": "revise", "advice": verdict.advice}
        return verdict

    async def _lawyer(self, engine: Any, text: str) -> Verdict | None:
        last_client = next((t.text for t in reversed(engine.dialogue.utterances()) if t.speaker == "client"), "")
        stage = await self._stage(engine, "lawyer", last_client)
        if stage is None:
            return None
        engine.dialogue.state.setdefault("lawyer_stages", []).append(stage)
        verdict = await self._advise(engine, "lawyer", text, stage, "review_lawyer.j2")
        if verdict is None:
            return None
        return Verdict(verdict.accepted, verdict.advice, data={"stage": stage})

    # ------------------------------------------------------------------ the three supervisor calls
    def _context(self, engine: Any, role: str, text: str, **extra: Any) -> dict[str, Any]:
        history = [{"speaker": t.speaker, "text": t.text} for t in engine.dialogue.utterances()]
        return {"reviewed": role, "candidate": text, "history": history, **extra}

    async def _stage(self, engine: Any, role: str, text: str) -> str | None:
        prompt = render(TEMPLATES, "stage.j2", {"text": text})
        reply = await self.ask(
            engine, [{"role": "user", "content": prompt}], purpose="stage", context=self._context(engine, role, text)
        )
        if not reply.ok:
            self.failed(engine, role, "stage", reply)
            return None
        if copies_prompt(reply.text, prompt):  # the label list recited back names every stage: no label
            self.unusable(engine, role, "stage", reply, "echoed_prompt")
            return None
        return parse_stage(reply.text)

    async def _advise(self, engine: Any, role: str, text: str, stage: str, template: str) -> Verdict | None:
        profile = engine.instance.profiles["supervisor"]
        system = render(TEMPLATES, "supervisor.j2", {**profile, "reviewed": role})
        user = render(
            TEMPLATES,
            template,
            {
                "stage": stage,
                "less": profile["less"],
                "history": history_text(engine),
                "candidate": text,
                "accept_phrase": self.accept_phrase,
            },
        )
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        reply = await self.ask(
            engine, messages, purpose="review", context=self._context(engine, role, text, stage=stage)
        )
        if not reply.ok:
            self.failed(engine, role, "review", reply)
            return None
        if copies_prompt(reply.text, f"{system}\n{user}"):  # the request recited back is neither advice nor approval
            self.unusable(engine, role, "review", reply, "echoed_prompt")
            return None
        return parse_advice(reply.text, self.accept_phrase, LABEL)

    async def _style(self, engine: Any, text: str) -> str:
        """The style checker's suggestion when the candidate does not match the persona, else ''."""
        profile = engine.instance.profiles["supervisor"]
        prompt = render(TEMPLATES, "style.j2", {**profile, "candidate": text})
        reply = await self.ask(
            engine,
            [{"role": "user", "content": prompt}],
            purpose="style",
            context=self._context(engine, "client", text),
        )
        if not reply.ok:
            self.failed(engine, "client", "style", reply)
            return ""
        if not _STYLE_MISMATCH.search(reply.text):
            return ""
        found = _SUGGESTION.search(reply.text)
        return (found.group(1) if found else reply.text).strip().strip("*").strip()

    # ------------------------------------------------------------------ the revision (or replacement) call
    def revision_request(self, advice: str, draft: str) -> str:
        return render(TEMPLATES, "revise.j2", {"advice": advice, "draft": draft})

    def revise_messages(self, engine: Any, role: str, text: str, verdict: Verdict) -> list[dict[str, str]]:
        if not verdict.replace:
            return super().revise_messages(engine, role, text, verdict)
        profile = engine.instance.profiles["client"]
        prompt = render(TEMPLATES, "blur.j2", {**profile, "instruction": verdict.advice})
        return [{"role": "user", "content": prompt}]
