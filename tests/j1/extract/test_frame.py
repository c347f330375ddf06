import pandas as pd

from steps.j1.extract import cases_frame, parse_civil, parse_criminal

from .texts import CIVIL_ROW, FIRST_INSTANCE


def test_typed_columns_first_defendant_and_lists():
    frame = cases_frame([parse_criminal(FIRST_INSTANCE, source_id="crim-1"), parse_civil(CIVIL_ROW)])
    assert list(frame["source_id"]) == ["crim-1", "c-1"]
    assert frame["prison_months"].dtype == pd.Float64Dtype() and frame["source_id"].dtype == pd.StringDtype()
    assert frame["n_issues"].dtype == pd.Int64Dtype()
    crim, civ = frame.iloc[0], frame.iloc[1]
    assert (crim["charges"], crim["prison_months"], crim["fine_yuan"]) == (["盗窃"], 18, 20000)
    assert pd.isna(crim["probation_months"])
    assert [d["name"] for d in crim["defendants"]] == ["张甲", "王丙"]
    assert {"law", "article", "sub_article", "paragraph", "item"} <= set(crim["statutes"][0])
    assert isinstance(crim["statutes"][0]["article"], int)
    assert civ["charges"] == [] and civ["cost_fee_yuan"] == 800 and len(civ["rulings"]) == 2


def test_empty_input_gives_an_empty_typed_frame():
    frame = cases_frame([])
    assert frame.empty and "statutes" in frame.columns
