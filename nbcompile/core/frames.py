"""Frame identity: which code a filename and line belong to.

A leaf module (standard library only): the entry-function prefix nbcompile gives module
targets, the one ``Span`` type (lines of a file owned by a target), and the tests "is this
a notebook cell / torch's own code / an nbcompile entry function".
"""

from __future__ import annotations

import dis
import re
import types
from dataclasses import dataclass

#: Filename prefix of the entry functions nbcompile compiles for module targets.
ENTRY_PREFIX = "<nbcompile-entry-"

_CELL_FILE = re.compile(r"^<ipython-input-\d+-[0-9a-f]+>$|[/\\]ipykernel_\d+[/\\]\d+\.py$")


@dataclass(frozen=True)
class Span:
    """Lines ``first..last`` of ``filename``: frames there belong to a target."""

    filename: str
    first: int
    last: int

    def contains(self, filename: str, lineno: int) -> bool:
        return filename == self.filename and self.first <= lineno <= self.last

    @classmethod
    def of(cls, code: types.CodeType) -> Span:
        """The lines of a code object, nested functions included."""
        return cls(code.co_filename, code.co_firstlineno, _last_line(code))


def _last_line(code: types.CodeType) -> int:
    last = code.co_firstlineno
    for _, line in dis.findlinestarts(code):
        if line is not None:
            last = max(last, line)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            last = max(last, _last_line(const))
    return last


def is_entry_file(filename: str | None) -> bool:
    """Whether ``filename`` is an entry function nbcompile made for a module target."""
    return bool(filename) and (filename or "").startswith(ENTRY_PREFIX)


def is_cell_file(filename: str | None) -> bool:
    """Whether ``filename`` is a notebook cell (IPython's in-memory or ipykernel's file)."""
    return bool(filename) and bool(_CELL_FILE.search(filename or ""))


#: Python's own library and installed packages, as any machine's paths read (a log may
#: come from another machine): ``<frozen runpy>``, ``.../lib/python3.11/asyncio/...``,
#: ``.../site-packages/ipykernel/...``.
_LIBRARY_FILE = re.compile(r"^<frozen |[/\\](?:site|dist)-packages[/\\]"
                           r"|[/\\]lib[/\\]python\d+(?:\.\d+)?[/\\]")


def is_library_file(filename: str | None) -> bool:
    """Whether ``filename`` is Python's own library or an installed package (the
    process's machinery: runpy, ipykernel, tornado, asyncio), not a cell or the user's
    file."""
    return bool(filename) and not is_cell_file(filename) and bool(
        _LIBRARY_FILE.search(filename or ""))


def cell_key(filename: str) -> str:
    """What names a cell's source across processes: the source hash in IPython's
    ``<ipython-input-N-HASH>`` and ipykernel's ``/tmp/ipykernel_PID/HASH.py`` (the same
    cell text gives the same hash in every kernel); other files are their own key."""
    m = re.search(r"^<ipython-input-\d+-([0-9a-f]+)>$|[/\\]ipykernel_\d+[/\\](\d+)\.py$",
                  filename)
    return f"cell:{m.group(1) or m.group(2)}" if m else filename


def is_torch_file(filename: str) -> bool:
    """torch's own code, or the entry function nbcompile gives a module target."""
    path = filename.replace("\\", "/")
    return ("/site-packages/torch/" in path or "/torch/nn/" in path
            or is_entry_file(filename))
