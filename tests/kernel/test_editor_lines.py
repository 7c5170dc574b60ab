"""Every line a record names is the editor's line, whatever the cell starts with (blank
lines above and below the ``%%compile`` / ``%%stance`` line), held against torch's own
record of the same code in the same kernel (``explain``'s break stack, a traceback); and a
function the user marked ``@torch.compiler.disable`` is said as disabled, not waiting.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.support.kernel import execute_notebook, make_notebook, outputs_of

# Blank lines above the magic and below it, then a comment: the editor's lines of the
# break (the print) and of the def are counted from these strings.
BREAK_CELL = ("\n%%compile --backend eager\n\n\n# a comment first\nimport torch\n"
              "def el_f(x):\n    y = x.sin()\n    print('debug')\n    return y * 2\n")
STANCE_CELL = "%%stance default\n\nx = 1\nraise ValueError('editor line 4')\n"
DISABLED_CELL = ("%%compile --backend eager\nimport torch\n\n@torch.compiler.disable\n"
                 "def el_off(x):\n    return x + 1\n")

CELLS = [
    "%load_ext nbcompile",
    BREAK_CELL,
    "_ = el_f(torch.ones(3))",
    # nbcompile's record, then torch's own answer for the same code (explain's stack)
    "import json, nbcompile\nr = nbcompile.report(el_f)\n"
    "print(json.dumps({'breaks': [b.lineno for b in r.graph_breaks],\n"
    "    'first': sorted({c.firstlineno for c in r.compiles if c.firstlineno})}))\n"
    "ex = torch._dynamo.explain(el_f._torchdynamo_orig_callable)(torch.ones(3))\n"
    "print(json.dumps([f.lineno for f in ex.break_reasons[0].user_stack]))",
    STANCE_CELL,
    DISABLED_CELL,
    "torch._dynamo.utils.counters.clear()\n_ = el_off(torch.ones(3))\n"
    "r = nbcompile.report(el_off)\n"
    "print(json.dumps({'status': r.status, 'compiles': len(r.compiles), 'notes': r.notes,\n"
    "    'frames': dict(torch._dynamo.utils.counters['frames'])}))",
]


def _editor_line(cell: str, needle: str) -> int:
    return next(i for i, line in enumerate(cell.split("\n"), 1) if needle in line)


@pytest.fixture(scope="module")
def executed():
    return execute_notebook(make_notebook(CELLS), allow_errors=True)


def _printed(cell) -> list[str]:
    """The JSON lines a cell printed (the function's own ``print`` left out)."""
    text = "".join(o.get("text", "") for o in outputs_of(cell)
                   if o.get("output_type") == "stream")
    return [line for line in text.splitlines() if line[:1] in "[{"]


def test_a_break_is_named_at_its_editor_line_below_blank_lines(executed):
    ours, torch_stack = (json.loads(line) for line in _printed(executed.cells[3]))
    print_line = _editor_line(BREAK_CELL, "print('debug')")
    assert ours["breaks"] == [print_line], ours
    assert torch_stack[-1] == print_line, torch_stack  # torch's own record agrees
    assert _editor_line(BREAK_CELL, "def el_f") in ours["first"], ours


def test_a_stance_cells_traceback_names_the_editor_line(executed):
    errors = [o for o in outputs_of(executed.cells[4]) if o.get("output_type") == "error"]
    assert errors and errors[0]["ename"] == "ValueError"
    text = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(errors[0]["traceback"]))
    line = _editor_line(STANCE_CELL, "raise ValueError")
    assert re.search(rf"^-*> {line} raise ValueError", text, re.M), text


def test_a_disabled_function_is_said_disabled_not_waiting(executed):
    (printed,) = (json.loads(line) for line in _printed(executed.cells[6]))
    # torch compiled nothing for it, on purpose
    assert not printed["frames"].get("ok") and printed["compiles"] == 0, printed
    assert printed["status"] == "disabled", printed
    line = _editor_line(DISABLED_CELL, "@torch.compiler.disable")
    note = " ".join(printed["notes"])
    assert "disabled by the user" in note and f"cell [6], line {line}" in note, note
    assert "already compiled" not in note, note
