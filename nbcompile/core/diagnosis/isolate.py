"""Runs whose compiled code would kill the process, made in a forked child instead.

``torch._inductor.config.cpp.inject_relu_bug_TESTING_ONLY = "runtime_error"`` (torch's
fault injection for its minifier) makes Inductor's C++ relu ``throw 1``. Inside the
kernel's OpenMP parallel region (``#pragma omp parallel``, emitted when more than one
thread is used) the exception cannot leave the region: the C++ runtime calls
``std::terminate`` ("terminate called after throwing an instance of 'int'") and the
process, the user's kernel, aborts (SIGABRT). Only without a parallel region does the
binding's ``catch (...)`` turn it into ``RuntimeError: unhandled error``.

So under that setting every run compiled by Inductor happens in a child process made by
``os.fork()``: the same function, inputs, settings and bisection state, nothing pickled
but the result. The child uses one thread: GNU OpenMP's thread pool does not survive a
fork (a region with more threads waits forever for workers that are not there), and
Inductor's compile workers are the parent's. With one thread Inductor emits no parallel
region, so the injected throw reaches Python as ``RuntimeError``; a child that dies
anyway (a signal) is reported as the crash, with what it printed. Times measured in a
child are one thread's. Inductor's once-per-process work (its imports, its CPU-ISA probes)
is done in this process before such a run is forked (``runs.Bench.run``): each child
would otherwise repeat it (~1.5 s a run).
"""

from __future__ import annotations

import contextlib
import faulthandler
import io
import os
import pickle
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from typing import Any

import torch

from .torch_names import inductor_config

#: Settings whose compiled code kills the process instead of raising: (key, value, why).
ABORTING_SETTINGS: tuple[tuple[str, Any, str], ...] = (
    ("cpp.inject_relu_bug_TESTING_ONLY", "runtime_error",
     "makes Inductor's C++ relu throw a C++ exception, which inside the kernel's OpenMP "
     "parallel region calls std::terminate and aborts the process (your kernel)"),
)
#: Backends that generate no code of their own: their runs stay in the process.
NO_CODEGEN = frozenset({"eager", "aot_eager", "aot_eager_decomp_partition"})
#: Seconds a child may take beyond the time left in the budget.
GRACE_S = 120.0
#: Characters of what a dying child printed kept in the error.
PRINTED_CHARS = 600


class ChildError(Exception):
    """What a run in a child raised (by type name and message) or how the child died."""

    def __init__(self, type_name: str, message: str) -> None:
        super().__init__(message)
        self.type_name = type_name

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        return ChildError, (self.type_name, str(self))


def abort_risk(device: torch.device | None) -> str:
    """Why compiled runs must not happen in this process ("" when nothing known says so):
    a setting whose C++ code aborts the process, on the CPU."""
    if device is not None and device.type != "cpu":
        return ""
    try:
        values = inductor_config().get_config_copy()
    except Exception:  # no Inductor config: no C++ code generated either
        return ""
    for key, value, why in ABORTING_SETTINGS:
        if values.get(key) == value:
            return (f"torch._inductor.config.{key} = {value!r} {why}: every run compiled "
                    "by Inductor ran in a forked child process with one thread (no parallel "
                    "region, so the exception reaches Python), your kernel kept out of it; "
                    "their times are one thread's")
    return ""


def needs_child(backend: Any) -> bool:
    """Whether a run with ``backend`` generates code (Inductor, or a backend of the user's;
    not one marked ``generates_code = False``)."""
    if isinstance(backend, str):
        return backend not in NO_CODEGEN
    return bool(getattr(backend, "generates_code", True))


