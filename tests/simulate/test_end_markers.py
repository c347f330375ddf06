"""End markers: a marker in the model's own words ends the dialogue; one recited from its instructions does not."""

from __future__ import annotations

from steps.simulate.engine import recites_marker

INSTRUCTIONS = "三、法庭宣判：作出判决……和所依据的具体法律条文，最后写上“<结束庭审>”。"
END = "<结束庭审>"


def test_a_marker_after_the_models_own_words_ends():
    assert not recites_marker("本院认为，被告人构成盗窃罪，判处有期徒刑一年。<结束庭审>", END, INSTRUCTIONS)


def test_a_marker_at_the_start_of_a_reply_ends():
    assert not recites_marker("<结束庭审>", END, INSTRUCTIONS)


def test_a_marker_quoted_with_the_words_that_introduce_it_in_the_instructions_is_a_recital():
    assert recites_marker("我将作出判决，最后写上“<结束庭审>”。", END, INSTRUCTIONS)


def test_one_marker_of_its_own_beside_a_recited_one_still_ends():
    text = "规则是最后写上“<结束庭审>”。\n本院判决如下：被告人无罪。<结束庭审>"
    assert not recites_marker(text, END, INSTRUCTIONS)
