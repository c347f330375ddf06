"""A warm stage server: one process that has already imported what stages import forks each `python -m flows.<stage>`.

Every stage process spends 3-8 s of CPU importing pandas, pyarrow, pandera, DuckDB, Prefect and litellm before its
first useful line; a whole-pipeline `dvc repro` starts about 30 of them. `stage_server(env)` starts one server for a
run (`make run`, `jurisflow agents run`, the tests' pipelines) and returns the run's environment with
JURISFLOW_STAGE_SERVER naming its socket. The stage command stays `python -m flows.<stage>` (dvc.yaml): importing
`flows` hands the command to the server (`hand_over`), which forks a child that runs the module as `python -m` would,
with the command's arguments, working directory, stdin, stdout and stderr, and sends back its exit code; signals the
command gets (Ctrl-C, `kill`) are passed on to the child, and a command that dies takes its child with it.

A forked stage must be the stage a fresh process would be, so the server refuses a command (which then runs in its own
process, as without a server) unless its environment and working directory are those the server started with; only
the variables DVC sets per stage (DVC_ROOT, DVC_STAGE) and the shell's bookkeeping may differ, and the child takes the
command's values. Libraries read their settings from the environment at import (Prefect's profile and API URL,
litellm's price map), which is why a server serves one environment and one project folder.
JURISFLOW_NO_STAGE_SERVER=1 runs every stage in a process of its own instead (perf/stage_server.py compares).
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ENV_VAR = "JURISFLOW_STAGE_SERVER"
OFF_VAR = "JURISFLOW_NO_STAGE_SERVER"  # set (non-empty): no server; each stage starts its own interpreter

# What the stages import; the project's own modules that set environment defaults before importing a library
# (steps.llm sets litellm's local price map) come first, so the server's environment matches a stage's.
PRELOAD = (
    "flows.kit.stage",
    "flows.kit.config",
    "flows.kit.models",
    "flows.kit.monitor",
    "steps.tables",
    "flows.kit.progress",
    "steps.llm.door",
    "steps.llm.scripted_provider",
    "pandera.pandas",
    "pyarrow.parquet",
    "duckdb",
    "jinja2",
    "prefect.flows",
    "prefect.tasks",
    "prefect.client.orchestration",
    "prefect.logging.handlers",
    # imported lazily inside a stage (measured with `python -X importtime` after the lines above: 0.2-1.6 s a stage)
    "prefect.main",
    "prefect.flow_engine",
    "prefect.task_engine",
    "prefect.utilities.visualization",
    "prefect.artifacts",
    "fastapi.encoders",
    "pydantic.v1",
    "anyio._core._sockets",
    "anyio._core._streams",
    "rich._emoji_codes",
    "pandas.core.arrays.arrow.extension_types",
    "pandas.io.formats.string",
    "pandera.accessors.pandas_accessor",
    "pandera.backends.pandas.register",
    "pandera.backends.pandas.builtin_checks",
    "pandera.typing.geopandas",
    "pyarrow.dataset",
    "cn2an",
    "jieba",
    "pypinyin",
    "numba",
    "openai.resources",  # on a stage's first call to an OpenAI-compatible server: 0.6 s
    "steps.judges",  # pydantic models: 0.3 s (not steps.judges.scripted, which registers a model)
    # on a stage's first model call, scripted ones included: litellm's file-id helpers and its default tokenizer
    "litellm.proxy.openai_files_endpoints.common_utils",
    "litellm.main:_get_encoding",
    # the response cache's shards are looked up in DVC's object cache (flows/kit/call_cache.py: _dvc_cache)
    "dvc.repo",
    "dvc.scm",
    "dvc.lock",
    # `module:function`: imported, then called. jieba's dictionary: 0.6 s of CPU in every LawBench scoring stage and
    # again in each of its scoring processes (forked from the stage, so they inherit it too)
    "steps.lawbench.metrics.rouge:load_dictionary",
)

# Variables a stage's command may have that the server's environment lacks, or has with another value. PS1 and PS2:
# DVC runs a stage's command with `$SHELL -c`, and a non-interactive bash unsets them; a prompt exported by a
# virtualenv's `activate` made every stage of `make run` refuse the server.
_PER_COMMAND = frozenset({ENV_VAR, "_", "SHLVL", "PWD", "OLDPWD", "PS1", "PS2"})
START_TIMEOUT_S = 180.0
TERM_GRACE_S = 10.0


def dvc_root(start: Path | None = None) -> Path:
    """The DVC project holding `start` (default: the working directory): the folder its stages run in."""
    here = (start or Path.cwd()).resolve()
    return next((p for p in (here, *here.parents) if (p / ".dvc").is_dir()), here)


def _per_command(name: str) -> bool:
    return name in _PER_COMMAND or name.startswith("DVC_")


def _difference(ours: dict[str, str], theirs: dict[str, str]) -> list[str]:
    """The variables (names only: values may be secrets) that differ, those DVC and the shell set per command aside."""
    names = {n for n in ours.keys() | theirs.keys() if not _per_command(n)}
    return sorted(n for n in names if ours.get(n) != theirs.get(n))


# ---------------------------------------------------------------------------------------------------------- client


def _read_line(sock: socket.socket, buffer: bytearray) -> bytes | None:
    while b"\n" not in buffer:
        chunk = sock.recv(4096)
        if not chunk:
            return None
        buffer.extend(chunk)
    line, _, rest = bytes(buffer).partition(b"\n")
    buffer[:] = rest
    return line


def hand_over(path: str, module: str, args: list[str]) -> int | None:
    """Run `python -m module args` in the stage server at `path`; its exit code, or None when the server is not
    there or refuses the command (the caller then runs it itself)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        return None
    request = {"module": module, "args": args, "cwd": os.getcwd(), "env": dict(os.environ)}
    payload = json.dumps(request).encode() + b"\n"
    buffer = bytearray()
    with sock:
        try:
            sent = socket.send_fds(sock, [payload], [0, 1, 2])
            if sent < len(payload):
                sock.sendall(payload[sent:])
            reply = _read_line(sock, buffer)
        except OSError:  # the server went away before it took the command: nothing ran there
            return None
        if reply is None or not reply.startswith(b"ok "):
            return None
        pid = int(reply.split()[1])

        def forward(signum: int, _frame: object) -> None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)

        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, forward)
        try:
            done = _read_line(sock, buffer)
        except OSError:
            done = None
    if done is None or not done.startswith(b"exit "):
        print(f"error: the stage server lost `python -m {module}` (pid {pid})", file=sys.stderr)
        return 1
    return int(done.split()[1])


