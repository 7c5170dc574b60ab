"""The tutorial notebooks in notebooks/.

Each tutorial is written once, as ``notebooks/NN-name.py`` in jupytext's percent format
(ruff checks it); the ``.ipynb`` beside it is generated from it without outputs
(``jupytext --update --to ipynb notebooks/[0-9][0-9]-*.py``). The tests check that the two
agree cell by cell, then run every notebook top to bottom in a real kernel (nbclient).

The notebooks' own ``# check:`` cells assert what their prose claims, so a wrong claim
stops the run. On top of that each run must show no error output outside the cells tagged
``raises-exception`` (which must raise), and named cells must show the summary text the
prose describes. Run times are printed (``pytest -s``) and recorded with
``record_property``; they are not asserted (a loaded CI machine with a cold Inductor cache
runs a notebook several times slower than a laptop). nbclient's per-cell timeout catches
a runaway cell.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest

from tests.support import ROOT

NOTEBOOKS_DIR = ROOT / "notebooks"

SOURCES = sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]-*.py"))

NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]-*.ipynb"))

EXPECTED = [
    "01-getting-started",
    "02-graph-breaks",
    "03-modes-and-timing",
    "04-recompiles-and-dynamic-shapes",
    "05-reading-generated-code",
    "06-compiling-a-training-step",
    "07-libraries-hf-and-fabric",
    "08-opening-torch-trace-logs",
    "09-when-compiled-numbers-differ",
    "10-cutting-compile-time",
]


def _key(cell) -> tuple[str, str, list[str]]:
    return cell.cell_type, cell.source.strip(), list(cell.metadata.get("tags", []))


def test_all_eight_tutorials_exist_in_both_forms():
    assert [p.stem for p in SOURCES] == EXPECTED
    assert [p.stem for p in NOTEBOOKS] == EXPECTED
    assert not (NOTEBOOKS_DIR / "make_notebooks.py").exists()


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_ipynb_is_generated_from_its_py(source: Path):
    """Cell types, sources and tags agree (metadata noise such as ids is ignored)."""
    authored = jupytext.read(source)
    committed = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
    fix = f"run: jupytext --update --to ipynb notebooks/{source.name}"
    assert len(authored.cells) == len(committed.cells), fix
    for i, (a, c) in enumerate(zip(authored.cells, committed.cells, strict=True)):
        assert _key(a) == _key(c), f"{source.name} cell {i} differs from the .ipynb; {fix}"
    # the magics written as comments in the .py (``# %%compile``) come back as magics
    magic = r"(?:\w+ = )?%%?\w.*"
    commented = re.findall(rf"^# ({magic})$", source.read_text(), re.M)
    magics = [line for c in authored.cells if c.cell_type == "code"
              for line in c.source.splitlines() if re.fullmatch(magic, line)]
    assert commented and commented == magics
    assert authored.metadata["kernelspec"]["name"] == "python3"


@pytest.mark.slow
def test_tutorial_sources_are_ruff_clean():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", *SOURCES],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


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
