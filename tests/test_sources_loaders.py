"""Loaders on the real mirror (row counts, ids, nested fields) and on crafted bad records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from steps.schemas import TableError, validate
from steps.sources import Fetched, SourceFormatError, load_manifest
from steps.sources.tables import interim_tables
from steps.ucl.sources import split_hints
from tests.helpers import sha256_bytes, write_manifest


@pytest.fixture(scope="module")
def tables(manifest, mirror):
    out = {}
    for name, table in interim_tables().items():
        files = [Fetched(f, mirror / f.path) for f in manifest.for_dataset(name)]
        out[name] = validate(table.load(files), table.schema, table=name)
    return out


def test_row_counts(tables):
    counts = {name: len(df) for name, df in tables.items()}
    assert counts == {
        "lawbench_items": 2 * 20 * 500,
        "lawbench_predictions": (6 + 2) * 18 * 500,
        "lawbench_published": (6 + 2) * 20,
        "lawbench_cilin": 90_114,  # words on 17,817 lines
        "lawbench_confusions": 509_967,  # (char, confusable) pairs on 4,937 lines
        "mile": 693,
        "ucl": 23 * 10,
        "plawbench_case_analysis": 250,
        "plawbench_consultation": 18,
        "plawbench_drafting": 12,
        "judgments_criminal": 400,
        "judgments_civil": 808,
    }


def test_lawbench_items_cover_every_task_and_setting(tables):
    items = tables["lawbench_items"]
    per = items.groupby(["setting", "task"]).size()
    assert len(per) == 40 and set(per) == {500}
    first = items[(items.setting == "one_shot") & (items.task == "1-2") & (items.idx == 0)].iloc[0]
    assert first.answer.startswith("正确答案：")


def test_prediction_prompts_keep_the_api_chat_role(tables):
    preds = tables["lawbench_predictions"]
    gpt4 = preds[(preds.model == "GPT4")]
    qwen = preds[(preds.model == "qwen-7b-chat-hf")]
    assert set(gpt4.prompt_role.unique()) == {"HUMAN"}
    assert qwen.prompt_role.isna().all() and qwen.prompt.str.contains("<|im_start|>", regex=False).all()


def test_published_scores_match_the_spec_sample(tables):
    pub = tables["lawbench_published"].set_index(["setting", "model", "task"])
    assert pub.loc[("zero_shot", "GPT4", "2-2"), "score"] == pytest.approx(0.4164948453608247, abs=1e-15)
    assert pub.loc[("one_shot", "GPT4", "3-3"), "abstention_rate"] == pytest.approx(0.238)


def test_mile_nested_fields_are_typed(tables):
    mile = tables["mile"].set_index("id")
    assert list(mile.index) == list(range(1, 694))
    assert mile.loc[1, "less"] == "出生日期" and mile.loc[1, "plaintiff_type"] == "personal"
    assert mile.loc[1, "evidence"] == ["2013年及2017年两份由被告出具的借条以及冯伟自认的转账记录。"]
    assert mile.loc[143, "evidence"] == [] and mile.loc[306, "evidence"] == []
    assert (mile.plaintiff_type == "company").sum() == 224


def test_ucl_hint_levels_match_the_spec_counts(tables):
    ucl = tables["ucl"]
    assert ucl.groupby("task").size().eq(10).all() and ucl.task.nunique() == 23
    forbidden = ucl[ucl.hint_forbidden.notna()]
    assert len(forbidden) == 6 and set(forbidden.task) == {"Real Case Consulting"}
    assert (ucl[ucl.task == "Cross-Examination Strategy Generation"].evaluation_hints == "").all()
    assert ucl.hint_answer.notna().sum() == 102 and ucl.hint_must.notna().sum() == 34


def test_split_hints_keeps_multiline_enumerations():
    text = "应该提及：\n（一）甲；\n（二）乙。\n鼓励提及：《民法典》\n"
    got = split_hints(text)
    assert got["hint_should"] == "（一）甲；\n（二）乙。" and got["hint_encouraged"] == "《民法典》"
    assert got["hint_answer"] is None and got["hint_forbidden"] is None


def test_plawbench_points_come_from_the_data(tables):
    pca = tables["plawbench_case_analysis"]
    assert pca.max_points.sum() == 18590
    assert [r["tag"] for r in pca.rubrics.iloc[0]] == ["结论得分", "案情简述得分", "分析过程得分", "法条依据得分"]
    plc = tables["plawbench_consultation"].set_index("id")
    assert plc.declared_total.isna().sum() == 5 and plc.loc[17, "declared_total"] == 12
    draft = tables["plawbench_drafting"].set_index("item_id")
    assert draft.loc["plaintiff/2", "max_points"] == 80 and draft.loc["defendant/3", "max_points"] == 55


def test_judgments(tables):
    crim, civil = tables["judgments_criminal"], tables["judgments_civil"]
    assert crim.case_id.is_unique and crim.full_text.str.contains("判决").all()
    assert crim.articles.map(len).sum() > 1000
    assert civil.source_id.is_unique
    assert civil.legal_basis.map(len).gt(0).mean() > 0.9
    row = civil.set_index("source_id").loc["b70c33cebbff4e92845dac32017d02b7"]
    assert row.doc_type == "裁定书" and row.legal_basis == [
        {"law": "《中华人民共和国民事诉讼法》", "terms": "第三十四条"}
    ]


def _mile_file(tmp_path: Path, records: list) -> list[Fetched]:
    data = json.dumps(records, ensure_ascii=False).encode()
    (tmp_path / "mile").mkdir(exist_ok=True)
    (tmp_path / "mile/evaluate_data.json").write_bytes(data)
    manifest = load_manifest(
        write_manifest(
            tmp_path / "s.yaml", [{"path": "mile/evaluate_data.json", "sha256": sha256_bytes(data), "dataset": "mile"}]
        )
    )
    return [Fetched(manifest.files[0], tmp_path / "mile/evaluate_data.json")]


def _mile_record(mirror: Path, **changes):
    rec = json.loads((mirror / "mile/evaluate_data.json").read_text(encoding="utf-8"))[0]
    rec.update(changes)
    return rec


def test_mile_row_without_plaintiff_names_file_record_and_field(tmp_path, mirror):
    good = _mile_record(mirror)
    bad = _mile_record(mirror, id=2)
    del bad["plaintiff"]
    with pytest.raises(SourceFormatError) as e:
        interim_tables()["mile"].load(_mile_file(tmp_path, [good, bad]))
    assert (
        str(e.value)
        == f"{tmp_path / 'mile/evaluate_data.json'}: record 1 (id 2): required field 'plaintiff' is missing"
    )


def test_mile_schema_violation_names_row_column_and_rule(tmp_path, mirror):
    df = interim_tables()["mile"].load(
        _mile_file(tmp_path, [_mile_record(mirror), _mile_record(mirror, id=2, plaintiff="原告张三")])
    )
    with pytest.raises(TableError) as e:
        validate(df, interim_tables()["mile"].schema, table="mile", origin="mile/evaluate_data.json")
    msg = str(e.value)
    assert msg.startswith("mile from mile/evaluate_data.json: row 1 (instance_id=mile/2): column 'plaintiff' fails")
    assert "str_startswith" in msg and "原告张三" in msg


def test_lexicon_tables_rebuild_the_upstream_mappings(tables, mirror):
    from steps.lawbench.metrics.proofread.lexicon import (
        cilin_from_table,
        confusions_from_table,
        read_cilin,
        read_confusions,
    )

    evaluation = mirror / "lawbench" / "evaluation"
    assert cilin_from_table(tables["lawbench_cilin"]) == read_cilin(evaluation / "cilin.txt")
    upstream = {head: others - {""} for head, others in read_confusions(evaluation / "confusion_dict.txt").items()}
    assert confusions_from_table(tables["lawbench_confusions"]) == upstream
    assert tables["lawbench_cilin"].line.nunique() == 17_817
    assert tables["lawbench_confusions"].line.nunique() == 4_937


def _lexicon_file(tmp_path: Path, name: str, data: bytes) -> list[Fetched]:
    path = tmp_path / name
    path.write_bytes(data)
    return [Fetched(None, path)]  # type: ignore[arg-type]


def test_lexicon_loaders_keep_the_last_line_and_name_bad_lines(tmp_path):
    from steps.lawbench.metrics.proofread.lexicon import cilin_from_table, confusions_from_table
    from steps.lawbench.sources import load_cilin, load_confusions

    cilin = load_cilin(_lexicon_file(tmp_path, "c.txt", "Aa01A01= 人 士\nBa01B02# 士\n".encode("gbk")))
    assert cilin_from_table(cilin) == {"人": ("A", "a", "01"), "士": ("B", "a", "01")}
    confusions = load_confusions(_lexicon_file(tmp_path, "f.txt", "己 已 巳 \n 来\n己 忌\n".encode()))
    assert confusions_from_table(confusions) == {"己": frozenset({"忌"}), "": frozenset({"来"})}
    with pytest.raises(SourceFormatError, match=r"c\.txt: byte 0: not valid GBK text"):
        load_cilin(_lexicon_file(tmp_path, "c.txt", b"\xff\xff"))
    with pytest.raises(SourceFormatError, match=r"c\.txt: line 2: expected `code word"):
        load_cilin(_lexicon_file(tmp_path, "c.txt", "Aa01A01= 人\nAa01A02=\n".encode("gbk")))
    with pytest.raises(SourceFormatError, match=r"f\.txt: line 1: expected `char confusable"):
        load_confusions(_lexicon_file(tmp_path, "f.txt", "己已 巳\n".encode()))
