"""A served model's measured speed and tokenizer, and the wall time of a stage's calls from them.

`jurisflow models check` times a few fresh calls per real model (`CALIBRATION_PROBES`): a short prompt and a long
one with `max_tokens` 1 (prefill), and a short question that generates up to `GENERATION_TOKENS` tokens. From the
server's reported usage and the latencies it keeps a `Calibration`: the ratio of the server's prompt tokens to the
estimate's own count (litellm's `token_counter`, cl100k_base for a model it does not know), the overhead of a call,
prefill and generation tokens per second. `jurisflow estimate` scales its prompt-token counts by the ratio and turns
its recorded requests into a wall time (`stage_seconds`). A model that plays a judge is also asked
`JUDGE_PROBES`, short questions in the judges' two answer formats (a JSON object, a `[[d]]` verdict) with the
judge's own decoding: the share of answers that the judges' parsers cannot read is its `judge_repair_rate`, the
share of judge calls that will need a repair round, which the estimate plays (steps/llm/standin.py). Plain
functions: the record's file is the flows' business.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, fields
from typing import Any

GENERATION_TOKENS = 64  # what the generation probe asks for
UNMEASURED_TPS = 1e6  # a speed the probes cannot tell (the server's usage counts no difference): taken as free
_CLAUSE = (
    "根据《中华人民共和国民法典》第五百七十七条，当事人一方不履行合同义务或者履行合同义务不符合约定的，"
    "应当承担继续履行、采取补救措施或者赔偿损失等违约责任。"
)
# (name, messages, max_tokens): the short probe, the long prompt, the generation probe
CALIBRATION_PROBES: tuple[tuple[str, list[dict[str, str]], int], ...] = (
    ("short", [{"role": "user", "content": "请只回复两个字：收到。"}], 1),
    ("long", [{"role": "user", "content": _CLAUSE * 24 + "\n请只回复两个字：收到。"}], 1),
    (
        "generate",
        [{"role": "user", "content": "请用大约一百字说明劳动合同解除时用人单位应当支付经济补偿的情形。"}],
        GENERATION_TOKENS,
    ),
)


_ANSWER = "劳动者因用人单位未依法缴纳社会保险费而解除劳动合同的，用人单位应当向劳动者支付经济补偿。"
# (name, format, messages): format "json" asks for {"score": 1-10, "reason": "..."}, "verdict" for [[1]]/[[2]]/[[3]]
JUDGE_PROBES: tuple[tuple[str, str, list[dict[str, str]]], ...] = (
    (
        "score",
        "json",
        [
            {
                "role": "user",
                "content": "你是法律问答的评分员。"
                "问题：用人单位未缴纳社会保险费，劳动者解除劳动合同能否获得经济补偿？\n"
                f"回答：{_ANSWER}\n请按 1 到 10 分评价回答的准确性。"
                '只输出一个 JSON 对象，形如 {"score": 7, "reason": "一句话理由"}，不要输出其他内容。',
            }
        ],
    ),
    (
        "criterion",
        "json",
        [
            {
                "role": "user",
                "content": "请判断下面的回答是否提到了“经济补偿”这一要点。\n"
                f"回答：{_ANSWER}\n"
                '只输出一个 JSON 对象，形如 {"score": 10, "reason": "一句话理由"}：提到给 10 分，没有提到给 1 分。',
            }
        ],
    ),
    (
        "pair",
        "verdict",
        [
            {
                "role": "user",
                "content": "请比较两个回答哪一个更好地回答了问题。问题：试用期内用人单位能否随意解除劳动合同？\n"
                "回答一：不能，试用期内解除也需要证明劳动者不符合录用条件等法定情形。\n回答二：可以，试用期内随时解除。\n"
                "先用一两句话说明理由，最后单独一行写出结论：回答一更好写 [[1]]，回答二更好写 [[2]]，一样好写 [[3]]。",
            }
        ],
    ),
    (
        "order",
        "verdict",
        [
            {
                "role": "user",
                "content": "请比较两个回答哪一个更准确。问题：借款合同没有约定利息，出借人能否主张利息？\n"
                "回答一：可以，按市场利率计算。\n回答二：自然人之间的借款合同对支付利息没有约定的，视为没有利息。\n"
                "先用一两句话说明理由，最后单独一行写出结论：回答一更好写 [[1]]，回答二更好写 [[2]]，一样好写 [[3]]。",
            }
        ],
    ),
)


def calibration_key(model: str, api_base: str | None) -> str:
    """The record's key: the model string and where it is served (no key, no secret)."""
    return f"{model} @ {api_base or '-'}"


