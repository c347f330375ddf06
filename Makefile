# Two set-up commands on a fresh machine with Python 3.11: `make run` and `make test`.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

# dvc runs each stage's `python -m flows.<stage>` with this PATH, i.e. inside the virtual environment.
export PATH := $(abspath $(BIN)):$(PATH)
# Python keeps its compiled modules (__pycache__, ignored by git) even where the environment says not to (this
# machine's does): the suite and the pipeline start hundreds of interpreters, and each would compile again every
# module it imports that the install did not compile, the project's own among them.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run agents test test-e2e typecheck pytest lint install install-local smoke-real lock clean-cache docs perf-docs

$(BIN)/python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found; install Python 3.11 or run 'make PYTHON=/path/to/python3.11 ...'"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt uv

# The pinned set, installed by uv (pip installed it above, pinned; 32 s against pip's 87 s on this machine, most of
# which was pip's own CPU), compiled as pip compiles it. Where uv cannot reach an index (pip's own configuration,
# which uv does not read, may be the only way out), pip installs the same set.
$(STAMP): $(BIN)/python pyproject.toml constraints.txt
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -c constraints.txt -e ".[dev]" \
	  || $(BIN)/python -m pip install --quiet -c constraints.txt -e ".[dev]"
	@touch $(STAMP)

install: $(STAMP)

# The `[local]` extra: llama.cpp's server (xllamacpp, a prebuilt CPU wheel) for `jurisflow serve local`.
LOCAL_STAMP := $(VENV)/.installed-local
$(LOCAL_STAMP): $(STAMP)
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -c constraints.txt -e ".[dev,local]" \
	  || $(BIN)/python -m pip install --quiet -c constraints.txt -e ".[dev,local]"
	@touch $(LOCAL_STAMP)

install-local: $(LOCAL_STAMP)

# Every benchmark on a small sample with a real local model (SmolLM2-135M on llama.cpp) as agent, environment and
# judge, in a copy under .cache/smoke-real/ (the committed run is untouched); outcomes in reports/real_model.md.
smoke-real: $(LOCAL_STAMP)
	$(BIN)/python -m flows.smoke_real

# The whole pipeline with one Prefect server for every stage (or the one PREFECT_API_URL names), every agent's
# stages JOBS at a time: the shared stages, then the agents concurrently, then the reports (`jurisflow agents run`,
# flows/agents.py). `make run JOBS=1` is one `dvc repro` of everything, one stage at a time (flows/pipeline.py).
JOBS ?= 2
run: $(STAMP)
	@if [ "$(JOBS)" = 1 ]; then $(BIN)/python -m flows.pipeline; else $(BIN)/jurisflow agents run --jobs $(JOBS); fi
	@$(BIN)/dvc status

agents: run

# pytest on three workers (pytest-xdist) on two cores, since the slow tests wait on servers and stages part of the
# time; each test file goes whole to one worker (`--dist loadfile`: a module's fixtures are built once), the files with
# slow tests first (tests/conftest.py). `make test PYTEST_ARGS=` runs the suite in one process. The type checker runs
# beside pytest; `make test` fails when either does.
PYTEST_ARGS ?= -n 3 --dist loadfile --no-loadscope-reorder -m "not e2e" --durations=15
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@$(MAKE) --no-print-directory -j2 typecheck pytest

# The tests that run whole pipelines of their own (the fault soak, concurrent and budgeted evals, several agents at
# once, the real-model slice): about 25 minutes more on two cores, so not part of `make test`.
test-e2e: $(STAMP)
	$(BIN)/python -m pytest -q -n 3 --dist loadfile --no-loadscope-reorder -m e2e --durations=15

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

# ruff, then the type checker (mypy, configured in pyproject.toml: [tool.mypy])
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The documentation site (mkdocs.yml, docs/) into site/, strict: a broken link or anchor fails the build (not
# --quiet: mkdocs then drops the warnings that strict mode counts).
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# docs/performance.md from the perf scripts' records (perf/results/*.jsonl; a script run with --record appends them).
perf-docs: $(STAMP)
	$(BIN)/python perf/write_docs.py

# The response cache and the dialogue journals (interrupted simulations resume from them); source downloads stay.
clean-cache:
	rm -rf .cache/llm .cache/journals

# Re-resolve the pinned set after editing pyproject.toml (then review the diff of constraints.txt).
lock: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev,local]"
	{ echo "# Full resolved dependency set (Python 3.11), used as pip constraints. Regenerate: make lock"; \
	  $(BIN)/python -m pip freeze --exclude-editable; } > constraints.txt
