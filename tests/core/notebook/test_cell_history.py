"""The kernel's cell history: what each cell run changed, and which of those changes a
failed guard reads (no IPython: the events are told directly, as magics/ tells them)."""

from __future__ import annotations

import torch

from nbcompile.core.notebook.cells.cell_history import CellHistory, reads


def test_reads_globals_and_worded_module_paths():
    assert reads("G['SCALE'] == 1.0", "global SCALE changed") == {"SCALE"}
    assert reads("", "model[1].training changed: model.eval() was called") == {"model"}
    assert reads("", "tensor 'x' size mismatch at index 0. expected 4, actual 8") == set()


def test_changes_since_the_previous_compile_and_the_running_cell():
    ns: dict = {"SCALE": 1.0, "model": torch.nn.Sequential(torch.nn.Dropout())}
    history = CellHistory()
    history.begin(3, ns)
    history.end()  # nothing changed
    history.begin(4, ns)
    ns["SCALE"] = 0.5
    history.end()
    history.begin(5, ns)
    ns["model"].eval()
    history.end()
    history.begin(6, ns)
    ns["SCALE"] = 2.0  # before the call that recompiles, in the running cell
    assert [c.words() for c in history.changes_for("G['SCALE'] == 0.5", "", 0)] == [
        "cell [4] set SCALE = 0.5", "cell [6] set SCALE = 2.0"]
    (mode,) = history.changes_for("", "model[0].training changed", 0)
    assert mode.cell == 5 and "put model in eval mode" in mode.text
    # a run of the previous compile counts only when no later run changed it
    assert history.changes_for("G['SCALE'] == 0.5", "", 1)[0].cell == 6
    assert history.changes_for("G['OTHER'] == 1", "", 0) == []
    history.end()
    assert history.current() is None


def test_an_arguments_holders_name_the_cell_that_changed_them():
    """A tensor guard reads an argument (``tensor 'x' ...``): the globals that held the
    call's argument are where a cell's change shows."""
    ns: dict = {"X": torch.ones(3), "N": 3, "other": torch.ones(3)}
    history = CellHistory()
    assert history.holders({"x": ns["X"]}) == {}  # no cell running: nothing held
    history.begin(7, ns)
    ns["X"] = torch.ones(3, 4)
    history.end()
    history.begin(8, ns)
    held = history.holders({"x": ns["X"], "n": ns["N"], "y": torch.ones(1)})
    assert held == {"x": ["X"]}  # numbers are values, not variables; y is in no global
    guard = "tensor 'x' rank mismatch. expected 1, actual 2"
    assert history.changes_for(guard, "", 0) == []  # the guard alone names no global
    (change,) = history.changes_for(guard, "", 0, also=set(held["x"]))
    assert change.words() == "cell [7] set X = a new Tensor"
    history.end()
