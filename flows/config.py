"""Typed parameters: `params.yaml` is validated once, here, into frozen pydantic models."""

from __future__ import annotations

import os
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict

PARAMS_FILE = Path("params.yaml")
MANIFEST_FILE = Path("sources.yaml")
CACHE_DIR = Path(".cache")


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SourcesParams(_Section):
    mirror: str | None = "../shared/data"
    download: bool = True
    timeout_s: float = 60.0

    def mirror_dir(self) -> Path | None:
        """The mirror directory: JURISFLOW_MIRROR if set, else `mirror` when that directory exists."""
        env = os.environ.get("JURISFLOW_MIRROR")
        if env:
            return Path(env)
        if self.mirror and Path(self.mirror).is_dir():
            return Path(self.mirror)
        return None


class Params(_Section):
    sources: SourcesParams = SourcesParams()


def load_params(path: Path = PARAMS_FILE) -> Params:
    """Read and validate the parameters file (defaults apply to absent sections)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return Params.model_validate(data or {})
