"""Helpers for tests that start real kernels: notebooks run by nbclient, and a kernel
driven message by message through jupyter_client."""

from __future__ import annotations

import queue
import re
import time
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


def execute_notebook(nb: nbformat.NotebookNode, cwd: Path | None = None, timeout: int = 900,
                     allow_errors: bool = False) -> nbformat.NotebookNode:
    """Execute a notebook in a real kernel (nbclient); returns it with outputs."""
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            allow_errors=allow_errors,
                            resources={"metadata": {"path": str(cwd or ROOT)}})
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