# ---------------------------------------------------------------------------------------------------------- server


@dataclass
class _Child:
    conn: socket.socket
    term_at: float | None = None  # when the command went away: SIGTERM sent then, SIGKILL after TERM_GRACE_S


def _run_child(request: dict, fds: list[int], keep: list[int]) -> None:
    """In the forked child: become the command's process and run its module as __main__; never returns."""
    code = 1
    try:
        for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.set_wakeup_fd(-1)
        os.setpgid(0, 0)  # the stage and what it starts: one group, for the server to stop together
        for fd in keep:
            os.close(fd)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        sys.stdout.reconfigure(line_buffering=sys.stdout.isatty())  # type: ignore[union-attr]  # as at start-up
        os.chdir(request["cwd"])
        env = request["env"]
        for name in [n for n in os.environ if _per_command(n) and n not in env]:
            del os.environ[name]
        os.environ.update({n: v for n, v in env.items() if _per_command(n)})
        sys.argv = [request["module"], *request["args"]]
        import runpy

        runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as stop:
        if stop.code is None or isinstance(stop.code, int):
            code = stop.code or 0
        else:
            print(stop.code, file=sys.stderr)
    except BaseException:  # what `python -m` would print for an uncaught exception
        import traceback

        traceback.print_exc()
    finally:
        try:
            threading._shutdown()  # type: ignore[attr-defined]  # as at interpreter exit: wait for non-daemon threads
            atexit._run_exitfuncs()
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
        finally:
            os._exit(code)


