"""The model door against the real local model (llama.cpp, SmolLM2-135M), side by side with a bare httpx client.

Starts `jurisflow serve local` (the `[local]` extra; the weights are fetched and verified on first use), then at
each concurrency level sends N distinct prompts per round: through `ModelDoor` (litellm, cache off so that
every call reaches the server, retries on) and straight to the server with httpx. Both ask for exactly
`--max-tokens` new tokens (`ignore_eos`, so the model cannot stop early and both sides generate the same amount).
Prints calls/s, generated tokens/s and the client's CPU ms per call for each; for the door, its share of the wall
time (1 - its calls/s over httpx's: noisy on a shared machine) and its extra CPU over httpx's as a share of the
wall time (robust to load). The server runs at niceness 10 with 2 threads: the figures move with the machine's load.

    python perf/real_model_harness.py [--calls 6] [--rounds 2] [--max-tokens 64] [--levels 1 2] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from steps.llm import Decoding, LLMSettings, ModelConfig, ModelDoor, Request  # noqa: E402
from steps.llm.local_server import LOCAL_KEY_ENV, LOCAL_KEY_PLACEHOLDER  # noqa: E402

PROMPT = "请用两三句话解释：{i} 号案件中，劳动合同到期后用人单位不续签，劳动者能否要求经济补偿？"


def _serve(port: int) -> tuple[subprocess.Popen, str]:
    jurisflow = Path(sys.executable).parent / "jurisflow"
    cmd = [str(jurisflow), "serve", "local", "--port", str(port), "--n-parallel", "2"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    alias = ""
    for line in proc.stdout:
        if line.startswith("ready: "):
            named = re.search(r"openai/(\S+?),", line)
            alias = named.group(1) if named else ""
        if line.startswith("serving until interrupted"):
            return proc, alias
    raise RuntimeError(f"serve local exited with code {proc.wait()} before it was ready")


async def _door(api_base: str, alias: str, level: int, calls: int, max_tokens: int, tag: str) -> dict:
    door = ModelDoor(LLMSettings(concurrency=level, cache=False, timeout_s=300), run_id=f"real-{level}")
    decoding = Decoding(temperature=0, max_tokens=max_tokens, extra={"ignore_eos": True})
    model = ModelConfig(
        name="real", model=f"openai/{alias}", api_base=api_base, api_key_env=LOCAL_KEY_ENV, decoding=decoding
    )
    messages = [[{"role": "user", "content": PROMPT.format(i=f"{tag}-{i}")}] for i in range(calls)]
    cpu0, wall0 = time.process_time(), time.perf_counter()
    replies = await door.complete_many([Request(model, m, purpose="agent") for m in messages])
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    door.close()
    tokens = sum(r.completion_tokens for r in replies if r.ok)
    return {"calls": calls, "wall_s": wall, "cpu_s": cpu, "tokens": tokens, "failed": sum(not r.ok for r in replies)}


async def _direct(api_base: str, alias: str, level: int, calls: int, max_tokens: int, tag: str) -> dict:
    bound = asyncio.Semaphore(level)
    async with httpx.AsyncClient(timeout=300) as client:

        async def one(i: int) -> int:
            messages = [{"role": "user", "content": PROMPT.format(i=f"{tag}-{i}")}]
            body = {"model": alias, "messages": messages, "temperature": 0, "max_tokens": max_tokens}
            body["ignore_eos"] = True
            async with bound:
                response = await client.post(f"{api_base}/chat/completions", json=body)
            response.raise_for_status()
            return int(response.json()["usage"]["completion_tokens"])

        cpu0, wall0 = time.process_time(), time.perf_counter()
        tokens = await asyncio.gather(*(one(i) for i in range(calls)))
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    return {"calls": calls, "wall_s": wall, "cpu_s": cpu, "tokens": sum(tokens), "failed": 0}


def _sum(runs: list[dict]) -> dict:
    return {k: sum(r[k] for r in runs) for k in ("calls", "wall_s", "cpu_s", "tokens", "failed")}


def _row(harness: str, level: int, r: dict) -> dict:
    return {
        "harness": harness,
        "concurrency": level,
        "calls": r["calls"],
        "calls_per_s": round(r["calls"] / r["wall_s"], 3),
        "tokens_per_s": round(r["tokens"] / r["wall_s"], 1),
        "cpu_ms_per_call": round(1000 * r["cpu_s"] / r["calls"], 2),
        "failed": r["failed"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=6, help="calls per side per round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--port", type=int, default=8091)
    parser.add_argument("--json", action="store_true")
    from record import add_flag, record

    add_flag(parser)
    args = parser.parse_args()
    os.environ.setdefault(LOCAL_KEY_ENV, LOCAL_KEY_PLACEHOLDER)
    proc, alias = _serve(args.port)
    api_base = f"http://127.0.0.1:{args.port}/v1"
    rows: list[dict] = []
    try:
        # warm-up: the server's first calls pay one-off allocations, the door's first call imports litellm's
        # provider code; neither belongs to the steady state measured below
        asyncio.run(_direct(api_base, alias, 1, 2, 8, "warm-up"))
        asyncio.run(_door(api_base, alias, 1, 1, 8, "warm-up"))
        for level in args.levels:
            # The machine's load drifts: the two sides alternate in rounds (which goes first alternates too),
            # each round with its own prompts (no server prompt-cache reuse), and the totals are compared.
            totals: dict[str, list[dict]] = {"direct": [], "door": []}
            for r in range(args.rounds):
                shape = (api_base, alias, level, args.calls, args.max_tokens)
                order = ("direct", "door") if r % 2 == 0 else ("door", "direct")
                for side in order:
                    run = _direct if side == "direct" else _door
                    totals[side].append(asyncio.run(run(*shape, f"{side}{level}r{r}")))
            direct = _row("httpx (direct)", level, _sum(totals["direct"]))
            door = _row("ModelDoor", level, _sum(totals["door"]))
            # the door's share of the wall time: how much slower the same calls are through the harness
            door["harness_share"] = round(1 - door["calls_per_s"] / direct["calls_per_s"], 3)
            # the harness's extra CPU (over httpx's) as a share of the run's wall time: robust to the load drifting
            extra_cpu_s = (door["cpu_ms_per_call"] - direct["cpu_ms_per_call"]) / 1000
            door["harness_cpu_share"] = round(extra_cpu_s * door["calls_per_s"], 4)
            rows += [direct, door]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
    if args.record:
        figures = []
        for direct, door in zip(rows[::2], rows[1::2], strict=True):
            figures.append(
                (
                    f"concurrency {door['concurrency']} (SmolLM2-135M on `serve local`, "
                    f"{door['calls']} calls per side)",
                    f"httpx {direct['calls_per_s']} calls/s ({direct['tokens_per_s']} tokens/s), door "
                    f"{door['calls_per_s']} ({door['tokens_per_s']}); CPU per call: door {door['cpu_ms_per_call']} ms, "
                    f"httpx {direct['cpu_ms_per_call']} ms; the door's extra CPU {door['harness_cpu_share']:.2%} of "
                    "the wall time",
                )
            )
        record("Model door against a real local model", figures)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    header = f"{'harness':16} {'conc':>4} {'calls':>5} {'calls/s':>8} {'tok/s':>7} {'cpu ms/call':>11} {'failed':>6}"
    print(header + "  wall share  cpu share")
    for row in rows:
        cells = (
            f"{row['harness']:16} {row['concurrency']:>4} {row['calls']:>5} {row['calls_per_s']:>8} "
            f"{row['tokens_per_s']:>7}"
        )
        shares = f"{row.get('harness_share', ''):>10}  {row.get('harness_cpu_share', ''):>9}"
        print(f"{cells} {row['cpu_ms_per_call']:>11} {row['failed']:>6}  {shares}")


if __name__ == "__main__":
    main()
