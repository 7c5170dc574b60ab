# The two commands of the README: `make lab` and `make test`. Everything else is a step.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.nbcompile-installed

.PHONY: lab test test-fast setup lint benchmarks chromium labextension compat docs screenshots

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install torch==2.13.0
	$(PY) -m pip install -e '.[test]'
	touch $@

setup: $(STAMP)

# The JupyterLab extension (labextension/, TypeScript). `pip install -e .` above builds it
# once (hatch-jupyter-builder hook, needs node + npm) and copies it into the venv; after a
# source change this rebuilds it and links the venv to the build output.
LABEXT_OUT := nbcompile/labextension/static/style.js
LABEXT_SRC := $(wildcard labextension/src/*.ts labextension/src/*/*.ts labextension/style/*) \
	labextension/package.json labextension/package-lock.json labextension/tsconfig.json \
	labextension/scripts/gen-types.mjs nbcompile/schema/record-v1.schema.json
VENV_PATH := PATH="$(abspath $(VENV))/bin:$$PATH"

$(LABEXT_OUT): $(LABEXT_SRC) | $(STAMP)
	cd labextension && { test node_modules/.package-lock.json -nt package-lock.json || npm ci; }
	cd labextension && $(VENV_PATH) npm run build:prod
	$(VENV_PATH) jupyter labextension develop --overwrite .
	touch $@

labextension: $(LABEXT_OUT)

chromium:
	@command -v chromium >/dev/null || { apt-get update && apt-get install -y chromium; }

# root (as in containers) needs --allow-root; everyone else gets the plain command.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

lab: setup labextension
	$(VENV)/bin/jupyter lab $(ALLOW_ROOT) notebooks/

# Static checks: ruff and pyright (basic, pyrightconfig.json) on the Python, ESLint and
# Prettier on the TypeScript (labextension/eslint.config.mjs, .prettierrc.json).
LINT = $(VENV)/bin/ruff check nbcompile tests benchmarks && \
	$(VENV_PATH) $(VENV)/bin/pyright && \
	cd labextension && npm run --silent lint

# The whole suite: static checks, then every layer, Chromium included, in one process per
# core (pytest-xdist; at most 4: every test compiles): a test file per work unit, the
# longest folders first (tests/conftest.py). `make test TEST_PROCESSES=0` runs it in one.
TEST_PROCESSES ?= auto
test: setup labextension chromium
	$(LINT)
	$(PY) -m pytest -n $(TEST_PROCESSES) --maxprocesses=4

# The fast tier, for every change (about a minute): tests/core, display, schema and project
# less the tests marked `slow`; tests/shell, kernel and browser are slow as folders
# (tests/conftest.py). No Inductor compile of a real model, no kernel, no browser.
# tests/project is never all slow, so the selection is never empty.
test-fast: setup
	$(VENV)/bin/ruff check nbcompile tests benchmarks
	$(PY) -m pytest -m "not slow"

lint: setup labextension
	$(LINT)

# The documentation site (docs/, Sphinx + MyST-NB): docs/_build/html/index.html. The
# tutorials render from their executed copies in docs/tutorials/ (saved by the tutorial
# tests; the first line executes those missing or stale). Warnings are errors: a broken
# internal link, heading anchor, image or cross-reference fails the build (no network).
docs: setup
	$(PY) -m tests.support.tutorials
	$(VENV)/bin/sphinx-build -W --keep-going -q -b html docs docs/_build/html

# The documentation's screenshots, re-shot in JupyterLab (Chromium) from a real notebook
# into docs/_static/screenshots/ (tests/browser/test_screenshots.py).
screenshots: setup labextension chromium
	NBCOMPILE_SCREENSHOTS=docs $(PY) -m pytest -q tests/browser/test_screenshots.py

benchmarks: setup
	$(PY) -m benchmarks

# nbcompile on another torch, e.g. `make compat TORCH=2.9.1`: its own venv
# (.venv-compat-$(TORCH)), the non-browser suite and a user's session in a real kernel.
# Out of CI: `make test` does not run it (each torch is a download of several GB).
compat:
	@test -n "$(TORCH)" || { echo "usage: make compat TORCH=2.x.y" >&2; exit 2; }
	TORCH=$(TORCH) PYTHON=$(PYTHON) bash tests/compat/run.sh
