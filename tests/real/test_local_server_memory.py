"""`jurisflow serve local` keeps its memory within the budget it prints: llama.cpp's host-RAM prompt cache, which
otherwise keeps every distinct prompt's KV state up to 8 GiB, is capped by `--cache-ram-mib` (issue 35, item 12).

The real server and model; distinct prompts two at a time, as an eval sends them. The cap is set small here so
that a short burst shows it: uncapped, the burst's prompts alone would hold ~100 MiB.
"""

from __future__ import annotations

import inspect
import re
from concurrent.futures import ThreadPoolExecutor

import httpx
import psutil
import pytest

from flows.cli import serve_local as serve_local_command
from perf.serving_memory import distinct_prompt
from steps.llm.local_server import DEFAULT_CACHE_RAM_MIB
from tests.real.realserver import key_env, serve_local

MIB = 1 << 20
CAP_MIB = 16
PROMPTS = 10  # ~520 tokens each: ~11 MiB of KV state a prompt for SmolLM2-135M (22.5 KiB a token)
# what the process may gain besides the prompt cache once both slots have served (allocator, HTTP threads); generous
SLACK_MIB = 40


def test_the_prompt_cache_is_capped_by_default():
    option = inspect.signature(serve_local_command).parameters["cache_ram_mib"].default
    assert option.default == DEFAULT_CACHE_RAM_MIB == 256


@pytest.mark.slow
@pytest.mark.e2e  # a real model server busy on both cores for over a minute: `make test-e2e`
@pytest.mark.timeout(1200)
def test_serve_local_prints_its_memory_budget_and_stays_within_its_prompt_cache_cap():
    extra = ("--cache-ram-mib", str(CAP_MIB), "--n-ctx", "4096", "--nice", "0")
    with serve_local(extra=extra) as server:
        budget = next(x for x in server.output if x.startswith("memory budget: "))
        assert re.search(r"model 94 MiB \+ KV cache 90 MiB \(4096 tokens x 22\.5 KiB\)", budget), budget
        assert f"prompt cache <= {CAP_MIB} MiB (--cache-ram-mib)" in budget, budget
        resident = next(x for x in server.output if x.startswith("server process "))
        process = psutil.Process(int(resident.split()[2].rstrip(":")))
        assert "steps.llm.local_server" in " ".join(process.cmdline())
        key = next(iter(key_env().values()))

        def ask(i: int) -> int:
            body = {
                "model": server.alias,
                "messages": [{"role": "user", "content": distinct_prompt(i, 120)}],
                "max_tokens": 2,
                "temperature": 0,
            }
            reply = httpx.post(
                f"{server.api_base}/chat/completions",
                json=body,
                headers={"Authorization": f"Bearer {key}"},
                timeout=600,
            )
            reply.raise_for_status()
            return reply.json()["usage"]["prompt_tokens"]

        with ThreadPoolExecutor(2) as pool:
            list(pool.map(ask, range(-2, 0)))  # both slots once: the compute buffers' pages are touched first
            start = process.memory_info().rss
            tokens = sum(pool.map(ask, range(PROMPTS)))
        grown = (process.memory_info().rss - start) / MIB
    uncapped = tokens * 22.5 / 1024
    assert uncapped > CAP_MIB + SLACK_MIB + 20, f"the burst ({tokens} tokens) is too small to show the cap"
    assert grown <= CAP_MIB + SLACK_MIB, (
        f"the server grew by {grown:.0f} MiB over {PROMPTS} distinct prompts ({tokens} tokens, ~{uncapped:.0f} MiB "
        f"of KV state) with --cache-ram-mib {CAP_MIB}"
    )
