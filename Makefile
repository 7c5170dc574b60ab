# The two commands of the README: `make lab` and `make test`. Everything else is a step.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.nbcompile-installed

.PHONY: lab test test-fast setup lint benchmarks chromium labextension compat docs screenshots \
	gpu-wheels test-gpu recorded-runs

# The extension's node packages download while torch installs (two cores busy, not one);
# the editable install after them builds the extension with those packages. torch comes
# through pip (its configuration finds the CPU wheel on disk); the rest through uv where it
# installs (parallel downloads and unpacking: ~10 s where pip takes ~45 s), else pip. With
# torch installed, uv keeps it: every dependency's torch range admits 2.13.0. uv compiles
# the packages to bytecode as pip does (it does not by default): under
# PYTHONDONTWRITEBYTECODE every kernel, server and fresh process would compile Jupyter's and
# Transformers' sources again at each import.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@npmlog=$$(mktemp); \
	(cd labextension && { test node_modules/.package-lock.json -nt package-lock.json \
		|| npm ci; }) > $$npmlog 2>&1 & npm=$$!; \
	$(PY) -m pip install torch==2.13.0; torch=$$?; \
	wait $$npm; npmok=$$?; cat $$npmlog; rm -f $$npmlog; \
	if [ $$torch -ne 0 ] || [ $$npmok -ne 0 ]; then exit 1; fi
	{ $(PY) -m pip install uv && $(VENV)/bin/uv pip install --compile-bytecode --python $(PY) -e '.[test]'; } \
		|| $(PY) -m pip install -e '.[test]'
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

# The whole suite: static checks beside every layer of tests, Chromium included, in one
# process per core (pytest-xdist; at most 4: every test compiles): a test file per work
# unit, the longest folders first (tests/conftest.py). The static checks (one core, about a
# minute) run alongside and print when the tests end; either failing fails `make test`.
# `make test TEST_PROCESSES=0` runs the tests in one process.
TEST_PROCESSES ?= auto
# The project's own sources compiled to bytecode first (well under a second): the kernels,
# servers and fresh processes the tests start would otherwise compile them at each import
# where PYTHONDONTWRITEBYTECODE is set.
BYTECODE := $(PY) -m compileall -q nbcompile tests benchmarks > /dev/null

test: setup labextension chromium
	@$(BYTECODE)
	@lintlog=$$(mktemp); { $(LINT); } > $$lintlog 2>&1 & lint=$$!; \
	$(PY) -m pytest -n $(TEST_PROCESSES) --maxprocesses=4; tests=$$?; \
	wait $$lint; linted=$$?; echo "--- static checks (ruff, pyright, ESLint, Prettier)"; \
	cat $$lintlog; rm -f $$lintlog; \
	if [ $$linted -ne 0 ]; then echo "make test: the static checks failed (above)" >&2; fi; \
	if [ $$tests -ne 0 ] || [ $$linted -ne 0 ]; then exit 1; fi

# The fast tier, for every change (about a minute): tests/core, display, schema and project
# less the tests marked `slow`; tests/shell, kernel and browser are slow as folders
# (tests/conftest.py). No Inductor compile of a real model, no kernel, no browser.
# tests/project is never all slow, so the selection is never empty.
test-fast: setup
	@$(BYTECODE)
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

# The TORCH_TRACE runs the trace tests read (torchrun jobs and scripts, a few minutes),
# recorded again into tests/fixtures/traces/recorded-runs.tar.xz: after a change to their
# programs or the torch pin (tests/project/test_recorded_runs.py says when).
recorded-runs: setup
	$(PY) tests/fixtures/traces/record_runs.py --archive

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

# The GPU suite (tests/gpu/; docs/project/gpu.md): `make test-gpu` runs on a lent CUDA
# device in one call, with the torch and Python (3.12) it has and no network. What
# nbcompile needs that the device lacks travels as wheels: `make gpu-wheels` fetches them
# here into .whl/ (ignored), the device call carries `.whl`. Without CUDA every test of
# tests/gpu/ is skipped (collected by `make test` too).
WHEELS := .whl
GPU_WHEELS := ipython==9.18.1 ipython_pygments_lexers==1.1.1 jedi==0.20.1 parso==0.8.7 \
	matplotlib-inline==0.2.2 pexpect==4.9.0 ptyprocess==0.7.0 prompt_toolkit==3.0.53 \
	wcwidth==0.9.4 stack_data==0.6.3 executing==2.3.0 asttokens==3.0.2 pure_eval==0.2.4 \
	traitlets==5.16.1 comm==0.2.3 ipywidgets==8.1.9 \
	widgetsnbextension==4.0.16 jupyterlab_widgets==3.0.17
PIP_PYTHON := $(if $(wildcard $(PY)),$(PY),$(PYTHON))

gpu-wheels:
	mkdir -p $(WHEELS)
	$(PIP_PYTHON) -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
		--implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
		--platform manylinux2014_x86_64 -d $(WHEELS) $(GPU_WHEELS)

# On the device: the wheels into GPU_SITE, nbcompile from this tree (PYTHONPATH), then
# pytest tests/gpu; its junit XML and the scenarios' evidence (records, torch's CUDA-graph
# messages, trimmed TORCH_TRACE logs) go to GPU_EVIDENCE and, when $OUT is set (the device
# tool), into $OUT as junit-gpu.xml, gpu-evidence.tar.gz and test-gpu.log.
GPU_SITE ?= /tmp/site
GPU_EVIDENCE ?= test-artifacts/gpu
GPU_TEST_TIMEOUT ?= 400
GPU_TESTS ?= tests/gpu
test-gpu:
	@ls $(WHEELS)/*.whl >/dev/null 2>&1 || { echo "no wheels in $(WHEELS)/: run" \
		"'make gpu-wheels' here and carry .whl to the device" >&2; exit 2; }
	$(PYTHON) -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
		--target $(GPU_SITE) $(WHEELS)/*.whl
	rm -rf $(GPU_EVIDENCE) && mkdir -p $(GPU_EVIDENCE)
	set -o pipefail; start=$$(date +%s); \
	PYTHONPATH=$(GPU_SITE):$(CURDIR) PYTHONUNBUFFERED=1 NBCOMPILE_GPU_EVIDENCE=$(GPU_EVIDENCE) \
		timeout $(GPU_TEST_TIMEOUT) $(PYTHON) -m pytest -p no:cacheprovider -n 0 -v --timeout 240 \
		--junitxml=$(GPU_EVIDENCE)/junit-gpu.xml $(GPU_TESTS) 2>&1 | tee $(GPU_EVIDENCE)/test-gpu.log; \
	status=$$?; \
	PYTHONPATH=$(GPU_SITE) $(PYTHON) -c "import sys, torch, triton; print('python', sys.version.split()[0]); \
		print('torch', torch.__version__, 'triton', triton.__version__); \
		print('device', torch.cuda.get_device_name() if torch.cuda.is_available() else 'none')" \
		>> $(GPU_EVIDENCE)/test-gpu.log 2>&1; \
	echo "test-gpu: pytest exit $$status in $$(( $$(date +%s) - start )) s" | tee -a $(GPU_EVIDENCE)/test-gpu.log; \
	if [ -n "$$OUT" ]; then \
		cp $(GPU_EVIDENCE)/junit-gpu.xml $(GPU_EVIDENCE)/test-gpu.log "$$OUT"/ 2>/dev/null; \
		tar czf "$$OUT"/gpu-evidence.tar.gz -C $(GPU_EVIDENCE) .; \
	fi; \
	exit $$status
