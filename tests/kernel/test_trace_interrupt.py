"""Ctrl-C while a big TORCH_TRACE directory is read: ``open_trace``,
``python -m nbcompile open`` and ``%nbcompile open`` stop at once and keep the files read
whole, marked interrupted, the first problem naming the files not read.

The directories are generated in ``tmp_path``: a compile at the top of each rank's log,
then megabytes of small header-only events (``guard_added_fast``), the densest work for
the reader (every header is decoded), so a few hundred MB take seconds to read.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from jupyter_client.manager import start_new_kernel

from nbcompile.core.records import MIME_TYPE
from tests.support import ROOT, sigint
from tests.support.kernel import execute, finish, run_until
from tests.support.trace_logs import write_trace_dir

HEADER = "V1122 09:00:00.000000 1 torch/_dynamo/guards.py:1] "




def _wait_until_reading(pid: int, name: str, timeout: float = 120) -> None:
    """Return once process ``pid`` has the file ``name`` open (the files before it are
    read whole)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except FileNotFoundError:
            break
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}").endswith(name):
                    return
            except OSError:
                continue
        time.sleep(0.01)
    raise AssertionError(f"the reader never opened {name}")


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_sigint_stops_the_command_line_reader_with_the_partial_report(tmp_path):
    """A real SIGINT to ``python -m nbcompile open DIR`` on 8 x 25 MiB of dense events
    (seconds to read): exit 130, the partial report printed, no traceback."""
    directory = write_trace_dir(tmp_path / "trace", files=8, mb_per_file=25)
    proc = subprocess.Popen([sys.executable, "-m", "nbcompile", "open", str(directory),
                             "--json", str(tmp_path / "out.json")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            preexec_fn=sigint.default_in_child)
    try:
        _wait_until_reading(proc.pid, "dedicated_log_torch_trace_rank_1_gen.log")
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    stopped_s = time.monotonic() - sent
    assert proc.returncode == 130, (proc.returncode, out[-2000:], err[-2000:])
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert out.startswith(f"nbcompile trace {directory}: INTERRUPTED, partial: ")
    assert "  [0/0] rank 0 f0 " in out  # the first file, read whole
    assert "rank 7 f7" not in out
    [note] = [line for line in out.splitlines() if "interrupted (Ctrl-C) after " in line]
    done = int(re.search(r"after (\d) of 8 files", note).group(1))
    assert 1 <= done < 8 and f"rank {done - 1} f{done - 1}" in out
    assert f"files not read: dedicated_log_torch_trace_rank_{done}_gen.log" in note
    assert "--json/--html not written" in err and not (tmp_path / "out.json").exists()
    print(f"stopped {stopped_s:.3f}s after SIGINT, {done} of 8 files kept")


def test_ctrl_c_during_magic_open_shows_the_partial_report(tmp_path):
    """A real kernel: Ctrl-C once the progress line says a file is read; the cell ends
    with the partial report displayed, no error."""
    directory = write_trace_dir(tmp_path / "trace", files=8, mb_per_file=25)
    km, kc = start_new_kernel(kernel_name="python3")
    try:
        execute(kc, "%load_ext nbcompile")
        msg_id, messages = run_until(kc, f"%nbcompile open {directory}",
                                      re.compile(r"open_trace: [1-6] of 8 files"))
        km.interrupt_kernel()
        messages = finish(kc, msg_id, messages)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert not [m for m in messages if m["msg_type"] == "error"], "the partial, no traceback"
    [shown] = [m["content"]["data"] for m in messages if m["msg_type"] == "display_data"
               and MIME_TYPE in m["content"]["data"]]
    record = shown[MIME_TYPE]
    assert record["record"] == "trace" and record["interrupted"] is True
    assert record["problems"][0].startswith("interrupted (Ctrl-C) after ")
    assert 1 <= len(record["compiles"]) < 8
    assert "INTERRUPTED, partial" in shown["text/plain"]
    assert "interrupted, partial" in shown["text/html"]
