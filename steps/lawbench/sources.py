"""LawBench's interim tables (stage `ingest`): task items, published predictions and published scores (spec
lawbench.md §3), and task 2-1's lexicons; each table's loader and schema."""

from __future__ import annotations

from pathlib import PurePosixPath

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

from steps.lawbench.metrics.tasks import SETTINGS, TASK_IDS
from steps.lawbench.sql import QUERIES
from steps.registry import SourceTable
from steps.schemas.base import Strict
from steps.sources.errors import SourceFormatError
from steps.sources.readers import read_csv_records, read_json, read_json_array, require_keys
from steps.sources.types import Fetched


def _setting_and_task(path: str, label: str) -> tuple[str, str]:
    parts = PurePosixPath(path).parts
    setting, task = parts[2], PurePosixPath(path).stem
    if setting not in SETTINGS or task not in TASK_IDS:
        raise SourceFormatError(label, "path", f"expected .../<zero_shot|one_shot>/<task id>.json, got {path}")
    return setting, task


def load_items(files: list[Fetched]) -> pd.DataFrame:
    """`data/<setting>/<task>.json`: a JSON array of {instruction, question, answer}."""
    rows = []
    for f in files:
        label = str(f.local)
        setting, task = _setting_and_task(f.source.path, label)
        records = read_json_array(f.local, label, of="items")
        for idx, rec in enumerate(records):
            require_keys(rec, ["instruction", "question", "answer"], file=label, where=f"item {idx}")
            rows.append(
                {
                    "item_id": f"{setting}/{task}/{idx}",
                    "setting": setting,
                    "task": task,
                    "idx": idx,
                    "instruction": rec["instruction"],
                    "question": rec["question"],
                    "answer": rec["answer"],
                }
            )
    return pd.DataFrame(rows)


def parse_prediction_record(rec: object, *, label: str, where: str) -> tuple[str, str | None, str, str]:
    """One prediction value -> (prompt text, prompt role or None, prediction, reference).

    `origin_prompt` is either the templated prompt string (local models) or a one-element chat list
    `[{"role": "HUMAN", "prompt": ...}]` (API models); the role is kept so the file can be rebuilt.
    """
    rec = require_keys(rec, ["origin_prompt", "prediction", "refr"], file=label, where=where)
    origin = rec["origin_prompt"]
    if isinstance(origin, str):
        prompt, role = origin, None
    elif isinstance(origin, list) and len(origin) == 1 and isinstance(origin[0], dict) and "prompt" in origin[0]:
        prompt, role = origin[0]["prompt"], str(origin[0].get("role", ""))
    else:
        raise SourceFormatError(label, where, "origin_prompt must be a string or a one-element [{role, prompt}] list")
    for key in ("prediction", "refr"):
        if not isinstance(rec[key], str):
            raise SourceFormatError(label, where, f"'{key}' must be a string, found {type(rec[key]).__name__}")
    return prompt, role, rec["prediction"], rec["refr"]


def prediction_rows(obj: object, *, label: str, setting: str, model: str, task: str) -> list[dict]:
    """The rows of one prediction file's JSON: an object keyed "0".."n-1" in index order."""
    if not isinstance(obj, dict):
        raise SourceFormatError(label, "top level", f"model {model} task {task}: expected an object keyed by index")
    rows = []
    for idx in range(len(obj)):
        where = f"model {model} task {task} item {idx}"
        if str(idx) not in obj:
            raise SourceFormatError(label, where, "item indices must run 0..n-1 without gaps")
        prompt, role, prediction, reference = parse_prediction_record(obj[str(idx)], label=label, where=where)
        rows.append(
            {
                "setting": setting,
                "model": model,
                "task": task,
                "idx": idx,
                "prompt": prompt,
                "prompt_role": role,
                "prediction": prediction,
                "reference": reference,
            }
        )
    return rows


def load_predictions(files: list[Fetched]) -> pd.DataFrame:
    """`predictions/<setting>/<model>/<task>.json`: an object keyed "0".."499" in index order."""
    rows = []
    for f in files:
        label = str(f.local)
        parts = PurePosixPath(f.source.path).parts
        setting, model, task = parts[2], parts[3], PurePosixPath(f.source.path).stem
        if setting not in SETTINGS or task not in TASK_IDS:
            raise SourceFormatError(label, "path", f"unexpected prediction file path {f.source.path}")
        rows += prediction_rows(read_json(f.local, label), label=label, setting=setting, model=model, task=task)
    return pd.DataFrame(rows)


def load_published(files: list[Fetched]) -> pd.DataFrame:
    """`predictions/<setting>/results.csv`: task,model_name,score,abstention_rate."""
    rows = []
    for f in files:
        label = str(f.local)
        setting = PurePosixPath(f.source.path).parts[2]
        for lineno, rec in enumerate(
            read_csv_records(f.local, ["task", "model_name", "score", "abstention_rate"], label), start=2
        ):
            try:
                score, abst = float(rec["score"]), float(rec["abstention_rate"])
            except ValueError:
                raise SourceFormatError(label, f"line {lineno}", "score and abstention_rate must be numbers") from None
            rows.append(
                {
                    "setting": setting,
                    "model": rec["model_name"],
                    "task": rec["task"],
                    "score": score,
                    "abstention_rate": abst,
                }
            )
    return pd.DataFrame(rows)


