"""The tutorials executed once, for the tests and the documentation site.

``tests/kernel/test_notebooks.py`` runs every tutorial in a real kernel and, when the run
passes, saves the executed copy in ``docs/tutorials/`` (gitignored), where the Sphinx build
reads it (``nb_execution_mode = "off"``): the suite does not run the tutorials twice.
``python -m tests.support.tutorials`` (``make docs``) executes those that are missing or
stale (their cells differ from ``notebooks/NN-name.ipynb``).

Each tutorial runs under its own lock (``running``): the suite's processes run tutorials
side by side, and the documentation build, finding one still running in another process,
waits for it instead of running it again.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from filelock import FileLock

from tests.support import ROOT

NOTEBOOKS_DIR = ROOT / "notebooks"
#: Where the executed copies go: the documentation's tutorials folder.
EXECUTED_DIR = ROOT / "docs" / "tutorials"


def tutorials() -> list[Path]:
    """The committed tutorials, ``notebooks/NN-name.ipynb`` (no outputs)."""
    return sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]-*.ipynb"))


def executed_path(source: Path) -> Path:
    return EXECUTED_DIR / source.name


def _cells(nb: nbformat.NotebookNode) -> list[tuple[str, str]]:
    return [(c.cell_type, c.source.strip()) for c in nb.cells]


def is_current(source: Path) -> bool:
    """An executed copy exists, every code cell ran, and its cells are the tutorial's."""
    done = executed_path(source)
    if not done.exists():
        return False
    executed = nbformat.read(done, as_version=4)
    committed = nbformat.read(source, as_version=4)
    ran = all(c.get("execution_count") for c in executed.cells if c.cell_type == "code")
    return ran and _cells(executed) == _cells(committed)


def running(source: Path) -> FileLock:
    """``source``'s lock (one per tutorial, across processes), held while it runs."""
    EXECUTED_DIR.mkdir(parents=True, exist_ok=True)
    return FileLock(str(EXECUTED_DIR / f".{source.stem}.lock"))


def execute_if_stale(source: Path) -> None:
    """Run ``source`` unless its executed copy is current, once its lock is free (a
    run in another process saves a current copy first)."""
    with running(source):
        if not is_current(source):
            execute(source)


def save_executed(source: Path, executed: nbformat.NotebookNode) -> Path:
    """Write the executed copy of ``source`` where the documentation reads it."""
    EXECUTED_DIR.mkdir(parents=True, exist_ok=True)
    path = executed_path(source)
    tmp = path.with_suffix(".tmp")
    nbformat.write(executed, tmp)
    tmp.replace(path)
    return path


def errors(nb: nbformat.NotebookNode) -> list[str]:
    """The errors of cells not tagged ``raises-exception`` (those may raise)."""
    return [f"{o['ename']}: {o['evalue']}" for c in nb.cells if c.cell_type == "code"
            and "raises-exception" not in c.metadata.get("tags", [])
            for o in c.get("outputs", []) if o.get("output_type") == "error"]


def execute(source: Path) -> Path:
    """Run a tutorial top to bottom in a real kernel and save the executed copy; a cell
    that raised where it should not is an error (nothing is saved)."""
    from tests.support.kernel import execute_notebook

    nb = nbformat.read(source, as_version=4)
    executed = execute_notebook(nb, cwd=NOTEBOOKS_DIR, timeout=600, allow_errors=True)
    failed = errors(executed)
    if failed:
        raise RuntimeError(f"{source.name} raised: {'; '.join(failed)}")
    return save_executed(source, executed)


def main(argv: list[str]) -> int:
    """Execute the tutorials whose executed copy is missing or stale (``--force``: all)."""
    force = "--force" in argv
    for source in tutorials():
        if force or not is_current(source):
            print(f"executing {source.name} ...", flush=True)
            with running(source):
                execute(source)
        else:
            print(f"{source.name}: executed copy is current")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