def _load(preload: tuple[str, ...]) -> None:
    """Import each module of `preload`, calling the function of each `module:function` entry."""
    for entry in preload:
        name, _, function = entry.partition(":")
        module = importlib.import_module(name)
        if function:
            getattr(module, function)()
    if threading.active_count() != 1:  # forking a process with threads copies their locks, held or not
        raise RuntimeError(f"the preloads started threads: {threading.enumerate()}")


def serve(path: str, preload: tuple[str, ...] = PRELOAD, nice: int = 0) -> None:
    """Listen at `path`, fork a child per accepted command until SIGTERM or the parent is gone, with `preload`
    imported (and the function of each `module:function` entry called) before the first; `nice`: the priority
    increment of the server and so of its stages (`nice -n` for a run in the background).

    The preloads wait for the first command the server takes: they cost 8-10 s of CPU, and a `dvc repro` that finds
    every stage up to date sends none. Preloads that fail are reported in the log as the reason each command is
    refused (the command then runs in its own process, where the same import fails the stage if it needs it)."""
    parent, cwd, env = os.getppid(), os.getcwd(), dict(os.environ)
    if nice:
        os.nice(nice)
    loaded: str | None = ""  # "" not yet; None loaded; else why the preloads failed (every command is then refused)

    def preloaded() -> str | None:
        """None once the preloads are in (loading them on the first call), else why they could not be."""
        nonlocal loaded
        if loaded == "":
            try:
                _load(preload)
                loaded = None
            except Exception as err:  # a broken import must not end the server: its commands run on their own
                loaded = f"the preloads failed: {type(err).__name__}: {err}"
        return loaded

    wake_r, wake_w = socket.socketpair()
    wake_r.setblocking(False)
    wake_w.setblocking(False)
    signal.set_wakeup_fd(wake_w.fileno())
    stopping = False

    def stop(_signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGCHLD, lambda *_: None)  # the wake-up fd does the work
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".tmp")
    listener.listen(16)
    os.replace(path + ".tmp", path)  # the socket appears once it accepts: the launcher waits for it
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(wake_r, selectors.EVENT_READ, "wake")
    children: dict[int, _Child] = {}

    def accept() -> None:
        conn, _ = listener.accept()
        conn.settimeout(30)
        try:
            data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 16, 3)  # the descriptors come with the first bytes
            line = _read_line(conn, bytearray(data))
            if line is None:
                raise ConnectionError("the command hung up")
            request = json.loads(line)
        except (OSError, ValueError) as err:
            print(f"stage server: bad request: {err}", file=sys.stderr, flush=True)
            conn.close()
            return
        refusal = None
        if len(fds) != 3:
            refusal = f"expected 3 descriptors, got {len(fds)}"
        elif request["cwd"] != cwd:
            refusal = f"working directory {request['cwd']} is not {cwd}"
        elif differ := _difference(env, request["env"]):
            refusal = f"environment differs: {', '.join(differ)}"
        elif (failed := preloaded()) is not None:
            refusal = failed
        if refusal is not None:
            print(f"stage server: refused {request['module']}: {refusal}", file=sys.stderr, flush=True)
            for fd in fds:
                os.close(fd)
            conn.sendall(b"no " + refusal.encode() + b"\n")
            conn.close()
            return
        sys.stdout.flush()
        sys.stderr.flush()
        keep = [listener.fileno(), wake_r.fileno(), wake_w.fileno(), conn.fileno()]
        keep += [c.conn.fileno() for c in children.values()]
        pid = os.fork()
        if pid == 0:
            selector.close()
            _run_child(request, fds, keep)
        for fd in fds:
            os.close(fd)
        print(
            f"stage server: {request['module']} {' '.join(request['args'])} -> pid {pid}", file=sys.stderr, flush=True
        )
        conn.sendall(f"ok {pid}\n".encode())
        conn.setblocking(False)
        children[pid] = _Child(conn)
        selector.register(conn, selectors.EVENT_READ, pid)

    def reap() -> None:
        while children:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            child = children.pop(pid, None)
            if child is None:
                continue
            code = os.waitstatus_to_exitcode(status)  # -N: ended by signal N (the command then ends by it too)
            cpu = usage.ru_utime + usage.ru_stime  # the stage's and its waited-for children's
            print(f"stage server: pid {pid} exited {code} ({cpu:.1f} s CPU)", file=sys.stderr, flush=True)
            selector.unregister(child.conn)
            with contextlib.suppress(OSError):
                child.conn.setblocking(True)
                child.conn.sendall(f"exit {code}\n".encode())
            child.conn.close()

    def signal_group(pid: int, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signum)

    try:
        while not stopping and os.getppid() == parent:
            for key, _ in selector.select(timeout=1.0):
                if key.data == "accept":
                    accept()
                elif key.data == "wake":
                    with contextlib.suppress(BlockingIOError):
                        while wake_r.recv(4096):
                            pass
                elif isinstance(key.data, int):  # the command's end of a child's connection: EOF = it went away
                    child = children.get(key.data)
                    if child is not None and child.term_at is None and not _peek(child.conn):
                        child.term_at = time.monotonic()
                        selector.unregister(child.conn)
                        signal_group(key.data, signal.SIGTERM)
            reap()
            now = time.monotonic()
            for pid, child in children.items():
                if child.term_at is not None and now - child.term_at > TERM_GRACE_S:
                    signal_group(pid, signal.SIGKILL)
    finally:
        listener.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        for pid in children:
            signal_group(pid, signal.SIGTERM)
        deadline = time.monotonic() + TERM_GRACE_S
        while children and time.monotonic() < deadline:
            reap()
            time.sleep(0.1)
        for pid in children:
            signal_group(pid, signal.SIGKILL)


