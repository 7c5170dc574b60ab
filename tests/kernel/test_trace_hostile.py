"""TORCH_TRACE logs are untrusted input: ``python -m nbcompile open`` as a child
process. Special files are never read, terminal text is escaped (control and bidi
characters), and a fuzz over generated hostile directories runs on the command line. The
reader's own checks are in ``tests/core/logs/test_trace_hostile.py``.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time

import pytest

import nbcompile
from nbcompile.display.trace import terminal_safe, trace_page
from tests.support import ROOT
from tests.support.trace_logs import (
    SECRET,
    break_artifact,
    break_payload,
    compile_events,
    write_log,
)


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nbcompile", "open", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=timeout)


def test_special_files_as_break_files_are_not_read(tmp_path):
    """Before: linecache opened a FIFO named by a break (blocked for ever) and read
    /dev/zero (until memory ran out, on some Pythons). Here: a subprocess, a time and a
    memory limit of 3 GB more address space than importing nbcompile took (a CUDA build of
    torch alone reserves about 3 GB on import)."""
    fifo = tmp_path / "source.py"
    os.mkfifo(fifo)
    log = write_log(tmp_path / "dedicated_log_torch_trace_rank_0_a.log", compile_events(
        extra=[break_artifact(break_payload(f, 1)) for f in ("/dev/zero", str(fifo))]))
    program = (
        "import resource, sys, nbcompile\n"
        "vm = next(int(ln.split()[1]) * 1024 for ln in open('/proc/self/status')\n"
        "          if ln.startswith('VmSize:'))\n"
        "resource.setrlimit(resource.RLIMIT_AS, (vm + (3 << 30), vm + (3 << 30)))\n"
        "print(resource.getrlimit(resource.RLIMIT_AS)[0] - vm)\n"
        "r = nbcompile.open_trace(sys.argv[1])\n"
        "print([b.line for b in r.compiles[0].graph_breaks])\n")
    try:
        done = subprocess.run([sys.executable, "-c", program, str(log)],
                              capture_output=True, text=True, cwd=ROOT, timeout=60)
    finally:
        with contextlib.suppress(OSError):  # free a writer-less open, were one stuck
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert done.returncode == 0, done.stderr[-2000:]
    headroom, lines = done.stdout.strip().splitlines()
    assert int(headroom) == 3 << 30  # the limit was in force while the log was read
    assert lines == "['', '']"


# --- 8. terminal escapes --------------------------------------------------------------------
def test_terminal_text_escapes_control_and_bidi_characters(tmp_path):
    evil = "f\x1b]0;owned\x07\x1b[2J\u202egnp.exe\u2066\x9b31m\nproblem: fake"
    log = write_log(tmp_path / "dedicated_log_torch_trace_rank_0_a.log",
                    compile_events(name=evil, extra=[break_artifact(
                        break_payload("/src/p.py", 3, reason=evil, printed=evil))]),
                    "\x1b[31mnot a trace line\n")
    out = tmp_path / "out"
    done = run_cli(log, "--json", out.with_suffix(".json"), "--html", out.with_suffix(".html"))
    assert done.returncode == 0, done.stderr
    for text in (done.stdout, nbcompile.open_trace(log)._repr_mimebundle_()["text/plain"]):
        assert not any(ch in text for ch in "\x1b\x07\x9b\u202e\u2066"), text
        assert "\\x1b" in text and "\\u202e" in text
        assert "\nproblem: fake" not in text
    assert terminal_safe("a\tb\x00\ud800") == "a\\x09b\\x00\\ud800"
    assert "<script" not in trace_page(nbcompile.open_trace(log))



























def test_fuzz_command_line(hostile, tmp_path):
    base, dirs = hostile
    running = {}
    for name, directory in dirs.items():
        out = tmp_path / name
        cmd = [sys.executable, "-m", "nbcompile", "open", str(directory),
               "--json", str(out.with_suffix(".json")), "--html", str(out.with_suffix(".html"))]
        running[name] = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         cwd=ROOT)
    deadline = time.monotonic() + 120
    for name, proc in running.items():
        try:
            stdout, stderr = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            pytest.fail(f"python -m nbcompile open {name} did not finish")
        assert proc.returncode == 0, (name, stderr.decode()[-3000:])
        out = tmp_path / name
        texts = [stdout.decode("utf-8"), out.with_suffix(".json").read_text("utf-8"),
                 out.with_suffix(".html").read_text("utf-8")]
        assert all(SECRET not in t for t in texts), name
        assert "problem: " in texts[0], name
        assert "\x1b" not in texts[0] and "\u202e" not in texts[0], name
        assert "<script>" not in texts[2], name
        json.loads(texts[1])
