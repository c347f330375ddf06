"""Accuracy of the judgment parser against the labels shipped with the data and a hand-checked fixture.

(a) Criminal: Criminal Law articles cited in a JuDGE full text vs the `la` labels, micro P/R/F1. The court's
    citations in the body count (reasoning, and in appeals the quoted first-instance judgment); the
    附：相关法律条文 appendix does not, since it restates the 依照 clause and the labels do not follow it
    consistently. 第一百三十三条之一 counts as 133, as in the labels.
(b) Civil: (law, article) pairs cited in the C3RD reasoning (本院认为 … 判决如下) vs `legal_basis`, law names
    normalised by `law_key` (versions dropped). `legal_basis` is the output of a law linker: it holds only laws
    in its library (no 民法典 or its interpretations in any of the 808 cases) and never links a title whose
    inner 《…》 was lost (《最高人民法院关于适用的解释》). Two figures are reported: `raw` (every citation), and
    `label_space` (both sides restricted to the laws the linker knows, i.e. that occur in the labels of the dev
    half; predicted citations whose law name was completed by rule rather than read are left out).
(c) Verdicts: per-defendant charges, prison months, probation months and fine vs a hand-read fixture.

Every figure is given for the dev half (rules were written while looking at these documents), the held-out
half (only looked at in aggregate, after the rules were fixed) and all documents. The split is the parity of
sha256(source_id), so it is reproducible and independent of the rules.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from steps.j1.extract.civil import parse_civil
from steps.j1.extract.criminal import parse_criminal
from steps.j1.extract.laws import law_key
from steps.j1.extract.model import ParsedCase, Statute
from steps.j1.extract.numerals import to_int

CRIMINAL_LAW = law_key("刑法")
FIXTURE_FIELDS = ("charges", "prison_months", "probation_months", "fine_yuan")
HALVES = ("dev", "heldout", "all")


def split_half(source_id: str) -> str:
    """'dev' or 'heldout' by the parity of sha256(source_id)."""
    return "dev" if int(hashlib.sha256(source_id.encode()).hexdigest(), 16) % 2 == 0 else "heldout"


@dataclass(frozen=True)
class Score:
    n_docs: int
    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict:
        return {
            "n_docs": self.n_docs,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
        }


def micro(pairs: Iterable[tuple[set, set]]) -> Score:
    """Micro-averaged counts over (predicted, gold) sets."""
    n = tp = fp = fn = 0
    for predicted, gold in pairs:
        n += 1
        tp += len(predicted & gold)
        fp += len(predicted - gold)
        fn += len(gold - predicted)
    return Score(n, tp, fp, fn)


def by_half(rows: pd.DataFrame, score: Callable[[pd.DataFrame], Score]) -> dict[str, dict]:
    """`score` on the dev half, the held-out half and all rows; `rows` has a `half` column."""
    subsets = {"dev": rows[rows["half"] == "dev"], "heldout": rows[rows["half"] == "heldout"], "all": rows}
    return {name: score(subset).as_dict() for name, subset in subsets.items()}


# ---------------------------------------------------------------- (a) criminal articles


def criminal_articles(case: ParsedCase) -> set[int]:
    """Criminal Law articles cited by the court (outside the appendix)."""
    return {s.article for s in case.statutes if law_key(s.law) == CRIMINAL_LAW and s.source != "appendix"}


def criminal_article_rows(criminal: pd.DataFrame) -> pd.DataFrame:
    """Per judgment: source_id, half, predicted and gold article sets."""
    rows = []
    for rec in criminal.itertuples(index=False):
        case = parse_criminal(rec.full_text, source_id=rec.source_id)
        gold = {int(a) for a in rec.articles}
        rows.append(
            {
                "source_id": rec.source_id,
                "half": split_half(rec.source_id),
                "pred": criminal_articles(case),
                "gold": gold,
            }
        )
    return pd.DataFrame(rows)


def score_criminal(criminal: pd.DataFrame) -> dict[str, dict]:
    rows = criminal_article_rows(criminal)
    return by_half(rows, lambda r: micro(zip(r["pred"], r["gold"], strict=True)))


# ---------------------------------------------------------------- (b) civil (law, article) pairs


def gold_pairs(legal_basis: Iterable[dict]) -> set[tuple[str, int]]:
    """(law key, article) pairs of a C3RD `legal_basis`; entries without a law or a readable 第…条 are skipped."""
    out = set()
    for entry in legal_basis:
        m = re.match(r"第([零〇一二两三四五六七八九十百千\d]+)条", entry.get("terms") or "")
        article = to_int(m.group(1)) if m else None
        if entry.get("law") and article:
            out.add((law_key(entry["law"]), article))
    return out


def civil_pairs(case: ParsedCase, *, keep: Callable[[Statute], bool] = lambda s: True) -> set[tuple[str, int]]:
    """(law key, article) pairs cited in the reasoning."""
    return {(law_key(s.law), s.article) for s in case.statutes if s.source == "reasoning" and keep(s)}


def civil_pair_rows(civil: pd.DataFrame) -> pd.DataFrame:
    """Per case: source_id, half, parsed case, gold pairs."""
    rows = []
    for row in civil.to_dict("records"):
        rows.append(
            {
                "source_id": row["source_id"],
                "half": split_half(row["source_id"]),
                "case": parse_civil(row),
                "gold": gold_pairs(row["legal_basis"]),
            }
        )
    return pd.DataFrame(rows)


def label_vocabulary(rows: pd.DataFrame) -> set[str]:
    """Laws the C3RD linker knows: those in the gold pairs of the dev half."""
    return {law for gold in rows.loc[rows["half"] == "dev", "gold"] for law, _ in gold}


def score_civil(civil: pd.DataFrame) -> dict[str, dict[str, dict]]:
    rows = civil_pair_rows(civil)
    vocabulary = label_vocabulary(rows)

    def comparable(s: Statute) -> bool:
        return not s.inferred and law_key(s.law) in vocabulary

    def raw(r: pd.DataFrame) -> Score:
        return micro((civil_pairs(c), g) for c, g in zip(r["case"], r["gold"], strict=True))

    def label_space(r: pd.DataFrame) -> Score:
        return micro(
            (civil_pairs(c, keep=comparable), {p for p in g if p[0] in vocabulary})
            for c, g in zip(r["case"], r["gold"], strict=True)
        )

    return {"raw": by_half(rows, raw), "label_space": by_half(rows, label_space)}


# ---------------------------------------------------------------- (c) verdict fixture


def fixture_rows(fixture: dict, criminal: pd.DataFrame) -> pd.DataFrame:
    """One row per (document, defendant, field): expected, parsed and whether they match exactly.

    Defendants are matched by name; a name the parser did not produce counts as a miss on every field.
    """
    texts = criminal.set_index("source_id")["full_text"]
    rows = []
    for source_id, expected in fixture.items():
        if source_id.startswith("_"):
            continue
        case = parse_criminal(texts[source_id], source_id=source_id)
        parsed = {d.name: d for d in case.defendants}
        for person in expected["defendants"]:
            got = parsed.get(person["name"])
            for name in FIXTURE_FIELDS:
                value = None if got is None else getattr(got, name)
                value = list(value) if name == "charges" and value is not None else value
                rows.append(
                    {
                        "source_id": source_id,
                        "half": expected["half"],
                        "defendant": person["name"],
                        "field": name,
                        "expected": person[name],
                        "parsed": value,
                        "match": got is not None and value == person[name],
                    }
                )
    return pd.DataFrame(rows)


def score_fixture(fixture: dict, criminal: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Exact-match rate per field for the dev half, the held-out half and all fixture defendants."""
    rows = fixture_rows(fixture, criminal)
    out: dict[str, dict[str, float]] = {}
    for half in HALVES:
        subset = rows if half == "all" else rows[rows["half"] == half]
        out[half] = {f: round(float(subset.loc[subset["field"] == f, "match"].mean()), 4) for f in FIXTURE_FIELDS}
        out[half]["n_defendants"] = int((subset["field"] == FIXTURE_FIELDS[0]).sum())
    return out


def figures(criminal: pd.DataFrame, civil: pd.DataFrame, fixture: dict) -> dict[str, dict]:
    """All three figures: criminal articles (a), civil pairs (b, raw and label_space) and the verdict fixture (c)."""
    return {
        "criminal_articles": score_criminal(criminal),
        "civil_pairs": score_civil(civil),
        "verdict_fixture": score_fixture(fixture, criminal),
    }


def main(argv: list[str]) -> None:
    """python -m steps.j1.extract.evaluate INTERIM_DIR FIXTURE_JSON: print all figures."""
    import json

    interim, fixture_path = Path(argv[0]), Path(argv[1])
    criminal = pd.read_parquet(interim / "judgments_criminal.parquet")
    civil = pd.read_parquet(interim / "judgments_civil.parquet")
    fixture = json.loads(fixture_path.read_text(encoding="utf-8"))
    print(json.dumps(figures(criminal, civil, fixture), ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
