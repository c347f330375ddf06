"""Resident memory of `jurisflow serve local` under an eval-like load: many distinct long prompts, two at a time.

Starts `jurisflow serve local` on a free port (arguments after `--` go to it, e.g. `-- --cache-ram-mib 8192`),
sends distinct prompts from `--parallel` client threads for `--minutes`, reads the llama.cpp process's RSS
(psutil) after every reply, and prints the start RSS, the RSS after each `--every` requests, the peak, and the
growth per 100 requests and per 1000 prompt tokens. Rerun:

    .venv/bin/python perf/serving_memory.py --minutes 5
    .venv/bin/python perf/serving_memory.py --minutes 5 -- --cache-ram-mib 8192   # llama.cpp's default
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[1]
JURISFLOW = Path(sys.executable).parent / "jurisflow"
MIB = 1 << 20
# Words of a Chinese legal question, shuffled into distinct prompts (no two share a long prefix, as in an eval
# whose prompts differ from the first case detail on).
VOCABULARY = (
    "原告 被告 合同 违约 赔偿 判决 上诉 法院 证据 事实 条款 责任 损失 利息 借款 担保 抵押 租赁 买卖 侵权 劳动 工资 "
    "解除 继承 遗嘱 婚姻 离婚 抚养 财产 分割 刑法 盗窃 诈骗 故意 伤害 量刑 缓刑 罚金 自首 立功 the plaintiff claims "
    "damages under article of the contract law and the court finds that"
)


def distinct_prompt(i: int, words: int) -> str:
    """Request `i`'s prompt: a numbered case, then `words` words drawn with seed `i` (every prompt differs early)."""
    rng = random.Random(i)
    words_of = VOCABULARY.split()
    body = " ".join(rng.choice(words_of) for _ in range(words))
    return f"案件 {i}：{body}\n问题：本案应如何判决？请只回答一个词。"


def start_serve_local(extra: list[str]) -> tuple[subprocess.Popen, str, list[str]]:
    """`jurisflow serve local` on a free port; its process, API base and start-up lines once it serves."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [str(JURISFLOW), "serve", "local", "--port", str(port), "--cache-dir", str(ROOT / ".cache" / "models")]
    proc = subprocess.Popen(cmd + extra, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    lines: list[str] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.append(line.rstrip("\n"))
        if line.startswith("serving until interrupted"):
            return proc, f"http://127.0.0.1:{port}/v1", lines
    raise RuntimeError("serve local did not start:\n" + "\n".join(lines))


def server_process(proc: subprocess.Popen) -> psutil.Process:
    """The llama.cpp process: the `steps.llm.local_server` child of `serve local`."""
    children = psutil.Process(proc.pid).children(recursive=True)
    return next(c for c in children if "steps.llm.local_server" in " ".join(c.cmdline()))


def main(argv: list[str] | None = None) -> int:
    raw = sys.argv[1:] if argv is None else argv
    extra = raw[raw.index("--") + 1 :] if "--" in raw else []
    own = raw[: raw.index("--")] if "--" in raw else raw
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5, help="stop sending new prompts after so many minutes")
    parser.add_argument("--requests", type=int, default=1000, help="at most so many distinct prompts")
    parser.add_argument("--parallel", type=int, default=2, help="requests in flight at once")
    parser.add_argument("--words", type=int, default=300, help="words per prompt (about 4 tokens each)")
    parser.add_argument("--max-tokens", type=int, default=4, help="tokens generated per reply")
    parser.add_argument("--every", type=int, default=10, help="print the RSS after every so many requests")
    from record import add_flag, record

    add_flag(parser)
    args = parser.parse_args(own)
    # SIGTERM (a `timeout`) ends the run like Ctrl-C: the server is stopped and the figures so far are printed
    signal.signal(signal.SIGTERM, signal.default_int_handler)

    proc, api_base, lines = start_serve_local(extra)
    budget = next((x for x in lines if x.startswith("memory budget")), "memory budget: not printed")
    print(f"serve local {' '.join(extra)}: {budget}", flush=True)
    server = server_process(proc)
    start_rss = peak = server.memory_info().rss
    began = time.monotonic()
    count = prompt_tokens = 0
    lock = threading.Lock()
    client = httpx.Client(timeout=900)

    def one(i: int) -> None:
        nonlocal count, prompt_tokens, peak
        if time.monotonic() - began > args.minutes * 60:
            return
        body = {
            "model": "smollm2-135m",
            "messages": [{"role": "user", "content": distinct_prompt(i, args.words)}],
            "max_tokens": args.max_tokens,
            "temperature": 0,
        }
        reply = client.post(f"{api_base}/chat/completions", json=body)
        reply.raise_for_status()
        rss = server.memory_info().rss
        with lock:
            count += 1
            prompt_tokens += reply.json()["usage"]["prompt_tokens"]
            peak = max(peak, rss)
            if count % args.every == 0:
                elapsed = time.monotonic() - began
                done = f"{count} requests ({prompt_tokens} prompt tokens, {elapsed / 60:.1f} min)"
                print(f"  after {done}: RSS {rss / MIB:.0f} MiB", flush=True)

    try:
        with ThreadPoolExecutor(args.parallel) as pool:
            list(pool.map(one, range(args.requests)))
    except KeyboardInterrupt:
        print("  interrupted: the figures below cover the requests answered so far", flush=True)
    finally:
        end_rss = server.memory_info().rss
        minutes = (time.monotonic() - began) / 60
        proc.send_signal(signal.SIGINT)
        proc.wait(60)
    grown = (end_rss - start_rss) / MIB
    per_prompt = prompt_tokens / max(count, 1)
    print(f"command: {' '.join([os.path.relpath(sys.argv[0], ROOT), *raw])}")
    print(
        f"{count} distinct prompts, {args.parallel} at a time, {per_prompt:.0f} prompt tokens each, {minutes:.1f} min"
    )
    print(f"RSS at start {start_rss / MIB:.0f} MiB, at end {end_rss / MIB:.0f} MiB, peak {peak / MIB:.0f} MiB")
    per_100 = grown / max(count, 1) * 100
    per_1k_tokens = grown / max(prompt_tokens, 1) * 1000
    print(f"growth {grown:.0f} MiB: {per_100:.0f} MiB per 100 requests, {per_1k_tokens:.1f} MiB per 1000 prompt tokens")
    if args.record:
        prompts = f"{count} distinct prompts of {per_prompt:.0f} tokens, {args.parallel} at a time"
        figure = f"`serve local {' '.join(extra)}`: {prompts}"
        value = (
            f"{start_rss / MIB:.0f} MiB at start, {end_rss / MIB:.0f} at end, peak {peak / MIB:.0f}; "
            f"+{per_1k_tokens:.1f} MiB per 1,000 prompt tokens"
        )
        record("serve local: memory", [(figure, value)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
