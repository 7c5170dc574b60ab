"""A cell magic's body as text whose line N is the editor's line N.

IPython hands a cell magic its body with the leading blank lines still there, but
``transform_cell`` (needed for ``%magics`` and ``!cmd`` inside the body) drops them, and
IPython drops the blank lines above the ``%%magic`` line before it sees the magic. Every line
a record names (breaks, compiles' first lines, kernels' lines, tracebacks) comes from the
code compiled from this text, so both are put back as empty lines.
"""

from __future__ import annotations

from typing import Any


def _leading_blank(text: str) -> int:
    """How many whole lines at the start of ``text`` are empty or whitespace only
    (what IPython's ``leading_empty_lines`` removes)."""
    count = 0
    for line in text.splitlines(keepends=True):
        if line.strip() or not line.endswith("\n"):
            break
        count += 1
    return count


def _lines_above_magic(shell: Any, cell: str) -> int:
    """Blank editor lines above the ``%%magic`` line: read from the raw text of the cell
    that runs (IPython's input history), only when that text is this cell's; else 0."""
    raw_cells = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    if not raw_cells:
        return 0
    raw = raw_cells[-1]
    # IPython keeps the raw text without its trailing newlines
    if not isinstance(raw, str) or not raw.rstrip().endswith(cell.rstrip()):
        return 0
    above = _leading_blank(raw)
    first = raw.splitlines()[above] if above < len(raw.splitlines()) else ""
    return above if first.lstrip().startswith("%%") else 0


def editor_text(shell: Any, magic: str, line: str, cell: str) -> str:
    """The cell as ``magic`` runs it: a ``# %%magic line`` comment where the magic line
    was, then the transformed body, each on its editor line."""
    body = shell.transform_cell(cell)
    blank = _leading_blank(cell) - _leading_blank(body)
    return ("\n" * _lines_above_magic(shell, cell) + f"# %%{magic} {line}\n"
            + "\n" * max(blank, 0) + body)
