"""Cells named as the notebook shows them: ``cell [N]``, N the cell's execution count.

A cell's code has a filename (IPython's ``<ipython-input-N-HASH>``, ipykernel's
``/tmp/ipykernel_PID/HASH.py``) that means nothing to the user; the summary names a cell
``cell [N]``. ``magics/`` hands over IPython's table from a cell's filename to its
execution count when the extension loads (core knows nothing of IPython). ``place`` is
the one rule the commands' outputs name a file line by; ``name_cells`` writes the cell
filenames inside a free text (torch's messages, a traceback) the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ...frames import is_cell_file

Lookup = Callable[[str], "int | None"]

_lookup: Lookup | None = None
_INPUT = re.compile(r"^<ipython-input-(\d+)-[0-9a-f]+>$")
#: A cell filename inside a text: IPython's, or ipykernel's temporary file.
_IN_TEXT = re.compile(r"(?P<file><ipython-input-\d+-[0-9a-f]+>"
                      r"|(?:[A-Za-z]:)?[^\s\"'<>()\[\]]*[/\\]ipykernel_\d+[/\\]\d+\.py)"
                      r"(?::(?P<line>\d+))?")
_FILE_LINE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')


def use(lookup: Lookup | None) -> None:
    """The running shell's filename -> execution count (None: forget it)."""
    global _lookup
    _lookup = lookup


def cell_number(filename: str | None) -> int | None:
    """The execution count of the cell whose code has ``filename``, when known."""
    if not filename or not is_cell_file(filename):
        return None
    if _lookup is not None:
        try:
            number = _lookup(filename)
        except Exception:  # noqa: BLE001 - naming a cell must never break an output
            number = None
        if isinstance(number, int):
            return number
    m = _INPUT.match(filename)
    return int(m.group(1)) if m else None


def cell_name(filename: str | None) -> str | None:
    """``cell [N]`` for a cell's filename (``a notebook cell`` when its number is not
    known); None for any other file."""
    if not filename or not is_cell_file(filename):
        return None
    number = cell_number(filename)
    return f"cell [{number}]" if number is not None else "a notebook cell"


def place(filename: str | None, lineno: int | None) -> str:
    """A file line in words: ``cell [2], line 5`` for a cell, ``path:5`` for a file,
    ``line 5`` when no file is known ("" when nothing is)."""
    cell = cell_name(filename)
    if cell is not None:
        return f"{cell}, line {lineno}" if lineno is not None else cell
    if filename:
        return f"{filename}:{lineno}" if lineno is not None else filename
    return f"line {lineno}" if lineno is not None else ""


def names_in(value: object) -> dict[str, str]:
    """Each cell filename written in ``value`` (a JSON-ready record: every string in it,
    a filename field, or inside torch's text, e.g. an FX graph's ``# File:`` comment), as
    written there -> its cell's name (``cell [N]``; ``a notebook cell`` when its number is
    not known). A record carries this beside torch's verbatim text, so a front end names
    the cell as ``place`` does."""
    names: dict[str, str] = {}
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, str) and ("ipython-input-" in item or "ipykernel_" in item):
            for m in (*_FILE_LINE.finditer(item), *_IN_TEXT.finditer(item)):
                file = m["file"]
                if file not in names and (name := cell_name(file)) is not None:
                    names[file] = name
    return names


def name_cells(text: str) -> str:
    """``text`` with each cell filename written as ``place`` writes it: a traceback's
    ``File "/tmp/ipykernel_1/2.py", line 5`` and ``/tmp/ipykernel_1/2.py:5`` both become
    ``cell [2], line 5``."""
    if not text or ("ipython-input-" not in text and "ipykernel_" not in text):
        return text

    def file_line(m: re.Match[str]) -> str:
        name = cell_name(m["file"])
        return f"{name}, line {m['line']}" if name else m.group(0)

    def bare(m: re.Match[str]) -> str:
        if cell_name(m["file"]) is None:
            return m.group(0)
        return place(m["file"], int(m["line"]) if m["line"] else None)

    return _IN_TEXT.sub(bare, _FILE_LINE.sub(file_line, text))