def _text_lines(f: Fetched, encoding: str) -> list[str]:
    try:
        text = f.local.read_bytes().decode(encoding)
    except UnicodeDecodeError as e:
        raise SourceFormatError(str(f.local), f"byte {e.start}", f"not valid {encoding.upper()} text") from None
    return text.strip().split("\n")


def load_cilin(files: list[Fetched]) -> pd.DataFrame:
    """`cilin.txt` (GBK): `code word word …` lines of HIT's extended Cilin; one row per (line, word).

    Task 2-1's aligner reads it for semantic classes; a word listed on several lines keeps its last code,
    which `line` lets the reader reproduce.
    """
    rows: list[dict[str, int | str]] = []
    for f in files:
        for line_no, line in enumerate(_text_lines(f, "gbk"), start=1):
            code, *words = line.split(" ")
            if len(code) < 4 or not words:
                raise SourceFormatError(str(f.local), f"line {line_no}", "expected `code word [word …]`")
            rows.extend({"line": line_no, "code": code, "word": word} for word in words)
    return pd.DataFrame(rows, columns=["line", "code", "word"])


def load_confusions(files: list[Fetched]) -> pd.DataFrame:
    """`confusion_dict.txt` (UTF-8): `char c1 c2 …` lines; one row per (line, char, confusable).

    Lines are split on single spaces, as upstream reads them: empty tokens after the head (doubled or trailing
    spaces) are not characters and are left out, and a line that starts with a space (upstream line 4762) has
    the empty string as its head, so it never applies; it is kept as read. A character heading several lines
    keeps the last line's set, which `line` lets the reader reproduce.
    """
    rows: list[dict[str, int | str]] = []
    for f in files:
        for line_no, line in enumerate(_text_lines(f, "utf-8"), start=1):
            head, *others = line.split(" ")
            if len(head) > 1 or not any(others):
                raise SourceFormatError(str(f.local), f"line {line_no}", "expected `char confusable …`")
            rows.extend({"line": line_no, "char": head, "confusable": c} for c in others if c)
    return pd.DataFrame(rows, columns=["line", "char", "confusable"])


class LawBenchItems(Strict):
    item_id: Series[str] = pa.Field(unique=True)
    setting: Series[str] = pa.Field(isin=SETTINGS)
    task: Series[str] = pa.Field(isin=TASK_IDS)
    idx: Series[int] = pa.Field(ge=0)
    instruction: Series[str]
    question: Series[str]
    answer: Series[str]


class LawBenchPredictions(Strict):
    setting: Series[str] = pa.Field(isin=SETTINGS)
    model: Series[str] = pa.Field(str_length={"min_value": 1})
    task: Series[str] = pa.Field(isin=TASK_IDS)
    idx: Series[int] = pa.Field(ge=0)
    prompt: Series[str]
    prompt_role: Series[str] = pa.Field(nullable=True)
    prediction: Series[str]
    reference: Series[str]

    @pa.dataframe_check(error="(setting, model, task, idx) must be unique")
    def unique_key(cls, df: pd.DataFrame) -> bool:
        return not df.duplicated(["setting", "model", "task", "idx"]).any()


class LawBenchPublished(Strict):
    setting: Series[str] = pa.Field(isin=SETTINGS)
    model: Series[str] = pa.Field(str_length={"min_value": 1})
    task: Series[str] = pa.Field(isin=TASK_IDS)
    score: Series[float] = pa.Field(ge=-1.0, le=1.0)
    abstention_rate: Series[float] = pa.Field(ge=0.0, le=1.0)

    @pa.dataframe_check(error="(setting, model, task) must be unique")
    def unique_key(cls, df: pd.DataFrame) -> bool:
        return not df.duplicated(["setting", "model", "task"]).any()


class LawBenchCilin(Strict):
    """Task 2-1's semantic classes (cilin.txt): the code of every word, by source line."""

    line: Series[int] = pa.Field(ge=1)
    code: Series[str] = pa.Field(str_matches=r"^[A-L][a-z]\d\d[A-Z]\d\d[=#@]$")
    word: Series[str] = pa.Field(str_length={"min_value": 1})


class LawBenchConfusions(Strict):
    """Task 2-1's confusion set (confusion_dict.txt): characters confusable with `char`, by source line."""

    line: Series[int] = pa.Field(ge=1)
    char: Series[str] = pa.Field(str_length={"max_value": 1})  # "" for upstream's line that starts with a space
    confusable: Series[str] = pa.Field(str_length={"min_value": 1})


TABLES = (
    SourceTable(
        "lawbench_items", "LawBench task items", load_items, LawBenchItems, summary=QUERIES.path("data_lawbench_items")
    ),
    SourceTable(
        "lawbench_predictions",
        "LawBench published predictions",
        load_predictions,
        LawBenchPredictions,
        summary=QUERIES.path("data_lawbench_predictions"),
    ),
    SourceTable(
        "lawbench_published",
        "LawBench published scores",
        load_published,
        LawBenchPublished,
        summary=QUERIES.path("data_lawbench_published"),
    ),
    SourceTable(
        "lawbench_cilin",
        "LawBench 2-1 lexicon: Cilin semantic classes",
        load_cilin,
        LawBenchCilin,
        summary=QUERIES.path("data_lawbench_cilin"),
    ),
    SourceTable(
        "lawbench_confusions",
        "LawBench 2-1 lexicon: confusion set",
        load_confusions,
        LawBenchConfusions,
        summary=QUERIES.path("data_lawbench_confusions"),
    ),
)
