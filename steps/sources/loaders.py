"""The dataset -> loader registry used by the ingest flow."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from steps.sources import judgments, lawbench, mile, plawbench, ucl
from steps.sources.types import Fetched

Loader = Callable[[list[Fetched]], pd.DataFrame]

# One interim table per dataset name used in sources.yaml.
LOADERS: dict[str, Loader] = {
    "lawbench_items": lawbench.load_items,
    "lawbench_predictions": lawbench.load_predictions,
    "lawbench_published": lawbench.load_published,
    "lawbench_cilin": lawbench.load_cilin,
    "lawbench_confusions": lawbench.load_confusions,
    "mile": mile.load_mile,
    "ucl": ucl.load_ucl,
    "plawbench_case_analysis": plawbench.load_case_analysis,
    "plawbench_consultation": plawbench.load_consultation,
    "plawbench_drafting": plawbench.load_drafting,
    "judgments_criminal": judgments.load_criminal,
    "judgments_civil": judgments.load_civil,
}

__all__ = ["LOADERS", "Fetched", "Loader"]
