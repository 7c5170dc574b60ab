"""Shared test fixtures: one Inductor cache for the whole run, a real in-process IPython
shell with nbcompile loaded, and a helper that executes notebooks in a real kernel."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Before torch is imported anywhere: compiled artifacts are shared by all tests and by
# the kernels they start (honest sharing: each test still compiles its own code objects).
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(ROOT / ".cache" / "inductor"))

import nbformat  # noqa: E402
import pytest  # noqa: E402
from nbclient import NotebookClient  # noqa: E402


@pytest.fixture(scope="session")
def ip():
    """The real in-process IPython shell with ``%load_ext nbcompile`` done."""
    from IPython.testing.globalipapp import start_ipython

    shell = start_ipython()
    # As in a real kernel, the user namespace is the __main__ module (Dynamo resolves
    # globals of inlined user functions through sys.modules[fn.__module__]).
    saved_main = sys.modules.get("__main__")
    sys.modules["__main__"] = shell.user_module
    shell.run_line_magic("load_ext", "nbcompile")
    yield shell
    if saved_main is not None:
        sys.modules["__main__"] = saved_main


def run_cell(ip, source: str):
    """Run a cell like the notebook does; raise if it failed."""
    result = ip.run_cell(source)
    result.raise_error()
    return result


def make_notebook(cells: list[str]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    nb.metadata["kernelspec"] = {
        "name": "python3", "display_name": "Python 3", "language": "python"
    }
    return nb


def execute_notebook(nb: nbformat.NotebookNode, cwd: Path | None = None, timeout: int = 900,
                     allow_errors: bool = False) -> nbformat.NotebookNode:
    """Execute a notebook in a real kernel (nbclient); returns it with outputs."""
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            allow_errors=allow_errors,
                            resources={"metadata": {"path": str(cwd or ROOT)}})
    client.execute()
    return nb


def outputs_of(cell) -> list[dict]:
    return [dict(o) for o in cell.get("outputs", [])]
