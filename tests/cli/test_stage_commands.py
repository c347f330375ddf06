"""The stage commands are made from the table of stages (dvc.yaml): every stage has its command, every stage
command is a stage, and each takes its flow's required parameters (an agent, LawBench's setting)."""

from __future__ import annotations

import inspect

import pytest
import typer
from typer.testing import CliRunner

from flows.cli import STAGES_PANEL, app
from flows.kit.stages import stage_table
from flows.run import flow_of
from steps.pipeline import stage as declared
from steps.pipeline import stages

STAGES = stage_table()


def _commands() -> dict:
    """The commands of the `jurisflow` group (typer's own click: no isinstance against `click`)."""
    return typer.main.get_command(app).commands  # type: ignore[attr-defined]


def test_every_stage_of_dvc_yaml_has_its_command_and_every_stage_command_is_a_stage():
    assert list(STAGES) == list(stages())
    commands = _commands()
    in_panel = {name for name, c in commands.items() if getattr(c, "rich_help_panel", None) == STAGES_PANEL}
    assert in_panel == set(stages())
    for name in stages():
        assert not commands[name].hidden, name


@pytest.mark.parametrize("name", sorted(STAGES))
def test_a_stage_command_takes_its_flows_required_parameters(name):
    stage, command = STAGES[name], _commands()[name]
    flow = flow_of(name)  # flows/run.py, from the stage's declaration
    assert flow.name == name
    arguments = ["agent_name" if a == "agent" else a for a in declared(name).arguments()]
    assert [a.parameter for a in stage.arguments] == arguments
    assert [p.name for p in command.params if p.param_type_name == "argument"] == arguments
    assert inspect.getdoc(flow.fn)


def test_matrix_values_become_choices_and_the_help_names_the_dvc_stage():
    result = CliRunner().invoke(app, ["lawbench_predict", "--help"], terminal_width=200)
    assert result.exit_code == 0 and "zero_shot|one_shot" in result.output
    assert "lawbench_predict@<agent>-<setting>" in result.output
    bad = CliRunner().invoke(app, ["lawbench_predict", "oracle", "two_shot"])
    assert bad.exit_code == 2 and "two_shot" in bad.output


def test_the_grouped_names_of_before_still_run_their_stage():
    commands = _commands()
    for group, step, stage in (
        ("ucl", "simulate", "ucl_simulate"),
        ("ucl", "reference", "ucl_reference"),
        ("mile", "judge", "mile_judge"),
        ("j1", "report", "j1_report"),
        ("lawbench", "predict", "lawbench_predict"),
    ):
        alias = commands[group].commands[step]  # type: ignore[attr-defined]
        assert alias.hidden and alias.callback is not None
        assert alias.help == commands[stage].help
    assert not commands["lawbench"].commands["score"].hidden  # a command of its own: scores any folder


def test_the_stage_arguments_are_the_declarations_matrix_keys():
    assert declared("lawbench_predict").arguments() == ("agent", "setting")
    assert declared("ucl_reference").arguments() == ()


def test_eval_runs_a_benchmarks_per_agent_stages_and_its_report():
    from flows.kit.stages import benchmark_targets

    assert benchmark_targets("mile", "a") == ["mile_simulate@a", "mile_judge@a", "mile_report"]
    assert benchmark_targets("plawbench", "a") == ["plawbench_predict@a", "plawbench_judge@a", "plawbench_report"]
