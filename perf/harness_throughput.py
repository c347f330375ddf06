"""Throughput of the model door against an OpenAI-compatible server with a fixed latency.

Starts the test server (tests/fake_openai_server.py) in its own process, then for each concurrency level
sends N distinct calls through `ModelDoor` (litellm, cache on, retries on) and prints achieved calls/s next
to the ideal (concurrency / latency), their ratio, and the harness CPU milliseconds per call. With
`--floor`, the same calls are also sent by a bare aiohttp client (no litellm, no cache): the floor that any
harness on this machine and server could reach, to show how much of the cost is litellm's.

    python perf/harness_throughput.py [--calls 2000] [--latency 0.1] [--levels 1 8 32 128] [--json] [--floor]
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from serving import start_server  # noqa: E402

from steps.llm import LLMSettings, ModelConfig, ModelDoor, Request  # noqa: E402


def _start_server(latency: float) -> tuple[subprocess.Popen, str]:
    return start_server(
        lambda port: [sys.executable, "-m", "tests.fake_openai_server", "--port", str(port), "--latency", str(latency)],
        ROOT,
    )


async def _run(url: str, concurrency: int, calls: int, cache_dir: Path) -> dict:
    settings = LLMSettings(concurrency=concurrency, cache_dir=str(cache_dir))
    door = ModelDoor(settings, run_id=f"bench-{concurrency}")
    model = ModelConfig(name="bench", model="hosted_vllm/test-model", api_base=url)
    requests = [
        Request(model, [{"role": "user", "content": f"c{concurrency} call {i}"}], purpose="agent") for i in range(calls)
    ]
    cpu0, wall0 = time.process_time(), time.perf_counter()
    replies = await door.complete_many(requests)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    door.close()
    failed = sum(not r.ok for r in replies)
    return {"calls": calls, "wall_s": wall, "cpu_s": cpu, "failed": failed}


async def _run_floor(url: str, concurrency: int, calls: int) -> dict:
    import aiohttp

    bound = asyncio.Semaphore(concurrency)
    async with aiohttp.ClientSession() as session:

        async def one(i: int) -> None:
            body = {"model": "test-model", "messages": [{"role": "user", "content": f"floor {i}"}]}
            async with bound, session.post(f"{url}/chat/completions", json=body) as response:
                await response.json()

        cpu0, wall0 = time.process_time(), time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(calls)))
        return {"calls": calls, "wall_s": time.perf_counter() - wall0, "cpu_s": time.process_time() - cpu0, "failed": 0}


def _row(harness: str, level: int, latency: float, r: dict) -> dict:
    return {
        "harness": harness,
        "concurrency": level,
        "calls_per_s": round(r["calls"] / r["wall_s"], 2),
        "ideal_calls_per_s": round(level / latency, 2),
        "ratio": round((r["calls"] / r["wall_s"]) / (level / latency), 3),
        "cpu_ms_per_call": round(1000 * r["cpu_s"] / r["calls"], 3),
        "failed": r["failed"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 8, 32, 128])
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("--floor", action="store_true", help="also measure a bare aiohttp client")
    from record import add_flag, record

    add_flag(parser)
    args = parser.parse_args()
    figures = []
    proc, url = _start_server(args.latency)
    try:
        if not args.json:
            print(
                f"{'harness':>8} {'concurrency':>11} {'calls/s':>9} {'ideal':>9} {'ratio':>6} {'cpu ms/call':>12} "
                f"{'failed':>7}"
            )
        for level in args.levels:
            with tempfile.TemporaryDirectory() as cache_dir:
                rows = [_row("door", level, args.latency, asyncio.run(_run(url, level, args.calls, Path(cache_dir))))]
            if args.floor:
                rows.append(_row("aiohttp", level, args.latency, asyncio.run(_run_floor(url, level, args.calls))))
            figures.append(
                (
                    f"concurrency {level}, test server at {args.latency} s, {args.calls} calls "
                    f"(ideal {rows[0]['ideal_calls_per_s']} calls/s)",
                    "; ".join(
                        f"{r['harness']} {r['calls_per_s']} calls/s, {r['cpu_ms_per_call']} ms CPU per call"
                        for r in rows
                    ),
                )
            )
            for row in rows:
                if args.json:
                    print(json.dumps(row), flush=True)
                else:
                    print(
                        f"{row['harness']:>8} {level:>11} {row['calls_per_s']:>9} {row['ideal_calls_per_s']:>9} "
                        f"{row['ratio']:>6} {row['cpu_ms_per_call']:>12} {row['failed']:>7}",
                        flush=True,
                    )
    finally:
        proc.terminate()
        proc.wait(10)
    if args.record:
        record("Model door throughput", figures)


if __name__ == "__main__":
    main()
