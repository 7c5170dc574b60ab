"""Progress of long commands without a kernel: the step words and the terminal line,
open_trace's files and bytes read, and a Ctrl-C that torch swallowed stopping the command at
its next step. The same commands in a real kernel are in tests/kernel/."""

from __future__ import annotations

import time

import pytest

from nbcompile.core.steps import Step, ctrl_c_delivered, ctrl_c_watched, tell
from nbcompile.display.progress import ProgressLine, step_text
from tests.support import ROOT


def test_step_words_and_terminal_line():
    assert step_text(Step("compare", "compiling (its first call)", 2, 4, "default")) == \
        "mode 2 of 4 (default): compiling (its first call)"
    assert step_text(Step("compare", "timing 4 modes", remaining_s=6.4)) == \
        "timing 4 modes, 6s of the budget left"
    assert step_text(Step("suggest", "compiling", 3, 7, "x = 1")) == \
        "trial 3 of 7 (x = 1): compiling"

    class Tty:
        def __init__(self):
            self.text = ""

        def isatty(self):
            return True

        def write(self, s):
            self.text += s

        def flush(self):
            pass

    tty = Tty()
    with ProgressLine("%compare", stream=tty) as progress:
        progress(Step("compare", "warming up", 1, 2, "default"))
        time.sleep(1.0)
    # one line rewritten in place (carriage returns, no newline), blanked at the end
    assert "\n" not in tty.text and "\r%compare: mode 1 of 2 (default): warming up" in tty.text
    assert tty.text.endswith("\r")
    quick = Tty()
    with ProgressLine("%compare", stream=quick) as progress:
        progress("fast")
    assert quick.text == ""  # ended before anything was due: nothing shown


def test_open_trace_tells_files_and_bytes_read(tmp_path):
    import shutil

    import nbcompile
    from nbcompile.display.progress import reading_text

    traces = ROOT / "tests" / "fixtures" / "traces"
    for i, name in enumerate(("graph_break.log", "recompile.log")):
        shutil.copy(traces / name, tmp_path / f"dedicated_log_torch_trace_rank_{i}_x.log")
    calls: list[tuple[int, int, int]] = []
    report = nbcompile.open_trace(tmp_path, progress=lambda *a: calls.append(a))
    size = sum(p.stat().st_size for p in tmp_path.iterdir())
    assert calls and calls[-1] == (2, 2, size) and report.bytes_read == size
    assert reading_text(1, 8, 3 * 1024 * 1024) == "1 of 8 files, 3.0 MiB read"


def test_a_ctrl_c_torch_swallowed_stops_the_command_at_its_next_step(sigint_handled):
    import os
    import signal

    with ctrl_c_watched():
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        except KeyboardInterrupt:
            pass  # swallowed, as torch can inside its guard checks
        with pytest.raises(KeyboardInterrupt):
            tell(None, "compare", "timing")
        tell(None, "compare", "timing")  # raised once
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        except KeyboardInterrupt:
            ctrl_c_delivered()  # the command's own handler saw it
        tell(None, "compare", "timing")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # as it found it
