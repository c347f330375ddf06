"""Throughput of the dialogue engine: N civil-court (CI) dialogues against the test server, side by side with the
ideal, at several concurrency levels.

The OpenAI-compatible test server (tests/fake_openai_server.py) runs in its own process with a fixed latency and
plays both sides: the presiding judge (the agent) runs a short trial of `--trial` actions, each addressed to one
lawyer with a control sentence, then gives a judgment with the end marker; the lawyers (the environment) answer.
Every call goes the real way: engine → runner (journal) → model door (litellm, cache, bounds) → HTTP.

For each level it prints dialogues/minute and model calls/s next to the ideal, their ratio, and the harness CPU
milliseconds per turn. Turns inside a dialogue are sequential, so with C dialogues in flight and latency L the
ideal is C / L calls per second and 60 · C / (L · calls per dialogue) dialogues per minute.

    python perf/simulation_throughput.py [--dialogues 200] [--latency 0.1] [--levels 8 64] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from serving import start_server  # noqa: E402

from steps.j1.envs.registry import SCENARIOS  # noqa: E402
from steps.llm import LLMSettings, ModelConfig, ModelDoor  # noqa: E402
from steps.simulate.instance import Instance  # noqa: E402
from steps.simulate.journal import Journal  # noqa: E402
from steps.simulate.runner import DoorSpeaker, simulate  # noqa: E402

JUDGMENT = (
    "本院认为，原告的诉讼请求有事实和法律依据，本院予以支持。依照《中华人民共和国民法典》第六百七十五条的规定，"
    "判决如下：\n被告于本判决生效之日起十日内偿还原告借款。\n<结束庭审>"
)


def court_reply(body: dict, trial: int) -> str:
    """The judge runs `trial` addressed actions, then judges; a lawyer answers what it is asked."""
    system = body["messages"][0]["content"]
    if "你是本案的审判长" not in system:
        return "好的，我方意见如下：请求法庭依法支持我方的主张。"
    said = sum(m["role"] == "assistant" for m in body["messages"])
    if said >= trial:
        return JUDGMENT
    return ("对原告说：" if said % 2 == 0 else "对被告说：") + f"请就第{said + 1}个问题发表意见。"


def serve(port: int, latency: float, trial: int) -> None:
    from tests.fake_openai_server import FakeOpenAIServer

    FakeOpenAIServer(reply=lambda body: court_reply(body, trial), latency_s=latency).start(port)
    while True:
        time.sleep(3600)


def _start_server(latency: float, trial: int) -> tuple[subprocess.Popen, str]:
    return start_server(
        lambda port: [sys.executable, __file__, "--serve", str(port), "--latency", str(latency), "--trial", str(trial)],
        ROOT,
    )


def ci_instances(n: int) -> list[Instance]:
    """N distinct CI instances (each role's profile as the CI models define it)."""
    out = []
    for i in range(n):
        p, d = f"姓名：原告{i}号", f"姓名：被告{i}号"
        profiles: dict[str, dict[str, Any]] = {
            "judge": {"plaintiff_info": p, "defendant_info": d, "findings": f"第{i}号案件：被告向原告借款一万元未还。"},
            "plaintiff_lawyer": {
                "client_info": p,
                "defendant_info": d,
                "facts_and_reasons": "借款未还。",
                "claims": ["偿还借款一万元"],
                "evidences": ["借条"],
                "refute": None,
                "other_statement": None,
            },
            "defendant_lawyer": {
                "client_info": d,
                "plaintiff_info": p,
                "claims": "已经还过一部分。",
                "evidences": ["转账记录"],
                "refute": None,
                "other_statement": None,
            },
        }
        out.append(Instance(f"CI/bench/{i}", "CI", profiles, {}, SCENARIOS["CI"].ending.max_turns))
    return out


async def _run(url: str, level: int, instances: list[Instance], workdir: Path) -> dict:
    door = ModelDoor(LLMSettings(concurrency=max(level, 1), cache_dir=str(workdir / "cache")), run_id=f"b{level}")
    agent = ModelConfig(name="judge", model="hosted_vllm/test-model", api_base=url)
    environment = ModelConfig(name="environment", model="hosted_vllm/test-model", api_base=url)
    journal = Journal(workdir / "journal.jsonl")
    cpu0, wall0 = time.process_time(), time.perf_counter()
    dialogues = await simulate(
        instances, lambda i: SCENARIOS["CI"], DoorSpeaker(door, agent, environment), journal, max_concurrent=level
    )
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    journal.close()
    door.close()
    calls = sum(1 for u in door.usage if u.failure_kind is None)
    turns = sum(len(d.utterances()) for d in dialogues)
    ended = {d.ended_by.value if d.ended_by else "unended" for d in dialogues}
    return {
        "dialogues": len(dialogues),
        "turns": turns,
        "calls": calls,
        "wall_s": wall,
        "cpu_s": cpu,
        "failed": sum(u.failure_kind is not None for u in door.usage),
        "ended": sorted(ended),
    }


def _row(level: int, latency: float, r: dict) -> dict:
    per_dialogue = r["calls"] / r["dialogues"]
    ideal_calls = level / latency
    return {
        "concurrency": level,
        "dialogues": r["dialogues"],
        "calls_per_dialogue": round(per_dialogue, 1),
        "dialogues_per_min": round(60 * r["dialogues"] / r["wall_s"], 1),
        "ideal_dialogues_per_min": round(60 * ideal_calls / per_dialogue, 1),
        "calls_per_s": round(r["calls"] / r["wall_s"], 1),
        "ideal_calls_per_s": round(ideal_calls, 1),
        "ratio": round((r["calls"] / r["wall_s"]) / ideal_calls, 3),
        "cpu_ms_per_turn": round(1000 * r["cpu_s"] / r["turns"], 2),
        "failed": r["failed"],
        "ended": r["ended"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dialogues", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--levels", type=int, nargs="+", default=[8, 64])
    parser.add_argument("--trial", type=int, default=12, help="addressed judge actions before the judgment")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    from record import add_flag, record

    add_flag(parser)
    args = parser.parse_args()
    figures = []
    if args.serve:
        serve(args.serve, args.latency, args.trial)
        return
    proc, url = _start_server(args.latency, args.trial)
    header = ("concurrency", "dialogues/min", "ideal", "calls/s", "ideal", "ratio", "cpu ms/turn", "failed")
    try:
        if not args.json:
            print(f"{args.dialogues} CI dialogues, latency {args.latency} s, {args.trial} judge actions + judgment")
            print(" ".join(f"{h:>13}" for h in header))
        for level in args.levels:
            with tempfile.TemporaryDirectory() as workdir:
                raw = asyncio.run(_run(url, level, ci_instances(args.dialogues), Path(workdir)))
            row = _row(level, args.latency, raw)
            figures.append(
                (
                    f"{args.dialogues} CI court dialogues, concurrency {level} "
                    f"(ideal {row['ideal_dialogues_per_min']} dialogues/min)",
                    f"{row['dialogues_per_min']} dialogues/min; {row['cpu_ms_per_turn']} ms harness CPU per turn",
                )
            )
            if args.json:
                print(json.dumps(row), flush=True)
            else:
                cells = (
                    level,
                    row["dialogues_per_min"],
                    row["ideal_dialogues_per_min"],
                    row["calls_per_s"],
                    row["ideal_calls_per_s"],
                    row["ratio"],
                    row["cpu_ms_per_turn"],
                    row["failed"],
                )
                print(" ".join(f"{c:>13}" for c in cells) + f"   ended: {', '.join(row['ended'])}", flush=True)
    finally:
        proc.terminate()
        proc.wait(10)
    if args.record:
        record("Dialogue engine throughput", figures)


if __name__ == "__main__":
    main()
