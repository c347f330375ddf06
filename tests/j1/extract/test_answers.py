import contextlib

import pytest

from steps.j1.extract.answers import CIVIL, CRIMINAL, mandatory, validate_field

from .answers import CIVIL_ANSWER, CRIMINAL_ANSWER


@pytest.mark.parametrize(("kind", "answer"), [("criminal", CRIMINAL_ANSWER), ("civil", CIVIL_ANSWER)])
def test_the_reference_answers_validate_field_by_field(kind, answer):
    fields = CRIMINAL if kind == "criminal" else CIVIL
    assert set(answer) == set(fields)
    for name in fields:
        validate_field(kind, name, answer[name])


def test_blank_text_is_null_and_blank_list_items_are_dropped():
    assert validate_field("civil", "case_details", "  ") is None
    assert validate_field("civil", "claims", ["判令被告还款", " ", ""]) == ["判令被告还款"]


def test_items_come_back_as_plain_dicts_with_defaults():
    [item] = validate_field("civil", "evidence", [{"party": "plaintiff", "item": "借条"}])
    assert item == {"party": "plaintiff", "item": "借条", "proves": None}


@pytest.mark.parametrize(
    ("kind", "name", "value", "message"),
    [
        ("criminal", "statutes", [{"law": "刑法", "article": "第二百六十四条"}], "article"),
        ("criminal", "defendants", [{"name": "张甲", "fine_yuan": -5}], "fine_yuan"),
        ("civil", "evidence", [{"party": "原告", "item": "借条"}], "party"),
        ("civil", "claims", "判令被告还款", "list"),
        ("criminal", "pleas", [{"side": "defendant"}], "text"),
    ],
)
def test_invalid_values_raise_a_short_reason_naming_the_place(kind, name, value, message):
    with pytest.raises(ValueError, match=message):
        validate_field(kind, name, value)


def test_mandatory_fields_depend_on_kind_procedure_and_document_type():
    assert mandatory("civil", "民事裁定书", "first_instance") == ("court_reasoning",)
    assert "claims" in mandatory("civil", "民事判决书", "first_instance")
    assert "procurator_charges" not in mandatory("criminal", "刑事判决书", "appeal")
    assert "pleas" in mandatory("criminal", "刑事判决书", "first_instance")


def test_the_cases_schema_knows_which_llm_fields_are_lists():
    from steps.j1.extract.answers import FIELDS, LLM_COLUMNS
    from steps.j1.extract.schemas import _LIST_FIELDS

    for kind, fields in FIELDS.items():
        lists = []
        for name in (n for n in fields if n in LLM_COLUMNS):
            with contextlib.suppress(ValueError):
                lists += [name] if validate_field(kind, name, []) == [] else []
        assert sorted(lists) == sorted(_LIST_FIELDS[kind]), kind
