"""Which files of a path are trace logs: a file as given, or a directory's logs chosen safely.

In a directory, a symlink is followed only when it resolves inside that directory, and
every entry not read is named with why (a subdirectory, a FIFO, a device, not a log).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .files import TraceLog
from .headers import GLOG
from .paths import file_type, is_trace_name, open_regular, printable


def find_logs(path: str | os.PathLike[str]) -> tuple[list[TraceLog], list[str]]:
    """The trace logs at ``path`` (a file or a directory) and the problems found choosing.

    In a directory, regular files named like torch's (``dedicated_log_torch_trace_*.log``)
    are read, and so is any other ``*.log`` whose first line is a trace line; every other
    entry is skipped and named: subdirectories, FIFOs, devices, sockets, and symlinks that
    resolve outside the directory. Raises ``FileNotFoundError`` for a missing path.
    """
    p = Path(path).expanduser()
    try:
        st = p.stat()
    except FileNotFoundError:
        raise FileNotFoundError(f"no such trace file or directory: {p}") from None
    except (OSError, ValueError) as e:
        return [], [f"{printable(p)}: cannot read ({getattr(e, 'strerror', None) or e})"]
    if not stat.S_ISDIR(st.st_mode):
        if not stat.S_ISREG(st.st_mode):
            return [], [f"{printable(p)}: skipped ({file_type(st.st_mode)}, not a trace "
                        "log file)"]
        return [TraceLog(p)], []
    problems: list[str] = []
    logs: list[TraceLog] = []
    try:
        root = p.resolve(strict=True)
        entries = sorted(p.iterdir())
    except OSError as e:
        return [], [f"{printable(p)}: cannot list the directory ({e.strerror})"]
    for entry in entries:
        why = _not_readable(entry, root)
        if why:
            problems.append(f"{printable(entry)}: skipped ({why})")
        elif is_trace_name(entry) or (entry.suffix == ".log" and _starts_like_trace(entry)):
            logs.append(TraceLog(entry, root=root))
        else:
            problems.append(f"{printable(entry)}: skipped (not a TORCH_TRACE log: expected "
                            "dedicated_log_torch_trace_*.log or a .log of trace lines)")
    if not logs:
        problems.append(f"{printable(p)}: no trace files in this directory (TORCH_TRACE writes "
                        "dedicated_log_torch_trace_*.log)")
    return logs, problems


def _not_readable(entry: Path, root: Path) -> str:
    """Why a directory entry is not read (``""``: a regular file, read it)."""
    try:
        st = entry.lstat()
        if stat.S_ISLNK(st.st_mode):
            target = entry.resolve(strict=True)
            if not target.is_relative_to(root):
                return "a symlink that leads outside the directory; not followed"
            st = target.stat()
    except (OSError, RuntimeError) as e:
        return f"cannot read: {getattr(e, 'strerror', None) or e}"
    if stat.S_ISDIR(st.st_mode):
        return f"a directory; only files directly in {printable(entry.parent)} are read"
    if not stat.S_ISREG(st.st_mode):
        return f"{file_type(st.st_mode)}, not a regular file"
    return ""


def _starts_like_trace(path: Path) -> bool:
    try:
        with open_regular(path) as f:
            return bool(GLOG.match(f.readline(4096)))
    except OSError:
        return False
