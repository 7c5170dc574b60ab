"""The tutorial notebooks in notebooks/: committed without outputs, the six tutorials
reproduced by their generator (notebooks/make_notebooks.py), and every notebook executed
top to bottom in a real kernel (nbclient) without errors.

The notebooks' own ``# check:`` cells assert what their prose claims, so executing them
is the test. Per-notebook run times are printed (``pytest -s`` or the ``-ra`` summary via
``record_property``) and checked against the 3-minute budget of issue 6, with a margin
for a loaded machine (``NBCOMPILE_NOTEBOOK_BUDGET_S`` overrides it).
"""

from __future__ import annotations

import importlib.util
import os
import time
from pathlib import Path

import nbformat
import pytest

from .conftest import ROOT, execute_notebook

NOTEBOOKS_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]-*.ipynb"))
#: The issue's budget is 3 minutes per notebook on 2 cores; other work on a shared machine
#: can slow compiles down, so the test fails only well past it.
BUDGET_S = float(os.environ.get("NBCOMPILE_NOTEBOOK_BUDGET_S", "300"))
EXPECTED = [
    "01-getting-started",
    "02-graph-breaks",
    "03-modes-and-timing",
    "04-recompiles-and-dynamic-shapes",
    "05-reading-generated-code",
    "06-compiling-a-training-step",
]


def _generator():
    spec = importlib.util.spec_from_file_location(
        "make_notebooks", NOTEBOOKS_DIR / "make_notebooks.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_all_six_tutorials_exist():
    assert set(EXPECTED) <= {p.stem for p in NOTEBOOKS}
    assert list(_generator().NOTEBOOKS) == EXPECTED


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_notebook_has_no_outputs(path: Path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        assert cell.get("outputs") == [], f"{path.name} cell {i} has outputs: strip them"
        assert cell.get("execution_count") is None, f"{path.name} cell {i} has a count"
    assert any(c.cell_type == "markdown" for c in nb.cells)
    assert any(c.source.startswith("# check:") for c in nb.cells), "no assertion cell"


def test_generator_reproduces_the_committed_notebooks(tmp_path: Path):
    written = _generator().write_all(tmp_path)
    assert {p.name for p in written} <= {p.name for p in NOTEBOOKS}
    for path in written:
        assert path.read_text() == (NOTEBOOKS_DIR / path.name).read_text(), (
            f"{path.name} differs from notebooks/make_notebooks.py: re-run the generator"
        )


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_top_to_bottom(path: Path, record_property):
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    executed = execute_notebook(nb, cwd=NOTEBOOKS_DIR, timeout=600)
    elapsed = time.perf_counter() - start
    record_property("run_time_s", round(elapsed, 1))
    print(f"\n{path.name}: {elapsed:.1f} s")
    errors = [
        (i, o) for i, c in enumerate(executed.cells) if c.cell_type == "code"
        for o in c.get("outputs", []) if o.get("output_type") == "error"
    ]
    assert not errors  # execute_notebook raises first; this guards allow_errors changes
    assert elapsed < BUDGET_S, f"{path.name} took {elapsed:.0f} s (budget {BUDGET_S:.0f} s)"
