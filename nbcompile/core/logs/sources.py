"""Source lines for what a TORCH_TRACE log names (breaks, stacks, kernels' lines).

A log is untrusted input: a break "at /etc/passwd:1" must not put a local file in the
record. By default a line's text is what the log itself printed (the code line under a
traceback frame), and no file is read (``LogLines``). Reading sources from disk is an
explicit choice, ``SourceRoot(dir)``: only regular files under that directory (resolved,
so no symlink leads out), each read up to a size cap. Both are ``payloads.SourceReader``s.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path, PurePath

from .paths import NotRegularFile, open_regular

_MAX_FILE = 4 << 20  # bytes of one source file read
_MAX_TOTAL = 64 << 20  # bytes of source kept per root
_MAX_SUFFIX = 8  # path components of a logged name tried under the root

#: The one note a report gets when a line is left empty because files are not read.
NOT_READ_NOTE = ("source lines are shown as the log printed them; local files are not "
                 "read for a log (nbcompile.open_trace(path, source_root=DIR), "
                 "--source-root DIR: read them from files under DIR)")


def _is_path(filename: str) -> bool:
    """A name that could be a file on disk (not ``<ipython-input-...>``, ``<eval...>``)."""
    return bool(filename) and not filename.startswith("<") and "\0" not in filename


class LogLines:
    """A log's default reader: the text the log printed, nothing read from disk.

    ``notify`` is called once, the first time a file's line has no printed text, with
    ``NOT_READ_NOTE`` (so the report says why the line is empty).
    """

    def __init__(self, notify: Callable[[str], None] | None = None) -> None:
        self._notify = notify
        self._noted = False

    def __call__(self, filename: str, lineno: int, logged: str = "") -> str:
        text = logged.strip()
        if not text and not self._noted and self._notify is not None and _is_path(filename):
            self._noted = True
            self._notify(NOT_READ_NOTE)
        return text


class SourceRoot:
    """Read source lines from regular files under ``root`` (``source_root=``).

    A logged filename is looked up as is when it resolves inside ``root``, else by its
    trailing components under ``root`` (a log from another machine:
    ``/home/ci/job/model.py`` -> ``ROOT/job/model.py``, then ``ROOT/model.py``). Symlinks
    are resolved first and must stay inside ``root``; FIFOs, devices and files larger than
    4 MB are not read. The text the log printed wins when there is one.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        given = Path(root).expanduser()
        resolved = given.resolve(strict=True)  # FileNotFoundError when missing
        if not resolved.is_dir():
            raise NotADirectoryError(f"source root is not a directory: {given}")
        self.root = resolved
        self._lines: dict[str, list[str] | None] = {}
        self._bytes = 0

    def __call__(self, filename: str, lineno: int, logged: str = "") -> str:
        if logged.strip():
            return logged.strip()
        lines = self.lines(filename)
        if lines is None or not 1 <= lineno <= len(lines):
            return ""
        return lines[lineno - 1].strip()

    def path_of(self, filename: str) -> Path | None:
        """The regular file under the root that ``filename`` names, or None."""
        if not _is_path(filename):
            return None
        name = PurePath(filename)
        candidates = [name] if not name.is_absolute() else []
        parts = [p for p in name.parts if p not in (name.anchor, "", ".")]
        if name.is_absolute():
            candidates.append(name)
        candidates += [PurePath(*parts[-k:]) for k in range(min(len(parts), _MAX_SUFFIX), 0, -1)
                       if ".." not in parts[-k:]]
        for candidate in candidates:
            path = Path(candidate) if candidate.is_absolute() else self.root / candidate
            try:
                real = path.resolve(strict=True)
            except (OSError, RuntimeError, ValueError):
                continue
            if real.is_relative_to(self.root) and real.is_file():
                return real
        return None

    def lines(self, filename: str) -> list[str] | None:
        """The lines of the file ``filename`` names under the root (cached), or None."""
        if filename in self._lines:
            return self._lines[filename]
        lines = None
        path = self.path_of(filename)
        if path is not None and self._bytes < _MAX_TOTAL:
            try:
                with open_regular(path) as f:
                    if os.fstat(f.fileno()).st_size <= _MAX_FILE:
                        data = f.read(_MAX_FILE + 1)
                        if len(data) <= _MAX_FILE:
                            self._bytes += len(data)
                            lines = data.decode("utf-8", "replace").splitlines()
            except (OSError, NotRegularFile):
                lines = None
        self._lines[filename] = lines
        return lines
