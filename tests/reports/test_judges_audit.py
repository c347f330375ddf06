"""The judge audit (steps/reports/judges.py) on hand-made judged tables: failures, repairs, flips, self-preference."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from steps.reports.judges import audit, family, render, self_preference


def _rows(judge: str, proxy: bool, rows: list[tuple]) -> pd.DataFrame:
    """Judged rows from (item_id, order, outcome, value, failure, attempts)."""
    frame = pd.DataFrame(rows, columns=["item_id", "order", "outcome", "value", "failure", "attempts"])
    return frame.assign(
        judge=judge, judge_prompt_version=f"v1@{judge[:3]}", judge_proxy=proxy, error="", truncated=False
    )


def _write(tmp_path: Path, bench: str, agent: str, table: str, frame: pd.DataFrame) -> tuple[dict, Path]:
    path = tmp_path / bench / "runs" / agent / f"{table}.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_parquet(path)
    return {"benchmark": bench, "table": table}, path


def test_failures_repairs_and_order_flips_are_counted(tmp_path):
    verdicts = _rows(
        "openai/qwen3-8b",
        False,
        [
            ("A", "candidate_first", "win", 1.0, None, 1),
            ("A", "reference_first", "win", 1.0, None, 1),  # A: same outcome both ways
            ("B", "candidate_first", "win", 1.0, None, 2),  # a repair round
            ("B", "reference_first", "lose", 0.0, None, 1),  # B flips
            ("C", "candidate_first", "tie", 0.5, None, 1),
            ("C", "reference_first", None, None, "unparsable", 2),  # C: one order only, no pair
            ("D", "candidate_first", None, None, "out_of_range", 2),
            ("D", "reference_first", None, None, "call_failed", 0),  # no call answered: not a repair
        ],
    )
    rule = _rows("rule", False, [("E", "candidate_first", None, 0.0, None, 0)])  # a rule value: not audited
    files = [_write(tmp_path, "ucl", "qwen", "verdicts", pd.concat([verdicts, rule], ignore_index=True))]
    out = audit(files, {"qwen": "openai/qwen3-32b"})
    assert len(out) == 1
    row = out.iloc[0].to_dict()
    assert (row["judged"], row["valued"], row["unparsable"], row["out_of_range"], row["call_failed"]) == (8, 5, 1, 1, 1)
    assert row["unparsable_pct"] == 12.5  # 1 of 8 asked
    assert (row["repaired"], row["calls"]) == (3, 10)  # B, C and D took 2 calls where the fewest took 1
    assert (row["order_pairs"], row["flipped"], row["flip_pct"]) == (2, 1, 50.0)  # A and B answered both ways
    assert row["self_preference"] == "same family"


def test_a_table_without_orders_has_no_flip_rate_and_the_proxy_is_never_flagged(tmp_path):
    scores = _rows("scripted/judge", True, [("A", "x", None, 0.5, None, 1)]).drop(columns=["order", "outcome"])
    files = [_write(tmp_path, "mile", "oracle", "scores", scores)]
    out = audit(files, {"oracle": "scripted/judge"})
    assert out.iloc[0].order_pairs == 0 and pd.isna(out.iloc[0].flip_pct)
    assert out.iloc[0].self_preference == ""
    text = render(out)
    assert (
        "| mile | scores | oracle | `scripted/judge [proxy]` | v1 (1) | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 1 | 0 | — | — |"
        in text
    )
    assert "no human labels ship" in text
    only_rules = _rows("rule", False, [("A", "x", None, 0.0, None, 0)])
    assert audit([_write(tmp_path, "j1", "oracle", "scores", only_rules)], {}).empty  # nothing a judge was asked


def test_self_preference_by_model_and_family():
    assert family("openai/gpt-4o-2024-11-20") == "gpt" and family("hosted_vllm/Qwen/Qwen3-32B") == "qwen"
    assert self_preference("openai/gpt-4o", "azure/gpt-4o", False) == "same model"
    assert self_preference("openai/gpt-4o-mini", "openai/gpt-4o", False) == "same family"
    assert self_preference("deepseek/deepseek-chat", "openai/gpt-4o", False) == ""
    assert self_preference("openai/gpt-4o", None, False) == ""
