"""The user's source as it is now: a file's lines through ``linecache`` after
``linecache.checkcache`` for that file, so a module edited and reloaded
(``importlib.reload``, autoreload) reads as its file does, not as ``linecache`` first saw
it. Cells, which IPython keeps in ``linecache`` with no file behind them, stay as they are
(``checkcache`` leaves entries without a modification time)."""

from __future__ import annotations

import linecache


def lines(filename: str) -> list[str]:
    """``filename``'s lines as the file is now (a cell's as IPython keeps it)."""
    linecache.checkcache(filename)
    return linecache.getlines(filename)


def line(filename: str, lineno: int) -> str:
    """The stripped text of ``filename:lineno`` as the file is now ("" when none)."""
    linecache.checkcache(filename)
    return linecache.getline(filename, lineno).strip()
