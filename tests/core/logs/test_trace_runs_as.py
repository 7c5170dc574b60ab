"""What a TORCH_TRACE log holds of what torch runs in place of a frame: a real trace of a
function with a ``print`` break (torch logs a resume function's transformed code as
``<co_name>_MODIFIED_BYTECODE``, dis text, and nothing of the first frame's), read by
``open_trace`` and ``python -m nbcompile open``; and hostile bytecode artifacts, each read
alone, bounded."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from nbcompile.core.logs.run import read_trace
from nbcompile.core.trace.runs_as import LOGGED_DIS, NOT_IN_LOG, RESUME_NOT_IN_LOG
from nbcompile.display.trace import published_trace, trace_html, trace_text

from ...support.torch_source import logs_resume_bytecode
from ...support.trace_logs import compile_events, event, write_log

PROGRAM = textwrap.dedent("""
    import torch
    def f(x):
        y = torch.sin(x) * 2
        print('debug')
        return torch.relu(y) + 1
    torch.compile(f, backend="eager")(torch.randn(4))
""")


@pytest.fixture(scope="module")
def print_break_trace(tmp_path_factory) -> Path:
    """A real TORCH_TRACE directory of a function with a ``print`` break."""
    root = tmp_path_factory.mktemp("runs_as_trace")
    (root / "prog.py").write_text(PROGRAM)
    env = {**os.environ, "TORCH_TRACE": str(root / "trace")}
    subprocess.run([sys.executable, str(root / "prog.py")], env=env, check=True,
                   capture_output=True, timeout=300)
    return root / "trace"


@pytest.mark.slow
def test_a_resume_functions_bytecode_is_shown_the_first_frames_is_not_in_the_log(
        print_break_trace):
    report = read_trace(print_break_trace)
    resume = [c for c in report.compiles if c.function.startswith("torch_dynamo_resume_in_f")]
    assert len(resume) == 1, [c.compile_id for c in report.compiles]
    runs = resume[0].runs_as
    if not logs_resume_bytecode():  # torch 2.9: no transformed code in its trace at all
        assert runs is not None and runs.problem == RESUME_NOT_IN_LOG, runs
        assert not runs.dis and not runs.steps and not runs.source
        for c in report.compiles:
            if c is not resume[0]:
                assert c.runs_as is not None and c.runs_as.problem == NOT_IN_LOG, c.compile_id
        text = trace_text(report)
        assert f"what torch runs in place of {len(report.compiles)} compile(s): " \
               f"{NOT_IN_LOG}" in text, text
        assert "what torch runs</summary>" not in trace_html(report)
        return
    assert runs is not None and runs.problem == LOGGED_DIS and not runs.source
    # torch's own dis text, verbatim: it calls the resume function's one compiled graph
    assert "LOAD_GLOBAL" in runs.dis and "__compiled_fn_" in runs.dis
    assert [s.kind for s in runs.steps] == ["graph"] * len(resume[0].graphs) == ["graph"]
    assert runs.walk == f"graph of {resume[0].compile_id} (2 ops: relu, add)"
    for c in report.compiles:
        if c is not resume[0]:  # f's own transformed code: torch does not log it
            assert c.runs_as is not None and c.runs_as.problem == NOT_IN_LOG, c.compile_id
            assert not c.runs_as.dis and not c.runs_as.steps

    text = trace_text(report)
    assert f"what torch runs: {runs.walk}  -- {LOGGED_DIS}" in text
    assert f"what torch runs in place of {len(report.compiles) - 1} compile(s): " \
           f"{NOT_IN_LOG}" in text
    html = trace_html(report)
    assert "what torch runs</summary>" in html and "LOAD_GLOBAL" in html
    published = published_trace(report)
    assert any(c.get("runs_as", {}) and c["runs_as"]["dis"] for c in published["compiles"])


@pytest.mark.slow
def test_the_command_line_says_it(print_break_trace):
    out = subprocess.run([sys.executable, "-m", "nbcompile", "open", str(print_break_trace)],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    if logs_resume_bytecode():
        assert "what torch runs: graph of 1/0 (2 ops: relu, add)  -- decompiled source is " \
               "not in a trace log" in out, out
    assert "not in this log" in out, out


def _bytecode(name: str, payload: str, frame: int = 1) -> str:
    return event({"artifact": {"name": name, "encoding": "string"}, "frame_id": frame,
                  "frame_compile_id": 0, "attempt": 0}, payload)


def test_hostile_bytecode_artifacts_are_bounded_and_read_alone(tmp_path):
    huge = "  2 LOAD_GLOBAL 9 (NULL + __compiled_fn_1_x)\n" + "<b>x</b> " * 100_000
    log = write_log(
        tmp_path / "t.log",
        compile_events(1, name="torch_dynamo_resume_in_f_at_5",
                       extra=[_bytecode("torch_dynamo_resume_in_f_at_5_MODIFIED_BYTECODE",
                                        huge)]),
        # a payload that is no dis text, under a name with markup: no steps, kept as text
        compile_events(2, name="g", extra=[_bytecode("<script>_MODIFIED_BYTECODE",
                                                     "not bytecode\n" * 3, frame=2)]),
        # a bytecode artifact with no payload: noted or skipped, never the others' loss
        compile_events(3, name="h", extra=[event({
            "artifact": {"name": "h_MODIFIED_BYTECODE", "encoding": "string"},
            "frame_id": 3, "frame_compile_id": 0, "attempt": 0})]),
    )
    report = read_trace(log)
    by_frame = {c.function: c for c in report.compiles}
    first = by_frame["torch_dynamo_resume_in_f_at_5"].runs_as
    assert first is not None and len(first.dis) < 25_000
    assert "more characters in the log" in first.dis
    assert [s.kind for s in first.steps] == ["graph"]
    second = by_frame["g"].runs_as
    assert second is not None and second.dis.startswith("not bytecode") and not second.steps
    third = by_frame["h"].runs_as
    assert third is not None and third.problem in (NOT_IN_LOG, LOGGED_DIS)
    html = trace_html(report)
    assert "<b>x</b>" not in html and "<script>" not in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html
