"""``%nbcompile trace DIR`` ... ``off`` and ``nbcompile.trace(DIR)``: torch's own
TORCH_TRACE file of what ran in between, read back by nbcompile's reader, by
``python -m nbcompile open`` and by tlparse where installed; torch's logger left as it was."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from IPython.core.error import UsageError

import nbcompile
from nbcompile.core.notebook import trace_dir
from nbcompile.core.trace import log_taps
from tests.support.shell import run_cell

BREAKS = '''
def traced_helper(x):
    print("a break")
    return x.cos()

def traced_fn(x):
    return traced_helper(x.sin()) * 2
'''


def _trace_handlers() -> list[logging.Handler]:
    """The trace logger's handlers, and what hears it through nbcompile's one handler."""
    return [*logging.getLogger("torch.__trace").handlers, *log_taps.sinks("torch.__trace")]


def test_the_magic_writes_torchs_trace_that_every_reader_reads(ip, tmp_path, capsys):
    where = tmp_path / "my trace"
    ip.run_line_magic("nbcompile", f'trace "{where}"')
    assert f"is being written to {where}" in capsys.readouterr().out
    assert [h for h in _trace_handlers() if getattr(h, "root_dir", None) == str(where)]
    run_cell(ip, "%%compile --backend eager\n" + BREAKS)
    run_cell(ip, "import torch\ntraced_fn(torch.randn(5))")
    # torch resetting its loggers mid-trace (set_logs) keeps the trace going
    run_cell(ip, "torch._logging.set_logs()\ntraced_fn(torch.randn(5, 3))")
    ip.run_line_magic("nbcompile", "trace off")
    out = capsys.readouterr().out
    assert "was written to" in out and "tlparse" in out
    assert not [h for h in _trace_handlers() if getattr(h, "root_dir", None) == str(where)]
    files = list(where.glob("dedicated_log_torch_trace_*.log"))
    assert len(files) == 1 and oct(files[0].stat().st_mode & 0o777) == "0o600"

    report = nbcompile.open_trace(where)
    assert not report.problems
    breaks = [b for c in report.compiles for b in c.graph_breaks]
    assert breaks and breaks[0].line.strip() == 'print("a break")'
    assert any("size mismatch" in c.recompile_reason or "rank mismatch" in c.recompile_reason
               for c in report.compiles), [c.recompile_reason for c in report.compiles]

    opened = subprocess.run([sys.executable, "-m", "nbcompile", "open", str(where)],
                            capture_output=True, text=True, timeout=60)
    assert opened.returncode == 0, opened.stderr
    assert "traced_fn" in opened.stdout and 'print("a break")' in opened.stdout

    # nothing more is written once off
    size = files[0].stat().st_size
    run_cell(ip, "traced_fn(torch.randn(2, 2, 2))")
    assert files[0].stat().st_size == size


def test_tlparse_reads_it(ip, tmp_path: Path):
    before = _trace_handlers()
    tlparse = shutil.which("tlparse") or str(Path(sys.executable).with_name("tlparse"))
    if not os.access(tlparse, os.X_OK):
        pytest.skip("tlparse is not installed (pip install tlparse)")
    with nbcompile.trace(tmp_path / "t") as written:
        run_cell(ip, "%%compile --backend eager\n" + BREAKS.replace("traced_", "tl_"))
        run_cell(ip, "import torch\ntl_fn(torch.randn(5))")
    assert not written.active and len(written.files) == 1
    assert _trace_handlers() == before
    out = tmp_path / "tl_out"
    done = subprocess.run([tlparse, written.files[0], "-o", str(out), "--no-browser",
                           "--strict"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    index = (out / "index.html").read_text()
    assert "tl_fn" in index


def test_refusals_in_words_and_one_trace_at_a_time(ip, tmp_path: Path):
    a_file = tmp_path / "a_file"
    a_file.write_text("mine")
    with pytest.raises(UsageError, match="exists and is not a directory"):
        ip.run_line_magic("nbcompile", f"trace {a_file}")
    with pytest.raises(UsageError, match="give a directory"):
        ip.run_line_magic("nbcompile", "trace")
    first = nbcompile.trace(tmp_path / "one")
    try:
        with pytest.raises(UsageError, match="already being written to .*one"):
            ip.run_line_magic("nbcompile", f"trace {tmp_path / 'two'}")
        assert trace_dir.current() is first
    finally:
        assert nbcompile.trace(None) is first
    assert trace_dir.current() is None and not first.active
    assert a_file.read_text() == "mine"