@dataclass(frozen=True)
class ProbeTiming:
    """One timed probe: our prompt-token count, the server's usage and the call's latency."""

    name: str
    counted_prompt: int
    prompt_tokens: int
    completion_tokens: int
    latency_s: float


@dataclass(frozen=True)
class Calibration:
    """What `models check` measured of one model at one endpoint."""

    model: str
    api_base: str
    prompt_ratio: float  # server-reported prompt tokens / the estimate's count
    overhead_s: float  # a call's latency beyond its tokens (the short probe)
    prefill_tps: float  # prompt tokens per second
    generation_tps: float  # completion tokens per second
    mean_latency_s: float
    probes: int
    measured_at: str  # ISO time, UTC
    judge_repair_rate: float | None = None  # share of the judge probes' answers no judge parser read (None: no judge)
    judge_probes: int = 0  # how many judge probes were asked

    def call_seconds(self, prompt_tokens: float, completion_tokens: float) -> float:
        """One call's latency on an idle slot: overhead + prefill + generation (prompt tokens as the server counts
        them, i.e. already scaled by `prompt_ratio`)."""
        return self.overhead_s + prompt_tokens / self.prefill_tps + completion_tokens / self.generation_tps

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Calibration:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def calibrate(model: str, api_base: str | None, timings: list[ProbeTiming], measured_at: str) -> Calibration:
    """The calibration from the probes' timings (`CALIBRATION_PROBES`' names): prefill speed from the long probe's
    extra prompt tokens over the short one's (`UNMEASURED_TPS` when the server reports no more tokens for it),
    generation speed from the generation probe's time beyond its prefill. Speeds are floored at 1 token/s and times
    at 1 ms, so a fast fake server gives finite figures."""
    by = {t.name: t for t in timings}
    short, long, gen = by["short"], by["long"], by["generate"]
    counted = sum(t.counted_prompt for t in timings)
    ratio = sum(t.prompt_tokens for t in timings) / counted if counted else 1.0
    overhead = max(short.latency_s, 0.0)
    extra = long.prompt_tokens - short.prompt_tokens  # 0: the server's usage does not count the prompt (a fake)
    prefill = max(extra / max(long.latency_s - overhead, 1e-3), 1.0) if extra > 0 else UNMEASURED_TPS
    gen_time = gen.latency_s - overhead - max(gen.prompt_tokens - short.prompt_tokens, 0) / prefill
    generation = max(max(gen.completion_tokens, 1) / max(gen_time, 1e-3), 1.0)
    return Calibration(
        model,
        api_base or "",
        round(ratio, 4),
        round(overhead, 4),
        round(prefill, 2),
        round(generation, 2),
        round(sum(t.latency_s for t in timings) / len(timings), 4),
        len(timings),
        measured_at,
    )


@dataclass(frozen=True)
class TimedCall:
    """One request of a stage for the wall time: its item (a dialogue's calls run one after another), where it is
    served and how many calls that endpoint takes at once, and its seconds (0 for a scripted model)."""

    item: str
    endpoint: str
    slots: int
    seconds: float


def stage_seconds(calls: Iterable[TimedCall]) -> float:
    """A stage's wall time, assuming its items run in parallel up to each endpoint's slots and each item's calls
    one after another: the larger of the longest item (its calls' sum) and, per endpoint, its calls' total over its
    slots (a lower bound of a perfect schedule; a real scheduler is close to it when items are many and even)."""
    chains: dict[str, float] = {}
    loads: dict[str, float] = {}
    slots: dict[str, int] = {}
    for c in calls:
        chains[c.item] = chains.get(c.item, 0.0) + c.seconds
        loads[c.endpoint] = loads.get(c.endpoint, 0.0) + c.seconds
        slots[c.endpoint] = max(1, c.slots)
    longest = max(chains.values(), default=0.0)
    busiest = max((load / slots[e] for e, load in loads.items()), default=0.0)
    return max(longest, busiest)
