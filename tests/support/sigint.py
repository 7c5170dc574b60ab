"""SIGINT as a test that sends it needs it, however the suite was started: a process
started with SIGINT ignored (a background job without job control, ``nohup``, some CI
runners) gets no ``KeyboardInterrupt`` handler from Python, and its children inherit the
ignored signal."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator


@contextlib.contextmanager
def handled() -> Iterator[None]:
    """Python's own handler (SIGINT raises ``KeyboardInterrupt``) for the block; the
    disposition the process had is put back after."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def default_in_child() -> None:
    """A ``preexec_fn``: the child starts with SIGINT's default disposition, so Python
    installs its handler there (an ignored SIGINT is inherited across exec)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
