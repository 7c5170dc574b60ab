# The two commands of the README: `make lab` and `make test`. Everything else is a step.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.nbcompile-installed

.PHONY: lab test setup lint benchmarks chromium

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install torch==2.13.0
	$(PY) -m pip install -e '.[test]'
	touch $@

setup: $(STAMP)

chromium:
	@command -v chromium >/dev/null || { apt-get update && apt-get install -y chromium; }

# root (as in containers) needs --allow-root; everyone else gets the plain command.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

lab: setup
	$(VENV)/bin/jupyter lab $(ALLOW_ROOT) notebooks/

test: setup chromium
	$(VENV)/bin/ruff check nbcompile tests benchmarks
	$(PY) -m pytest

lint: setup
	$(VENV)/bin/ruff check nbcompile tests benchmarks

benchmarks: setup
	$(PY) -m benchmarks
