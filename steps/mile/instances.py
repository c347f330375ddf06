"""MILE rows → engine instances, and the deterministic sample a run uses (spec maser-mile §1, §7.12).

Each role is given exactly what the paper gives it: the client its own particulars, the defendants, facts,
claims (substantive and costs apart), evidence and its persona (Big-Five personality, tone, content,
interaction, legal sense); the lawyer only the plaintiff type (MILE has no case analysis or statutes); the
supervisor the whole archive plus the persona and the withheld detail `less`. The ground truth (read by
metrics and, through call metadata, by the scripted oracle only) holds the parsed parties, the claims, facts,
evidence and the reference complaint.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pandas as pd

from steps.mile.parties import Party, parse_defendants, parse_plaintiff
from steps.simulate.instance import Instance

SCENARIO = "MILE"
_FACTS_LABEL = re.compile(r"^\s*事实(?:和|与)理由[：:]\s*")
NO_EVIDENCE = frozenset({"null", "none", "无", "暂无"})


def facts_text(case_r_f: str) -> str:
    """`case_r_f` without the literal 事实和理由： label that 11 instances start with."""
    return _FACTS_LABEL.sub("", case_r_f).strip()


def evidence_items(items: list[str]) -> list[str]:
    """The evidence list without the literal placeholder `null` (6 instances) and blank items."""
    return [e.strip() for e in items if e.strip() and e.strip().lower() not in NO_EVIDENCE]


def defendants_text(defendants: list[Party]) -> str:
    return "；".join(f"{d.role}：{d.describe()}" for d in defendants)


def _party_record(p: Party) -> dict[str, Any]:
    return {"role": p.role, "kind": p.kind, "fields": dict(p.fields)}


def persona(row: Any) -> dict[str, str]:
    return {
        "personality": row.personality,
        "tone": row.speak_style_tone,
        "content": row.speak_style_content,
        "interaction": row.speak_style_interaction,
        "law_level": row.law_level.strip(),
    }


def build_instance(row: Any, *, supervise_lawyer: bool = False) -> Instance:
    """One engine instance from one row of the `mile` table."""
    plaintiff = parse_plaintiff(row.plaintiff, row.plaintiff_type)
    defendants = parse_defendants(row.defendant)
    kind = plaintiff.kind
    case = {
        "claim": row.claim_substantive.strip(),
        "costs": row.claim_costs.strip(),
        "facts": facts_text(row.case_r_f),
        "evidence": evidence_items(list(row.evidence)),
    }
    parties = {
        "plaintiff_fields": dict(plaintiff.fields),
        "defendant_records": [_party_record(d) for d in defendants],
        "less": row.less,
    }
    client = {
        "kind": kind,
        "basic_info": plaintiff.describe(),
        "defendants": defendants_text(defendants),
        **case,
        **persona(row),
        **parties,
    }
    supervisor = {
        "kind": kind,
        "plaintiff": plaintiff.describe(),
        "defendants": defendants_text(defendants),
        **case,
        **persona(row),
        **parties,
    }
    truth = {"kind": kind, "law_reason": row.law_reason, "output": row.output, **case, **parties}
    return Instance(
        instance_id=row.instance_id,
        scenario=SCENARIO,
        profiles={"client": client, "lawyer": {"kind": kind, "supervised": supervise_lawyer}, "supervisor": supervisor},
        ground_truth=truth,
    )


def sample_rows(mile: pd.DataFrame, size: int | None, seed: int) -> pd.DataFrame:
    """A deterministic sample of `size` instances stratified by `law_reason` (None: all, in id order).

    Each cause of action gets its share by largest remainder (at least one when it fits); within a cause
    the rows with the smallest sha256(seed:instance_id) are taken. The result is in id order.
    """
    if size is None or size >= len(mile):
        return mile.sort_values("id").reset_index(drop=True)
    if size < 1:
        raise ValueError(f"mile.sample must be at least 1, got {size}")
    counts = mile.law_reason.value_counts().sort_index()
    exact = counts / counts.sum() * size
    quota = exact.astype(int)
    for reason in (exact - quota).sort_values(ascending=False, kind="stable").index[: size - int(quota.sum())]:
        quota[reason] += 1
    rank = mile.instance_id.map(lambda i: hashlib.sha256(f"{seed}:{i}".encode()).hexdigest())
    ranked = mile.assign(_rank=rank).sort_values("_rank", kind="stable")
    picked = pd.concat([ranked[ranked.law_reason == r].head(int(q)) for r, q in quota.items() if q > 0])
    return picked.drop(columns="_rank").sort_values("id").reset_index(drop=True)
