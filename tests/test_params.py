"""params.yaml is validated when it loads: one line naming the file, the key path and the rule broken."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from prefect import flow
from typer.testing import CliRunner

from flows.cli import app
from flows.kit.config import BENCHMARKS, SECTIONS, Params, ParamsError, benchmark_sections, load_params
from flows.kit.stage import run_stage
from steps.sections import BenchmarkSection
from steps.ucl.params import UclParams
from tests.conftest import ROOT

FOO = "agents:\n  foo:\n    model: scripted/oracle\n"


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "params.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _one_line_error(path: Path) -> str:
    with pytest.raises(ParamsError) as caught:
        load_params(path)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(path))
    return message


@pytest.mark.parametrize(
    ("text", "key", "rule"),
    [
        ("llm:\n  concurrency: 0\n", "llm.concurrency", "greater than or equal to 1"),
        ("llm:\n  concurrency: -4\n", "llm.concurrency", "greater than or equal to 1"),
        ("llm:\n  timeout_s: -1\n", "llm.timeout_s", "greater than 0"),
        ("llm:\n  timeout_s: 0\n", "llm.timeout_s", "greater than 0"),
        ("llm:\n  max_attempts: 0\n", "llm.max_attempts", "greater than or equal to 1"),
        ("llm:\n  retry_budget_s: -5\n", "llm.retry_budget_s", "greater than or equal to 0"),
        ("llm:\n  backoff_base_s: -1\n", "llm.backoff_base_s", "greater than or equal to 0"),
        (f"{FOO}    concurrency: 0\n", "agents.foo.concurrency", "greater than or equal to 1"),
        (f"{FOO}    timeout_s: -2\n", "agents.foo.timeout_s", "greater than 0"),
        ("agents:\n  foo:\n    model: nosuchprovider/x\n", "agents.foo.model", "unknown provider 'nosuchprovider'"),
        ("agents:\n  ok:\n    model: scripted/oracle\n  bad:\n    model: gpt4o/x\n", "agents.bad.model", "provider"),
        ("environment:\n  model: bogus/persona\n", "environment.model", "unknown provider 'bogus'"),
        ("judge:\n  model: gpt-4o\n", "judge.model", "must be a litellm string with a provider"),
        ("ucl:\n  reference:\n    name: ref\n    model: nope/x\n", "ucl.reference.model", "unknown provider"),
        ("lawbench:\n  tasks: []\n", "lawbench.tasks", "an empty or repeating list"),
        ("ucl:\n  tasks: [Charge Prediction, Charge Prediction]\n", "ucl.tasks", "an empty or repeating list"),
        ("plawbench:\n  scenarios: []\n", "plawbench.scenarios", "an empty or repeating list"),
    ],
)
def test_a_bad_value_is_one_line_naming_file_key_and_rule(tmp_path, text, key, rule):
    message = _one_line_error(_write(tmp_path, text))
    assert f": {key}: " in message
    assert rule in message


@pytest.mark.parametrize("model", ["scripted/oracle", "hosted_vllm/Qwen3-32B", "openai/gpt-4o", "deepseek/deepseek-v3"])
def test_known_providers_and_scripted_load(tmp_path, model):
    params = load_params(_write(tmp_path, f"agents:\n  a:\n    model: {model}\n    concurrency: 1\n"))
    assert params.agent("a").model == model


@pytest.mark.parametrize("name", ["..", ".", "a/b", "../reports", "a\\\\b", ".hidden", "-x", "a b", "x" * 65, "名字"])
def test_an_agent_name_that_is_not_a_safe_path_component_is_rejected_at_load(tmp_path, name):
    message = _one_line_error(_write(tmp_path, f'agents:\n  "{name}":\n    model: scripted/oracle\n'))
    assert ": agents: agent name" in message and "single path component" in message


def test_a_nul_in_an_agent_name_is_rejected(tmp_path):
    message = _one_line_error(_write(tmp_path, 'agents:\n  "a\\0b":\n    model: scripted/oracle\n'))
    assert "single path component" in message


def test_the_ucl_reference_name_is_a_safe_component_too(tmp_path):
    message = _one_line_error(_write(tmp_path, "ucl:\n  reference:\n    name: ../up\n    model: scripted/null\n"))
    assert ": ucl.reference.name: " in message


def test_a_yaml_syntax_error_names_the_file_and_the_line(tmp_path):
    path = _write(tmp_path, "llm:\n  concurrency: 4\nagents: {oracle: {model: scripted/oracle}\nsimulate:\n  x: 1\n")
    message = _one_line_error(path)
    assert message.startswith(f"{path}: line ") and "not valid YAML" in message


def test_a_top_level_that_is_not_a_mapping_is_an_error(tmp_path):
    assert "top level must be a mapping" in _one_line_error(_write(tmp_path, "- llm\n- agents\n"))


def test_a_missing_params_file_is_an_error_not_the_scripted_defaults(tmp_path):
    message = _one_line_error(tmp_path / "absent.yaml")
    assert "parameters file not found" in message


def test_the_shipped_params_file_is_valid():
    params = load_params(ROOT / "params.yaml")
    assert {"oracle", "null"} <= set(params.agents)


def test_params_check_prints_ok_and_a_summary(tmp_path):
    path = _write(tmp_path, "agents:\n  oracle:\n    model: scripted/oracle\nllm:\n  concurrency: 3\n")
    result = CliRunner().invoke(app, ["params", "check", "--file", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"OK {path}") and "oracle (scripted/oracle)" in result.output
    assert "concurrency 3" in result.output


def test_params_check_prints_the_one_line_error_and_exits_1(tmp_path):
    path = _write(tmp_path, "llm:\n  concurrency: 0\n")
    result = CliRunner().invoke(app, ["params", "check", "--file", str(path)])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: llm.concurrency:")


def test_params_check_of_a_missing_file_exits_1(tmp_path):
    result = CliRunner().invoke(app, ["params", "check", "--file", str(tmp_path / "nope.yaml")])
    assert result.exit_code == 1 and "parameters file not found" in result.output


def test_a_stage_with_bad_params_fails_before_its_flow_starts(tmp_path, capsys):
    started: list[str] = []

    @flow
    def probe(agent_name: str, params_file: Path = Path("params.yaml")) -> str:
        started.append(agent_name)
        return "ran"

    bad = _write(tmp_path, "agents:\n  oracle:\n    model: scripted/oracle\nllm:\n  concurrency: 0\n")
    assert run_stage("probe", probe, agent_name="oracle", params_file=bad) == 1
    assert started == []
    err = capsys.readouterr().err
    assert err.count("llm.concurrency") == 1 and "probe failed" in err


def test_a_stage_command_with_a_yaml_error_prints_one_line_and_exits_1(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, "agents:\n  oracle: {model: scripted/oracle\nllm:\n  concurrency: 2\n")
    result = CliRunner().invoke(app, ["j1_judge", "oracle"])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "params.yaml: line " in lines[0] and "not valid YAML" in lines[0], result.output


def test_a_stage_command_without_a_params_file_is_an_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["j1_simulate", "oracle"])
    assert result.exit_code == 1 and "params.yaml: parameters file not found" in " ".join(result.output.split())


def test_the_benchmarks_are_the_packages_with_a_params_module():
    assert BENCHMARKS == ("j1", "lawbench", "mile", "plawbench", "ucl")
    for name, model in SECTIONS.items():
        assert issubclass(model, BenchmarkSection) and model.__module__ == f"steps.{name}.params"
    assert Params().section(UclParams).max_exchanges == 3  # an absent section: its defaults


def test_a_new_benchmark_package_is_a_section_without_an_edit_to_the_config(tmp_path, monkeypatch):
    package = tmp_path / "pkg" / "newbench"
    package.mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "params.py").write_text(
        "from steps.sections import BenchmarkSection\n\n"
        "class NewParams(BenchmarkSection):\n    rounds: int = 2\n\nSECTION = NewParams\n",
        encoding="utf-8",
    )
    (tmp_path / "pkg" / "helpers").mkdir()  # a package without params.py is not a benchmark
    (tmp_path / "pkg" / "helpers" / "__init__.py").write_text("", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = benchmark_sections([tmp_path / "pkg"], "pkg")
    assert list(found) == ["newbench"] and found["newbench"]().rounds == 2


def test_an_unknown_section_is_an_error_naming_the_sections(tmp_path):
    message = _one_line_error(_write(tmp_path, "ucll:\n  limit: 2\n"))
    assert "unknown section(s) 'ucll'" in message and "ucl" in message and "llm" in message


@pytest.mark.parametrize(
    ("text", "key", "rule"),
    [
        ("j1:\n  simulate:\n    scenarios: [XX]\n", "j1.simulate", "unknown scenario(s) ['XX']"),
        ("j1:\n  instances:\n    sizes: {ZZ: 3}\n", "j1.instances.sizes", "unknown scenario(s) ['ZZ']"),
        ("j1:\n  eval:\n    procedure:\n      window: 0\n", "j1.eval.procedure.window", "greater than or equal to 1"),
        ("j1:\n  topicz: {}\n", "j1.topicz", "Extra inputs are not permitted"),
        ("mile:\n  role_decoding: loud\n", "mile.role_decoding", "unknown preset 'loud'"),
        (f"{FOO}    benchmarks: [lawbench, mmlu]\n", "agents.foo.benchmarks", "unknown benchmark(s) 'mmlu'"),
    ],
)
def test_a_bad_value_in_a_benchmark_section_names_its_key_path(tmp_path, text, key, rule):
    message = _one_line_error(_write(tmp_path, text))
    assert f": {key}: " in message and rule in message


def test_cross_section_checks_run_when_params_load(tmp_path):
    clash = _one_line_error(_write(tmp_path, "agents:\n  scripted_null:\n    model: scripted/null\n"))
    assert "ucl.reference.name 'scripted_null' is also an agent name" in clash
    repeats = "agents:\n  a:\n    model: scripted/oracle\nj1:\n  eval:\n    repeats: {g: [a, b]}\n"
    assert "j1.eval.repeats.g: ['b'] not under agents (a)" in _one_line_error(_write(tmp_path, repeats))
    # an agent that does not take part in UCL-Bench may share the reference's name
    load_params(_write(tmp_path, "agents:\n  scripted_null:\n    model: scripted/null\n    benchmarks: [j1]\n"))


def test_the_config_module_imports_no_benchmark_section():
    """Each stage depends on its own sections only: flows/kit/config.py finds them on disk, it does not import them."""
    from flows.dvc_yaml import closure

    code = closure("flows.kit.config")
    assert "flows.kit.config" in code and "steps.sections" in code
    assert [m for m in code if m.startswith(tuple(f"steps.{b}" for b in BENCHMARKS)) or "reports" in m] == []


def test_every_parameter_a_stage_lists_is_in_the_shipped_params_file():
    """DVC refuses to run a stage whose `params:` names a key params.yaml lacks, so every key a stage lists is
    written out in params.yaml (null for "all"), not left to its default."""
    shipped = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    agents = list(shipped["agents"])
    missing = []
    for name, stage in yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"].items():
        for key in stage.get("params", []):
            node = shipped
            for part in key.replace("${item.agent}", agents[0]).split("."):
                if not isinstance(node, dict) or part not in node:
                    missing.append(f"{name}: {key}")
                    break
                node = node[part]
    assert missing == []


def test_extract_and_personas_call_the_environment_model_unless_they_name_their_own():
    from steps.j1.params import J1Params

    raw = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    raw["j1"]["personas"]["model"] = {"model": "scripted/persona", "decoding": {"max_tokens": 64}}
    params = Params.model_validate(raw)
    j1, environment = params.section(J1Params), params.environment_model("j1")
    own = j1.personas.resolve_model(environment)
    assert (own.name, own.model, own.decoding.max_tokens) == ("personas", "scripted/persona", 64)
    assert j1.extract.resolve_model(environment) == environment


# issue 35, item 9: what `params check` (and so every stage) used to pass silently
DUPLICATES = [
    ("agents:\n  foo:\n    model: scripted/oracle\n  foo:\n    model: scripted/null\n", 4, "agents.foo", 2),
    ("llm:\n  concurrency: 2\nlawbench:\n  limit: 3\nllm:\n  concurrency: 9\n", 5, "llm", 1),
    ("llm:\n  concurrency: 2\n  timeout_s: 5\n  concurrency: 9\n", 4, "llm.concurrency", 2),
    ("agents: {foo: {model: scripted/oracle, model: scripted/null}}\n", 1, "agents.foo.model", 1),
]


@pytest.mark.parametrize(("text", "line", "key", "first"), DUPLICATES)
def test_a_key_written_twice_is_refused_with_its_line_and_key_path(tmp_path, text, line, key, first):
    message = _one_line_error(_write(tmp_path, text))
    assert f": line {line}: duplicate key {key} (first at line {first};" in message


@pytest.mark.parametrize("text", ["", "\n\n", "# every setting commented out\n# llm:\n#   concurrency: 2\n", "{}\n"])
def test_an_empty_params_file_is_refused_not_run_on_the_scripted_defaults(tmp_path, text):
    assert "empty (no section at all)" in _one_line_error(_write(tmp_path, text))


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("localhost:8000/v1", True),
        ("127.0.0.1:8000", True),
        ("ftp://127.0.0.1/v1", True),
        ("http//127.0.0.1:8000/v1", True),
        ("http://127.0.0.1:99999/v1", True),
        ("http://", True),
        ("http://user:pass@127.0.0.1/v1", False),  # credentials in a URL are never repeated
        ("http://127.0.0.1/v1?key=abcdefgh", False),
    ],
)
def test_an_api_base_that_is_not_a_url_is_refused_naming_the_key(tmp_path, value, shown):
    for where, text in (
        ("agents.foo.api_base", f"{FOO}    api_base: '{value}'\n"),
        ("judge.api_base", f"judge:\n  model: openai/x\n  api_base: ['http://127.0.0.1:1/v1', '{value}']\n"),
    ):
        message = _one_line_error(_write(tmp_path, text))
        assert f": {where}: " in message and "http(s)://host[:port][/path]" in message
        assert (value in message) is shown


@pytest.mark.parametrize("value", ["http://127.0.0.1:8000/v1", "https://api.deepseek.com", "http://gpu-1.lan:80"])
def test_urls_load(tmp_path, value):
    assert load_params(_write(tmp_path, f"{FOO}    api_base: {value}\n")).agents["foo"].api_base == value


# issue 35, item 4: a key value where the NAME of its variable belongs
KEY = "sk-proj-Zq81xVb3KpL0aa7"


@pytest.mark.parametrize("value", [KEY, "AbCd3f-9-xyz", "9LIVES", "MY KEY", "a.b"])
def test_an_api_key_env_that_is_not_a_variable_name_is_refused_without_repeating_it(tmp_path, value):
    message = _one_line_error(_write(tmp_path, f"{FOO}    api_key_env: '{value}'\n"))
    assert ": agents.foo.api_key_env: must be the NAME of the environment variable" in message
    assert value not in message
    result = CliRunner().invoke(app, ["params", "check", "--file", str(tmp_path / "params.yaml")])
    assert result.exit_code == 1 and value not in result.output and len(result.output.strip().splitlines()) == 1


def test_params_check_and_a_stage_refuse_a_duplicate_key_and_an_empty_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for text, said in ((DUPLICATES[0][0], "line 4: duplicate key agents.foo"), ("", "empty (no section at all)")):
        _write(tmp_path, text)
        for args in (["params", "check"], ["j1_judge", "foo"]):
            result = CliRunner().invoke(app, args)
            lines = [line for line in result.output.splitlines() if line.strip()]
            assert result.exit_code == 1 and len(lines) == 1 and said in lines[0], (args, result.output)


def test_the_validation_error_itself_never_holds_the_key():
    """Whoever prints pydantic's own error (not the one-line ParamsError) does not print the key either."""
    from pydantic import ValidationError

    from steps.llm import ModelConfig

    raw = {"agents": {"foo": {"model": "scripted/oracle", "api_key_env": KEY}}}
    for build in (lambda: Params.model_validate(raw), lambda: ModelConfig(name="x", model="x/y", api_key_env=KEY)):
        with pytest.raises(ValidationError) as caught:
            build()
        assert "api_key_env" in str(caught.value) and KEY not in str(caught.value)