def _peek(conn: socket.socket) -> bool:
    """Whether the command is still there (its end of the connection open)."""
    try:
        return bool(conn.recv(1, socket.MSG_PEEK))
    except BlockingIOError:
        return True
    except OSError:
        return False


@contextlib.contextmanager
def stage_server(
    env: dict[str, str],
    cwd: Path | str | None = None,
    log: Path | None = None,
    preload: tuple[str, ...] = PRELOAD,
    nice: int = 0,
    python: str = sys.executable,
) -> Iterator[dict[str, str]]:
    """A stage server for commands run with `env` in `cwd` (default: `dvc_root()`, where dvc runs the stages);
    yields `env` with JURISFLOW_STAGE_SERVER set, for the `dvc repro` whose stages it serves. Its log (a line per
    command: forked, refused, exit code) goes to `log`; `nice`: the stages' priority increment."""
    env = {k: v for k, v in env.items() if k != ENV_VAR}
    if env.get(OFF_VAR):  # every stage in a process of its own, as before the server (a comparison, a doubt)
        yield env
        return
    with tempfile.TemporaryDirectory(prefix="jurisflow-stages-") as folder:
        path = os.path.join(folder, "stages.sock")  # short: a socket's path is limited to 107 bytes
        log_path = str(log) if log is not None else os.path.join(folder, "stage-server.log")
        with open(log_path, "w", encoding="utf-8") as out:
            proc = subprocess.Popen(
                [python, "-m", __name__, path, str(nice), *preload],
                cwd=dvc_root() if cwd is None else cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
            )
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
            while not os.path.exists(path):
                if proc.poll() is not None or time.monotonic() > deadline:
                    tail = Path(log_path).read_text(encoding="utf-8")[-2000:]
                    raise RuntimeError(f"the stage server did not start (exit {proc.poll()}): {tail}")
                time.sleep(0.1)
            yield {**env, ENV_VAR: path}
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=TERM_GRACE_S + 20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def served(log: str) -> tuple[int, int]:
    """(commands forked, commands refused) in a stage server's log."""
    lines = log.splitlines()
    return sum(" -> pid " in line for line in lines), sum(": refused " in line for line in lines)


if __name__ == "__main__":
    serve(sys.argv[1], tuple(sys.argv[3:]), int(sys.argv[2]))
