"""LawBench's input limit (steps.lawbench.truncate) and the paper's decoding per model family: hand-computed cuts by
the character rule and by a byte-level tokenizer, and the server tokenizer client against the fake server's
vLLM and llama.cpp `/tokenize` shapes."""

from __future__ import annotations

import pandas as pd
import pytest
from pydantic import ValidationError

from steps.lawbench.params import LawBenchParams, paper_section
from steps.lawbench.predict import with_prompts
from steps.lawbench.protocol import is_gpt_family, paper_decoding
from steps.lawbench.report import inputs_note
from steps.lawbench.truncate import CHARACTERS, Cut, cut_prompt
from steps.llm import ModelConfig
from steps.llm.tokenizer import server_tokenizer
from tests.fake_openai_server import FakeOpenAIServer


class ByteTokenizer:
    """Each UTF-8 byte one token (a Chinese character is 3), as the fake server's `/tokenize`."""

    rule = "bytes"

    def encode(self, text: str) -> list[int]:
        return list(text.encode("utf-8"))

    def decode(self, tokens: list[int]) -> str:
        return bytes(tokens).decode("utf-8", errors="replace")


def test_the_character_rule_keeps_the_beginning_and_counts_characters():
    assert cut_prompt("甲乙丙丁", 3) == Cut("甲乙丙", 4, True, CHARACTERS)
    assert cut_prompt("甲乙丙丁", 3, side="left") == Cut("乙丙丁", 4, True, CHARACTERS)
    assert cut_prompt("甲乙丙", 3) == Cut("甲乙丙", 3, False, CHARACTERS)
    assert cut_prompt("甲乙丙丁", None) == Cut("甲乙丙丁", 4, False, CHARACTERS)


def test_a_tokenizer_cut_drops_the_character_it_splits():
    bytes_ = ByteTokenizer()
    # 法 律 are 3 bytes each, a b c one: 9 tokens
    assert cut_prompt("法律abc", 9, bytes_) == Cut("法律abc", 9, False, "bytes")
    assert cut_prompt("法律abc", 7, bytes_) == Cut("法律a", 9, True, "bytes")
    assert cut_prompt("法律abc", 4, bytes_) == Cut("法", 9, True, "bytes")  # the 4th byte starts 律: dropped
    assert cut_prompt("法律abc", 4, bytes_, side="left") == Cut("abc", 9, True, "bytes")
    assert cut_prompt("法律abc", 6, bytes_, side="left") == Cut("律abc", 9, True, "bytes")


def test_with_prompts_records_each_items_cut():
    items = pd.DataFrame({"instruction": ["问：", "问："], "question": ["短", "这是一个较长的问题"]})
    out = with_prompts(items, 5)
    assert out.prompt.tolist() == ["问：\n短", "问：\n这是一个较长的问题"]  # whole, as LawBench's origin_prompt
    assert out.prompt_sent.isna().tolist() == [True, False] and out.prompt_sent[1] == "问：\n这是"
    assert out.input_tokens.tolist() == [4, 12] and out.input_truncated.tolist() == [False, True]
    assert set(out.input_rule) == {CHARACTERS}


def test_the_section_defaults_are_the_papers_limits_and_are_configurable():
    section = LawBenchParams()
    assert (section.max_input_tokens, section.max_new_tokens, section.truncation) == (2048, 1024, "right")
    assert section.count_tokens == "tokens" and paper_section() == section  # the defaults are the paper's
    assert LawBenchParams(limit=3) != paper_section()
    other = LawBenchParams(max_input_tokens=None, max_new_tokens=256, truncation="left", count_tokens="characters")
    assert other.max_input_tokens is None and other.max_new_tokens == 256
    with pytest.raises(ValidationError):
        LawBenchParams(max_input_tokens=0)
    with pytest.raises(ValidationError):
        LawBenchParams(truncation="middle")


