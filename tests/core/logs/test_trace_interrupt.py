"""Ctrl-C while a big TORCH_TRACE directory is read (issue 24): ``open_trace``,
``python -m nbcompile open`` and ``%nbcompile open`` stop at once and keep the files read
whole, marked interrupted, the first problem naming the files not read.

The directories are generated in ``tmp_path``: a compile at the top of each rank's log,
then megabytes of small header-only events (``guard_added_fast``), the densest work for
the reader (every header is decoded), so a few hundred MB take seconds to read.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from jupyter_client.manager import start_new_kernel

import nbcompile
from nbcompile.core.logs import run
from nbcompile.core.logs.files import rank_from_name
from nbcompile.core.logs.run import TraceInterrupted, read_trace
from nbcompile.core.records import MIME_TYPE
from nbcompile.core.steps import Interrupted
from nbcompile.display.trace import published_trace, trace_html, trace_text

from .conftest import ROOT
from .test_command_progress import _finish, _run_until
from .test_display_updates import _execute

HEADER = "V1122 09:00:00.000000 1 torch/_dynamo/guards.py:1] "


def write_trace_dir(directory: Path, files: int, mb_per_file: int = 0) -> Path:
    """``files`` rank logs, each one compile (``f<rank>``, frame 0) and then
    ``mb_per_file`` MiB of guard events (written from one repeated block: cheap)."""
    directory.mkdir(parents=True)
    for rank in range(files):
        ids = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
        stack = [{"line": 4, "name": f"f{rank}", "filename": "/src/prog.py"}]
        metrics = {"co_name": f"f{rank}", "co_filename": "/src/prog.py", "co_firstlineno": 4,
                   "entire_frame_compile_time_s": 0.5}
        head = (f"{HEADER}{json.dumps({'dynamo_start': {'stack': stack}, **ids})}\n"
                f"{HEADER}{json.dumps({'compilation_metrics': metrics, **ids})}\n")
        guard = f"{HEADER}{json.dumps({'guard_added_fast': {'expr': 'Eq(s0, 4)'}, **ids})}\n"
        block = (guard * ((1 << 20) // len(guard) + 1)).encode()
        with open(directory / f"dedicated_log_torch_trace_rank_{rank}_gen.log", "wb") as f:
            f.write(head.encode())
            for _ in range(mb_per_file):
                f.write(block)
    return directory


def _stop_after(files_done: int):
    """A ``progress`` callback that presses Ctrl-C (raises ``KeyboardInterrupt`` in the
    reading thread, as SIGINT does) once ``files_done`` files are read."""
    def progress(done: int, total: int, read: int) -> None:
        if done >= files_done:
            raise KeyboardInterrupt
    return progress


def test_ctrl_c_keeps_the_files_read_whole_and_names_the_rest(tmp_path, monkeypatch):
    monkeypatch.setattr(run, "PROGRESS_INTERVAL_S", 0.0)  # told after every block
    directory = write_trace_dir(tmp_path / "trace", files=12, mb_per_file=1)
    with pytest.raises(TraceInterrupted) as caught:
        read_trace(directory, progress=_stop_after(2))
    assert isinstance(caught.value, Interrupted) and isinstance(caught.value, KeyboardInterrupt)
    partial = caught.value.partial
    assert partial.interrupted is True
    order = sorted(directory.iterdir())  # the order files are read in
    ranks = [rank_from_name(p) for p in order]
    assert [c.function for c in partial.compiles] == [f"f{r}" for r in ranks[:2]]  # not the 3rd
    assert partial.ranks == sorted(ranks[:2]) and len(partial.files) == 2
    assert partial.bytes_read == sum(p.stat().st_size for p in order[:2])
    note = partial.problems[0]
    assert note.startswith("interrupted (Ctrl-C) after 2 of 12 files, ")
    assert f"files not read: {order[2].name} (partly read), {order[3].name}, " in note
    assert note.count(".log") == 5 and "(and 5 more)" in note  # bounded
    assert str(directory) not in note  # names, not paths
    record = partial.to_dict()
    assert record["interrupted"] is True and record["problems"][0] == note
    assert published_trace(partial)["interrupted"] is True
    assert "INTERRUPTED, partial: 2 compile(s)" in trace_text(partial)
    assert "interrupted, partial" in trace_html(partial)


def test_a_whole_read_is_not_marked(tmp_path):
    report = nbcompile.open_trace(write_trace_dir(tmp_path / "trace", files=2),
                                  progress=lambda *a: None)
    assert report.interrupted is False and report.to_dict()["interrupted"] is False
    assert not report.problems and len(report.compiles) == 2
    assert "INTERRUPTED" not in trace_text(report) and "interrupted" not in trace_html(report)


def test_open_trace_raises_with_the_partial_report(tmp_path, monkeypatch):
    monkeypatch.setattr(run, "PROGRESS_INTERVAL_S", 0.0)
    directory = write_trace_dir(tmp_path / "trace", files=3, mb_per_file=1)
    with pytest.raises(TraceInterrupted) as caught:
        nbcompile.open_trace(directory, progress=_stop_after(1))
    partial = caught.value.partial
    assert isinstance(partial, nbcompile.TraceReport)  # with its rich reprs
    bundle = partial._repr_mimebundle_()
    assert bundle[MIME_TYPE]["interrupted"] is True
    assert bundle[MIME_TYPE]["problems"][0].startswith("interrupted (Ctrl-C) after 1 of 3 files")
    assert "INTERRUPTED, partial" in bundle["text/plain"]


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
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
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
        _execute(kc, "%load_ext nbcompile")
        msg_id, messages = _run_until(kc, f"%nbcompile open {directory}",
                                      re.compile(r"open_trace: [1-6] of 8 files"))
        km.interrupt_kernel()
        messages = _finish(kc, msg_id, messages)
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