def test_structured_output_is_a_setting_of_every_model_entry_and_a_benchmarks_role(tmp_path):
    text = (
        "judge:\n  model: openai/x\n  structured_output: json_schema\nmile:\n  judge:\n    structured_output: 'off'\n"
    )
    params = load_params(_write(tmp_path, FOO + text))
    assert params.judge_model("ucl").structured_output == "json_schema"
    assert params.judge_model("mile").structured_output == "off"  # the benchmark's role overrides the field only
    assert params.agent("foo").structured_output == "auto"
    bad = _one_line_error(_write(tmp_path, "judge:\n  model: openai/x\n  structured_output: maybe\n"))
    assert "judge.structured_output" in bad and "'auto', 'json_schema' or 'off'" in bad


# issue 40: panels of judges
PANEL = "judge:\n  model: scripted/judge\nmile:\n  judge: {}\n"


@pytest.mark.parametrize(
    ("panel", "error"),
    [
        ("[]", "mile.judge.panel: an empty panel; name one judge or more"),
        ("[scripted/judge, scripted/judge]", "mile.judge.panel: panel member scripted/judge is listed twice"),
        ("{panel: [scripted/judge, scripted/judge_contrary], aggregate: median}", "mile.judge.aggregate: Input should"),
        ("[{decoding: {temperature: 1}}]", "mile.judge.panel: panel member 0 names no model"),
    ],
)
def test_params_check_refuses_a_malformed_panel_in_one_line(tmp_path, panel, error):
    path = _write(tmp_path, PANEL.format(panel))
    result = CliRunner().invoke(app, ["params", "check", "--file", str(path)])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 1 and len(lines) == 1, result.output
    assert lines[0].startswith(f"error: {path}: {error}")