@pytest.mark.parametrize(
    ("model", "gpt"),
    [
        ("openai/gpt-4-0613", True),
        ("openai/gpt-3.5-turbo-0613", True),
        ("ChatGPT", True),
        ("GPT4", True),
        ("hosted_vllm/Qwen-7B-Chat", False),
        ("openai/internlm-chat-7b", False),
        ("scripted/oracle", False),
    ],
)
def test_the_papers_decoding_per_model_family(model, gpt):
    assert is_gpt_family(model) is gpt
    decoding = paper_decoding(model)
    assert decoding.max_tokens == 1024
    if gpt:
        assert (decoding.temperature, decoding.top_p) == (0.7, 1.0)
    else:
        assert decoding.temperature == 0.0 and decoding.top_p is None


@pytest.mark.parametrize(("style", "owner"), [("vllm", "vllm"), ("llama.cpp", "llamacpp")])
def test_the_server_tokenizer_speaks_each_servers_shape(style, owner):
    with FakeOpenAIServer(owned_by=owner, tokenize_style=style) as server:
        model = ModelConfig(name="m", model="hosted_vllm/test-model", api_base=server.url)
        tokenizer = server_tokenizer(model)
        assert tokenizer is not None and tokenizer.rule == f"{style} /tokenize"
        assert tokenizer.encode("法a") == [230, 179, 149, 97]
        assert tokenizer.decode([230, 179, 149, 97]) == "法a"
        assert cut_prompt("法律abc", 7, tokenizer) == Cut("法律a", 9, True, f"{style} /tokenize")
        tokenizer.close()
    last = server.tokenize_requests[-1]
    if style == "vllm":
        assert last["model"] == "test-model" and "tokens" in last
        assert any(r.get("add_special_tokens") is False for r in server.tokenize_requests)
    else:
        assert "model" not in last and any(r.get("add_special") is False for r in server.tokenize_requests)


def test_no_server_tokenizer_without_a_tokenize_endpoint_or_a_server():
    with FakeOpenAIServer(owned_by="vllm") as server:  # /tokenize answers 404
        assert server_tokenizer(ModelConfig(name="m", model="hosted_vllm/test-model", api_base=server.url)) is None
    with FakeOpenAIServer(tokenize_style="vllm") as server:  # answers it, but says it is no vLLM nor llama.cpp
        assert server_tokenizer(ModelConfig(name="m", model="openai/test-model", api_base=server.url)) is None
    assert server_tokenizer(ModelConfig(name="m", model="openai/gpt-4-0613")) is None
    assert server_tokenizer(ModelConfig(name="m", model="scripted/oracle")) is None


def test_the_report_says_how_each_agents_prompts_were_cut():
    predictions = pd.DataFrame({"input_truncated": [True, False, False], "input_rule": ["vllm /tokenize"] * 3})
    run = {"input_limit": {"max_input_tokens": 2048, "truncation": "right"}, "decoding": {"max_tokens": 1024}}
    assert inputs_note("mine", predictions, run) == (
        "Inputs of `mine`: 1 of 3 prompts were over 2,048 tokens and were cut (right truncation; tokens counted by "
        "vllm /tokenize); at most 1,024 new tokens."
    )
    whole = {"input_limit": {"max_input_tokens": None}, "decoding": {"max_tokens": None}}
    assert inputs_note("w", predictions.assign(input_rule="characters"), whole) == (
        "Inputs of `w`: every prompt sent whole (no input limit; counted by characters); no cap on new tokens."
    )
    assert inputs_note("old", pd.DataFrame({"prediction": ["x"]}), {"decoding": {"max_tokens": 96}}) == (
        "Inputs of `old`: sent whole (its run predates the input limit); at most 96 new tokens."
    )


def test_max_new_tokens_caps_the_agents_own_and_keeps_a_smaller_one():
    from steps.lawbench.params import with_max_new_tokens

    def cap(own: int | None, limit: int | None) -> int | None:
        agent = ModelConfig(name="a", model="openai/m", decoding={"max_tokens": own})
        return with_max_new_tokens(agent, limit).decoding.max_tokens

    assert cap(None, 1024) == 1024 and cap(4096, 1024) == 1024  # the paper's cap
    assert cap(64, 1024) == 64  # eval --max-tokens 64 stays (run.json records it)
    assert cap(None, None) is None and cap(4096, None) == 4096
