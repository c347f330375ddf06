"""The provider list that model strings are checked against is litellm's own, and checking one does not load litellm."""

from __future__ import annotations

import subprocess
import sys

from steps.llm.providers import listed_providers, litellm_providers
from tests.conftest import ROOT


def test_the_kept_list_is_the_installed_litellms():
    kept, installed = set(listed_providers()), set(litellm_providers())
    assert kept == installed, (
        f"litellm's providers changed (new: {sorted(installed - kept)}, gone: {sorted(kept - installed)}): "
        "rewrite steps/llm/providers.txt with `python -m steps.llm.providers`"
    )
    assert {"openai", "hosted_vllm", "gemini", "deepseek"} <= kept


def test_loading_params_with_a_real_model_does_not_import_litellm(tmp_path):
    params = tmp_path / "params.yaml"
    params.write_text("agents:\n  a:\n    model: hosted_vllm/qwen\n    api_base: http://127.0.0.1:9/v1\n", "utf-8")
    code = (
        "import sys; from pathlib import Path; from flows.kit.config import load_params; "
        f"p = load_params(Path({str(params)!r})); print(p.agent('a').model, 'litellm' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["hosted_vllm/qwen", "False"]