def test_params_check_accepts_panels_and_names_their_members(tmp_path):
    text = (
        "judge:\n  model: scripted/judge\n"
        "mile:\n  judge: [scripted/judge, {model: scripted/judge_contrary, decoding: {temperature: 0.5}}]\n"
        "ucl:\n  judge: {panel: [scripted/judge, scripted/judge_contrary], aggregate: mean}\n"
    )
    path = _write(tmp_path, text)
    result = CliRunner().invoke(app, ["params", "check", "--file", str(path)])
    assert result.exit_code == 0, result.output
    assert "  judge panel of 2 (default: majority for pairwise verdicts, mean for scores): scripted/judge, " in (
        result.output
    )
    assert "  judge panel of 2 (mean): scripted/judge, scripted/judge_contrary" in result.output
    params = load_params(path)
    members = params.judge_panel("mile")
    assert members is not None and [m.model for m in members] == ["scripted/judge", "scripted/judge_contrary"]
    assert members[1].decoding.temperature == 0.5 and members[0].decoding.temperature == 0.0
    assert params.judge_model("mile").model == "scripted/judge"  # the role's model: the panel's first member
    assert params.judge_panel("j1") is None  # one judge: no panel
    assert {m.model for m in params.role_models(["mile"])} >= {"scripted/judge", "scripted/judge_contrary"}


def test_one_judge_errors_keep_their_key_path(tmp_path):
    path = _write(tmp_path, "ucl:\n  judge: {model: scripted/judge, decoding: {temprature: 1}}\n")
    assert _one_line_error(path) == f"{path}: ucl.judge.decoding.temprature: Extra inputs are not permitted"


def test_a_panel_is_a_deviation_of_its_own_in_the_protocol_label(tmp_path):
    path = _write(tmp_path, "ucl:\n  protocol: paper\n  judge: [openai/gpt-4-0613, openai/gpt-4o]\n")
    params = load_params(path)
    record = params.protocol_record("ucl", roles=("judge",))
    assert record.label.startswith("judge panel openai/gpt-4-0613 + openai/gpt-4o, paper GPT-4")
    assert record.as_dict()["roles"]["judge"]["panel"] == ["openai/gpt-4-0613", "openai/gpt-4o"]
    single = load_params(_write(tmp_path, "ucl:\n  protocol: paper\n")).protocol_record("ucl", roles=("judge",))
    assert "panel" not in single.as_dict()["roles"]["judge"]  # one judge: the record as it was
