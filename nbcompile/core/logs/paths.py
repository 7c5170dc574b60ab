"""A trace log on disk: only regular files opened, torch's file names read, paths in words.

Logs are untrusted input: only regular files are opened (a FIFO would block forever, a
device never end), checked on the open descriptor.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import BinaryIO

# torch: dedicated_log_torch_trace_rank_0_<random>.log; tlparse's inputs: ..._rank_0.log
_RANK_NAME = re.compile(r"^dedicated_log_torch_trace_rank_(\d{1,9})(?:_.*)?\.log$")
_TRACE_NAME = re.compile(r"^dedicated_log_torch_trace_.*\.log$")


class NotRegularFile(OSError):
    """A path that is not a regular file (FIFO, device, socket, directory)."""


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """Open ``path`` for reading in binary, only if it is a regular file.

    Checked on the descriptor (opened non-blocking, so a FIFO does not hang the open),
    then switched back to blocking reads. Raises ``NotRegularFile`` (an ``OSError``)
    otherwise.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) \
        | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(f"{printable(path)}: not a regular file ({file_type(mode)})")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def file_type(mode: int) -> str:
    """What a file that is not a regular one is, in words (``"a FIFO"``, ``"a device"``...)."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def printable(path: str | os.PathLike[str]) -> str:
    """A path as text that encodes as UTF-8 (bytes that are not UTF-8 escaped, ``\\xff``)."""
    return os.fsdecode(path).encode("utf-8", "backslashreplace").decode("utf-8")


def rank_from_name(path: str | os.PathLike[str]) -> int | None:
    """The rank in a trace file's name: torch's ``dedicated_log_torch_trace_rank_<N>_*.log``
    or ``dedicated_log_torch_trace_rank_<N>.log`` (as in tlparse's test inputs)."""
    m = _RANK_NAME.match(Path(path).name)
    return int(m.group(1)) if m else None


def is_trace_name(path: str | os.PathLike[str]) -> bool:
    """Whether torch would have named this file (``dedicated_log_torch_trace_*.log``)."""
    return bool(_TRACE_NAME.match(Path(path).name))
