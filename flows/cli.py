"""The `jurisflow` command: run any stage's flow, check models, serve local models."""

from __future__ import annotations

import subprocess
from pathlib import Path

import typer

app = typer.Typer(
    no_args_is_help=True, add_completion=False, help="jurisflow: Chinese legal LLM benchmarks, reproducibly."
)
models_app = typer.Typer(no_args_is_help=True, help="Check the models configured in params.yaml.")
serve_app = typer.Typer(no_args_is_help=True, help="Serve local models (vLLM) or check a running server.")
app.add_typer(models_app, name="models")
app.add_typer(serve_app, name="serve")


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


@models_app.command("check")
def models_check(
    usage_out: Path | None = typer.Option(None, help="also write the probe calls' accounting rows here (Parquet)"),
) -> None:
    """Send one probe message to every configured agent, the environment and the judge model."""
    from flows.models_check import models_check as flow

    _run("models check", flow, usage_out=usage_out)


@serve_app.command("vllm")
def serve_vllm(
    model: str = typer.Argument(..., help="Hugging Face id or local path of the model, e.g. Qwen/Qwen3-32B"),
    tensor_parallel: int = typer.Option(1, "--tensor-parallel", help="GPUs per replica"),
    port: int = typer.Option(8000, help="port of the OpenAI-compatible API"),
    host: str = typer.Option("127.0.0.1", help="interface to listen on"),
    max_model_len: int | None = typer.Option(None, help="context length limit"),
    served_name: str | None = typer.Option(None, help="model id the server announces (default: MODEL)"),
    ready_timeout: float = typer.Option(1800, help="seconds to wait for the server to answer"),
    vllm_bin: str = typer.Option("vllm", help="the vllm executable (install with pip install -e '.[vllm]')"),
) -> None:
    """Start `vllm serve`, wait until it answers, and print the params.yaml entry that uses it."""
    from steps.llm.vllm import ServeOptions, params_snippet, serve_command, wait_until_ready

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
    try:
        served = wait_until_ready(options.api_base, timeout_s=ready_timeout, process=process)
        model_id = options.name if options.name in served else served[0]
        typer.echo(f"ready: litellm model string hosted_vllm/{model_id}, api_base {options.api_base}")
        typer.echo(
            "add to params.yaml under agents:\n" + params_snippet(model_id.split("/")[-1], model_id, options.api_base),
            nl=False,
        )
        typer.echo("serving until interrupted (Ctrl-C)")
        process.wait()
    except (RuntimeError, TimeoutError) as e:
        typer.echo(f"error: {e}", err=True)
        process.terminate()
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        process.terminate()
        process.wait(30)


@serve_app.command("check")
def serve_check(api_base: str = typer.Argument(..., help="e.g. http://127.0.0.1:8000/v1")) -> None:
    """Point at an OpenAI-compatible server that already runs: list its models as litellm strings."""
    from steps.llm.vllm import list_models, params_snippet

    try:
        served = list_models(api_base)
    except Exception as e:
        typer.echo(f"error: {api_base}/models did not answer ({type(e).__name__}: {e})", err=True)
        raise typer.Exit(1) from None
    for model_id in served:
        typer.echo(f"hosted_vllm/{model_id}  api_base {api_base}")
    if served:
        typer.echo(
            "add to params.yaml under agents:\n" + params_snippet(served[0].split("/")[-1], served[0], api_base),
            nl=False,
        )


if __name__ == "__main__":
    app()