def in_child(work: Callable[[], Any], timeout_s: float) -> tuple[Any, BaseException | None, str]:
    """``work()`` in a forked child: ``(its picklable result, None, "")``, or
    ``(None, the error, "")`` when the child died, ``work()`` raised (its type, words and
    last frames) or its result could not come back,
    or ``(None, None, why)`` when it ran out of time (then it is killed)."""
    folder = tempfile.mkdtemp(prefix="nbcompile-diagnose-")
    result_path = os.path.join(folder, "result.pickle")
    printed_path = os.path.join(folder, "printed.txt")
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        _child(work, result_path, printed_path)
    status: int | None = None
    try:
        status = _wait(pid, timeout_s)
        if status is None:
            return None, None, (f"not finished after {timeout_s:.0f} s in the child process "
                                "(killed)")
        printed = _read_text(printed_path)
        if os.WIFSIGNALED(status):
            name = _signal_name(os.WTERMSIG(status))
            return None, ChildError(name, f"the process was killed by {name}"
                                          + (f": {printed}" if printed else "")), ""
        try:
            with open(result_path, "rb") as f:
                result = pickle.load(f)
        except Exception as e:
            return None, ChildError(
                "ChildProcessError", f"the child process ended (exit status "
                f"{os.waitstatus_to_exitcode(status)}) without a result ({type(e).__name__})"
                + (f": {printed}" if printed else "")), ""
        if isinstance(result, _Raised):  # the work itself failed, outside the run's own try
            return None, ChildError(result.type_name, f"in the child process: {result.text}"), ""
        return result, None, ""
    finally:
        if status is None:  # still running (out of time, or the wait was interrupted)
            with contextlib.suppress(ProcessLookupError, ChildProcessError):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
        for path in (result_path, printed_path):
            with contextlib.suppress(OSError):
                os.remove(path)
        with contextlib.suppress(OSError):
            os.rmdir(folder)


def shown_error(exc: BaseException) -> tuple[str, str]:
    """``(type name, message)`` a crash is told by: torch's inner exception of a
    ``BackendCompilerFailed`` (the compiler's own error), else the exception itself."""
    if isinstance(exc, ChildError):
        return exc.type_name, str(exc)
    inner = getattr(exc, "inner_exception", None)
    shown = inner if isinstance(inner, BaseException) else exc
    return type(shown).__name__, str(shown)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class _Raised:
    """What ``work()`` raised in the child (sent back instead of a result)."""

    def __init__(self, exc: BaseException) -> None:
        self.type_name = type(exc).__name__
        where = traceback.extract_tb(exc.__traceback__)[-3:]
        text = f"{exc}".strip()[:PRINTED_CHARS]
        self.text = text + "".join(f" [{os.path.basename(f.filename)}:{f.lineno} {f.name}]"
                                   for f in where)


def _child(work: Callable[[], Any], result_path: str, printed_path: str) -> None:
    code = 1
    try:
        fd = os.open(printed_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        sys.stdout = sys.stderr = io.StringIO()  # the kernel's streams need its threads
        # A dump of the parent's faulthandler (pytest's, a user's) would go to the parent's
        # stderr: the child's death is told by its exit status instead.
        faulthandler.disable()
        torch.set_num_threads(1)
        try:
            with inductor_config().patch({"compile_threads": 1}):
                result: Any = work()
            payload = pickle.dumps(result)
        except BaseException as e:  # noqa: BLE001 - told to the parent, the child ends
            payload = pickle.dumps(_Raised(e))
        with open(result_path, "wb") as f:
            f.write(payload)
        code = 0
    except BaseException:  # noqa: BLE001 - the child reports nothing but its exit status
        code = 1
    finally:
        os._exit(code)


def _wait(pid: int, timeout_s: float) -> int | None:
    """The child's wait status, or None after ``timeout_s`` (it is killed by the caller)."""
    end = time.perf_counter() + timeout_s
    pause = 0.005
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.perf_counter() > end:
            return None
        time.sleep(pause)
        pause = min(pause * 2, 0.02)  # a child's result ~10 ms late on average, not ~50


def _read_text(path: str) -> str:
    try:
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError:
        return ""
    text = " ".join(text.split())
    return text if len(text) <= PRINTED_CHARS else text[-PRINTED_CHARS:]
