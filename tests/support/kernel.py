"""Helpers for tests that start real kernels: notebooks run by nbclient, and a kernel
driven message by message through jupyter_client."""

from __future__ import annotations

import asyncio
import os
import queue
import re
import shutil
import signal
import tempfile
import time
import warnings
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from tests.support import ROOT


def make_notebook(cells: list[str]) -> nbformat.NotebookNode:
    """A python3 notebook of code cells."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    nb.metadata["kernelspec"] = {
        "name": "python3", "display_name": "Python 3", "language": "python"
    }
    return nb


#: A kernel answers an execute request with "busy" at once, however long the cell then
#: runs; no "busy" this long after the request means the request is stuck, not slow.
NO_BUSY_S = 45.0


class _StuckRequestWatch:
    """Watches each cell's request for its "busy" reply. A request still unanswered after
    ``NO_BUSY_S`` is reported as a warning (the kernel's Python stacks, dumped by
    ``faulthandler`` on SIGUSR1, and each thread's kernel wait channel), and the kernel is
    sent a ``kernel_info_request`` on the shell channel, which wakes a request left unread
    on its socket (what ``jupyter_server`` does for each new connection)."""

    def __init__(self, no_busy_s: float = NO_BUSY_S) -> None:
        self.client: NotebookClient | None = None
        self.no_busy_s = no_busy_s
        self.stacks = Path(tempfile.mkdtemp(prefix="nbcompile-kernel-")) / "stacks.txt"
        self._tasks: set[asyncio.Task] = set()

    def kernel_arguments(self) -> list[str]:
        """The kernel's command-line flags: dump every thread's stack on SIGUSR1."""
        code = (f"__import__('faulthandler').register(__import__('signal').SIGUSR1, "
                f"file=open({str(self.stacks)!r}, 'w'), all_threads=True)")
        return [f"--IPKernelApp.exec_lines={code}"]

    async def started(self, cell, cell_index: int) -> None:
        task = asyncio.ensure_future(self._watch(cell, cell_index))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def finished(self, **_) -> None:
        for task in list(self._tasks):
            task.cancel()

    async def closed(self, **_) -> None:
        await self.finished()
        shutil.rmtree(self.stacks.parent, ignore_errors=True)

    async def _watch(self, cell, cell_index: int) -> None:
        while True:
            await asyncio.sleep(self.no_busy_s)
            if "iopub.status.busy" in cell.metadata.get("execution", {}):
                return
            warnings.warn(f"cell {cell_index} had no 'busy' reply {self.no_busy_s:.0f} s after its "
                          f"request; kernel state:\n{await self._kernel_state()}\n"
                          f"sending a kernel_info_request to wake it", stacklevel=1)
            if self.client is not None and self.client.kc is not None:
                self.client.kc.kernel_info()

    async def _kernel_state(self) -> str:
        km = self.client.km if self.client is not None else None
        pid = getattr(getattr(km, "provisioner", None), "pid", None)
        if pid is None:
            return "(no kernel process)"
        try:
            os.kill(pid, signal.SIGUSR1)
            await asyncio.sleep(1)
            threads = []
            for task in sorted(Path(f"/proc/{pid}/task").iterdir()):
                name = (task / "comm").read_text().strip()
                wchan = (task / "wchan").read_text().strip()
                threads.append(f"  thread {task.name} {name}: {wchan}")
            return "\n".join(threads) + "\n" + self.stacks.read_text()
        except OSError as err:
            return f"(could not read the kernel's state: {err})"


#: The longest one wait on a kernel channel lasts before it polls the socket again.
POLL_SLICE_S = 5.0


class _SlicedWaits:
    """nbclient waits on a channel for a whole cell's timeout in one ``poll``. pyzmq's
    asyncio poller can miss the socket's wake-up (its file descriptor is edge-triggered);
    it then finds the message only when that poll times out: a cell that finished long
    ago held the run for the full timeout (600 s, seen between a tutorial's cells). Each
    wait here polls in slices of ``POLL_SLICE_S``, so a missed wake-up costs at most that;
    a message that only a timed-out slice found is reported as a warning."""

    def __init__(self, slice_s: float = POLL_SLICE_S) -> None:
        self.client: NotebookClient | None = None
        self.slice_s = slice_s

    async def wrap(self, **_) -> None:
        """``on_notebook_start``: the kernel client's channels now wait in slices."""
        kc = self.client.kc if self.client is not None else None
        if kc is not None:
            for name in ("shell_channel", "iopub_channel"):
                channel = getattr(kc, name)
                channel.get_msg = self._sliced(name, channel.get_msg)

    def _sliced(self, name: str, get_msg):
        async def get(timeout: float | None = None):
            end = None if timeout is None else time.monotonic() + timeout
            while True:
                left = None if end is None else max(0.0, end - time.monotonic())
                step = self.slice_s if left is None else min(self.slice_s, left)
                began = time.monotonic()
                try:
                    msg = await get_msg(timeout=step)
                except queue.Empty:
                    if left is not None and left <= self.slice_s:
                        raise
                    continue
                if step > 0 and time.monotonic() - began >= step - 0.05:
                    warnings.warn(f"a {msg.get('msg_type')!r} message on the {name} was found "
                                  f"only when a {step:.0f} s poll timed out (a missed wake-up)",
                                  stacklevel=1)
                return msg
        return get


def execute_notebook(nb: nbformat.NotebookNode, cwd: Path | None = None, timeout: int = 900,
                     allow_errors: bool = False,
                     no_busy_s: float = NO_BUSY_S) -> nbformat.NotebookNode:
    """Execute a notebook in a real kernel (nbclient); returns it with outputs. A request
    the kernel leaves unanswered is reported and nudged (``_StuckRequestWatch``); a reply
    pyzmq did not wake nbclient for is found within seconds (``_SlicedWaits``). The
    kernel is stopped at once after the last cell: a graceful shutdown waits 2-3 s for
    torch's teardown, and nothing is read from the kernel after it."""
    watch = _StuckRequestWatch(no_busy_s)
    waits = _SlicedWaits()
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            allow_errors=allow_errors, shutdown_kernel="immediate",
                            extra_arguments=watch.kernel_arguments(),
                            on_notebook_start=waits.wrap,
                            on_cell_execute=watch.started, on_cell_executed=watch.finished,
                            on_notebook_complete=watch.closed,
                            resources={"metadata": {"path": str(cwd or ROOT)}})
    watch.client = waits.client = client
    client.execute()
    return nb


def outputs_of(cell) -> list[dict]:
    """A cell's outputs as plain dicts."""
    return [dict(o) for o in cell.get("outputs", [])]


def execute(kc, code: str, timeout: float = 600) -> list[dict]:
    """Run code; return the iopub messages of that execution."""
    msg_id = kc.execute(code)
    messages = []
    while True:
        try:
            msg = kc.get_iopub_msg(timeout=timeout)
        except queue.Empty:  # pragma: no cover - a hung kernel fails the test
            raise AssertionError(f"kernel did not finish: {code!r}") from None
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        messages.append(msg)
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return messages


def run_until(kc, code: str, seen: str | re.Pattern[str],
               timeout: float = 300) -> tuple[str, list[dict]]:
    """Start ``code``; return once a display update containing ``seen`` (a text, or a
    pattern searched for) arrived."""
    msg_id = kc.execute(code)
    messages: list[dict] = []
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            msg = kc.get_iopub_msg(timeout=5)
        except queue.Empty:
            continue
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        messages.append(msg)
        text = msg["content"].get("data", {}).get("text/plain", "")
        found = seen.search(text) if isinstance(seen, re.Pattern) else seen in text
        if msg["msg_type"] in ("display_data", "update_display_data") and found:
            return msg_id, messages
        assert not (msg["msg_type"] == "status"
                    and msg["content"]["execution_state"] == "idle"), f"ended before {seen!r}"
    raise AssertionError(f"never saw {seen!r}")


def finish(kc, msg_id: str, messages: list[dict], timeout: float = 300) -> list[dict]:
    """Collect the messages of ``msg_id`` until its kernel is idle again."""
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        messages.append(msg)
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return messages
