"""TORCH_TRACE logs are untrusted input: ``nbcompile.open_trace`` in-process.

Hostile logs are read without crashing, hanging or reading any local file but the logs in
the directory (no source line looked up on disk unless ``source_root=`` says where); what
reaches a terminal is escaped and only documentation links are kept. One test per
finding, then a fuzz over generated hostile directories. The magic's side is in
``tests/shell/test_trace_hostile.py``, the command line's in ``tests/kernel/``.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from pathlib import Path

import pytest

import nbcompile
from nbcompile.core.logs.files import TraceLog
from nbcompile.core.logs.paths import rank_from_name
from nbcompile.core.records import MIME_TYPE
from nbcompile.core.trace.payloads import (
    graph_break_link,
    linecache_line,
    parse_graph_break,
    source_line,
)
from nbcompile.display.trace import trace_page, trace_text
from tests.support.trace_logs import (
    FIELDS,
    HEADER,
    HUGE,
    IDS,
    SECRET,
    _kernel_code,
    break_artifact,
    break_payload,
    compile_events,
    event,
    write_log,
)


def outputs(report) -> str:
    """Everything a report shows or stores: record, bundle, page, text."""
    bundle = report._repr_mimebundle_()
    return "\n".join([json.dumps(report.to_dict()), json.dumps(bundle[MIME_TYPE]),
                      bundle["text/html"], bundle["text/plain"], trace_page(report),
                      trace_text(report)])




# --- 1. a log makes nbcompile read local files -----------------------------------------
def test_a_break_line_is_not_read_from_disk(tmp_path, secret):
    trace = tmp_path / "trace"
    trace.mkdir()
    log = write_log(trace / "dedicated_log_torch_trace_rank_0_a.log", compile_events(extra=[
        break_artifact(break_payload(str(secret), 1)),
        break_artifact(break_payload("/etc/passwd", 1))]))
    report = nbcompile.open_trace(trace)
    breaks = report.compiles[0].graph_breaks
    assert [(b.filename, b.lineno, b.line) for b in breaks] == [
        (str(secret), 1, ""), ("/etc/passwd", 1, "")]
    assert breaks[0].stack[-1].line == ""
    shown = outputs(report)
    assert SECRET not in shown and "root:x:0" not in shown
    notes = [p for p in report.problems if "local files are not read" in p]
    assert len(notes) == 1 and "source_root" in notes[0]
    assert str(log) in report.files


def test_a_break_line_comes_from_the_log_itself(tmp_path, secret):
    log = write_log(tmp_path / "dedicated_log_torch_trace_rank_0_a.log", compile_events(
        extra=[break_artifact(break_payload(str(secret), 2, printed='print("as logged")'))]))
    (gb,) = nbcompile.open_trace(log).compiles[0].graph_breaks
    assert gb.line == 'print("as logged")' and gb.stack[-1].line == 'print("as logged")'


def test_source_root_reads_only_regular_files_inside_it(tmp_path, secret):
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "model.py").write_text("import torch\nprint('from the root')\n")
    (src / "escape.py").symlink_to(secret)
    os.mkfifo(src / "fifo.py")
    breaks = [break_artifact(break_payload(f, 2)) for f in (
        "/home/ci/job/pkg/model.py",  # another machine's path: found by its tail
        str(src / "escape.py"), str(secret), str(src / "fifo.py"), "/dev/zero",
        str(src / ".." / "outside" / "secret.txt"))]
    log = write_log(tmp_path / "dedicated_log_torch_trace_rank_0_a.log",
                    compile_events(extra=breaks))
    report = nbcompile.open_trace(log, source_root=src)
    lines = [b.line for b in report.compiles[0].graph_breaks]
    assert lines == ["print('from the root')", "", "", "", "", ""]
    assert SECRET not in outputs(report)
    assert not any("local files are not read" in p for p in report.problems)
    with pytest.raises(FileNotFoundError):
        nbcompile.open_trace(log, source_root=tmp_path / "missing")


def test_live_capture_still_reads_linecache():
    import linecache

    name = "<ipython-input-hostile-1>"
    linecache.cache[name] = (10, None, ["x = 1\n", "y = x.sin()\n"], name)
    try:
        assert source_line(name, 2) == "y = x.sin()"  # the default reader, as before
        assert linecache_line(name, 2, "ignored") == "y = x.sin()"
        payload = break_payload(name, 2)
        assert parse_graph_break(payload).line == "y = x.sin()"
    finally:
        del linecache.cache[name]


def test_provenance_and_failure_lines_read_no_file(tmp_path, secret):
    handle = "extern_kernels.mm:1"
    provenance = json.dumps({handle: [f'  File "{secret}", line 1, in f\n',
                                      '  File "/src/prog.py", line 7, in f\n    y = a @ b\n']})
    metrics = {"fail_type": "Unsupported", "fail_reason": "x",
               "fail_user_frame_filename": str(secret), "fail_user_frame_lineno": 1}
    extra = [event({"inductor_output_code": {"filename": "/tmp/out.py"}, **IDS},
                   _kernel_code(handle)),
             event({"artifact": {"name": "inductor_provenance_tracking_kernel_stack_traces",
                                 "encoding": "json"}, **IDS}, provenance),
             event({"artifact": {"name": "dynamo_error", "encoding": "string"}, **IDS},
                   f'from user code:\n  File "{secret}", line 2, in f\n')]
    log = write_log(tmp_path / "dedicated_log_torch_trace_rank_0_a.log",
                    compile_events(metrics=metrics, extra=extra))
    report = nbcompile.open_trace(log)
    (mm,) = [k for k in report.compiles[0].kernels if k.handle == handle]
    assert [(ln.filename, ln.lineno, ln.line) for ln in mm.lines] == [
        ("/src/prog.py", 7, "y = a @ b"), (str(secret), 1, "")]
    assert SECRET not in outputs(report)


# --- 2. every event is read on its own ---------------------------------------------------
MALFORMED = {
    "co_firstlineno": lambda: compile_events(metrics={"co_firstlineno": "abc"}),
    "stack line 1e400": lambda: compile_events(
        start={"stack": [{"line": HUGE, "name": "f", "filename": "/src/prog.py"}]}),
    "stack 5": lambda: compile_events(start={"stack": 5}),
    "restart time": lambda: [
        event({"dynamo_start": {"stack": []}, **IDS}),
        event({"dynamo_start": {"stack": []}, **IDS, "attempt": 1}),
        event({"compilation_metrics": {"co_name": "f", "restart_reasons": ["r"],
                                       "dynamo_time_before_restart_s": "x"},
               **IDS, "attempt": 1})],
    "str 1e400": lambda: [event({"str": ["x", HUGE]})],
    "utf-8": lambda: [(HEADER + '{"dynamo_start": {"stack": [{"name": "\xff"}]}, '
                       '"frame_id": 0}\n').encode("latin-1").decode("utf-8", "surrogateescape")],
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_one_malformed_event_is_a_problem_not_a_failure(tmp_path, case):
    log = tmp_path / "dedicated_log_torch_trace_rank_0_a.log"
    lines = [*MALFORMED[case](), *compile_events(frame=5, name="healthy")]
    log.write_bytes("".join(lines).encode("utf-8", "surrogateescape"))
    report = nbcompile.open_trace(log)
    shown = outputs(report)  # every content built, nothing raises
    assert "healthy" in [c.function for c in report.compiles]
    assert any(p.startswith(f"{log}:1: ") or p.startswith(f"{log}:2: ")
               or p.startswith(f"{log}:3: ") for p in report.problems), report.problems
    assert "Traceback" not in shown


def test_malformed_payloads_and_metadata_in_contents(tmp_path):
    nested = "[" * 100_000 + "]" * 100_000
    extra = [
        event({"chromium_event": {}, **IDS}, nested),
        event({"artifact": {"name": "recompile_reasons", "encoding": "json"}, **IDS}, nested),
        event({"artifact": {"name": "inductor_provenance_tracking_kernel_stack_traces",
                            "encoding": "json"}, **IDS}, nested),
        event({"inductor_output_code": {"filename": 5}, **IDS}, "def call(args):\n    pass"),
        event({"artifact": {"name": 5}, **IDS}, "x"),
        event({"artifact": "dynamo_graph_break_reason", **IDS}, "x"),
        HEADER + '{"dynamo_output_graph": {}, "frame_id": 0, "has_payload": 5}\n',
        HEADER + "[" * 100_000 + "\n",
        HEADER + '{"x": ' + "9" * 5000 + "}\n",
        event({"dynamo_start": {}, "frame_id": 0, "frame_compile_id": "1", "attempt": 0}),
        event({"dynamo_start": {}, "frame_id": True, "rank": -1}),
    ]
    log = write_log(tmp_path / "dedicated_log_torch_trace_rank_0_a.log",
                    compile_events(extra=extra))
    report = nbcompile.open_trace(log)
    outputs(report)
    assert [c.compile_id for c in report.compiles] == ["0/0"]
    assert any("malformed frame_compile_id" in p for p in report.problems)
    assert any("unreadable JSON" in p for p in report.problems)


def test_an_over_long_line_is_skipped_not_held(tmp_path, monkeypatch):
    from nbcompile.core.logs import files

    monkeypatch.setattr(files, "_MAX_LINE", 1000)
    monkeypatch.setattr(files, "_CHUNK", 256)
    graph = "def forward(self, x):\n    y = torch.sin(x)  # " + "p" * 5000
    log = write_log(tmp_path / "dedicated_log_torch_trace_rank_0_a.log", compile_events(extra=[
        HEADER + '{"junk": "' + "j" * 5000 + '"}\n',
        event({"dynamo_output_graph": {}, **IDS}, graph)]))
    report = nbcompile.open_trace(log)
    (c,) = report.compiles
    assert c.graphs == [graph] and c.status == "compiled"
    assert any(":2: a line longer than" in p for p in report.problems), report.problems
    assert not any("md5" in p for p in report.problems)


# --- 3. special files ---------------------------------------------------------------------
@contextlib.contextmanager
def fifo_watchdog(fifo: Path, after: float = 15):
    """Unblock a reader stuck on ``fifo`` after ``after`` s (the old code hung forever)."""
    def release() -> None:
        time.sleep(after)
        with contextlib.suppress(OSError), open(fifo, "wb"):
            pass

    thread = threading.Thread(target=release, daemon=True)
    thread.start()
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))  # frees the writer


def test_a_fifo_in_the_directory_is_skipped(tmp_path):
    trace = tmp_path / "trace"
    trace.mkdir()
    write_log(trace / "dedicated_log_torch_trace_rank_0_a.log", compile_events())
    os.mkfifo(trace / "x.log")
    os.mkfifo(trace / "dedicated_log_torch_trace_rank_1_b.log")
    with fifo_watchdog(trace / "x.log"), fifo_watchdog(
            trace / "dedicated_log_torch_trace_rank_1_b.log"):
        started = time.monotonic()
        report = nbcompile.open_trace(trace)
        assert time.monotonic() - started < 10
    assert len(report.compiles) == 1
    assert sum("a FIFO, not a regular file" in p for p in report.problems) == 2
    with pytest.raises(OSError, match="not a regular file"):
        list(TraceLog(trace / "x.log").events())
    direct = nbcompile.open_trace(trace / "x.log")
    assert direct.compiles == [] and "a FIFO" in direct.problems[0]


# --- 7. symlinks out of the directory -------------------------------------------------------
def test_symlinks_out_of_the_directory_are_not_followed(tmp_path, secret):
    trace = tmp_path / "trace"
    trace.mkdir()
    real = write_log(trace / "real.log", compile_events())
    (trace / "dedicated_log_torch_trace_rank_1_x.log").symlink_to(secret)
    (trace / "dedicated_log_torch_trace_rank_2_x.log").symlink_to("/etc/passwd")
    (trace / "dedicated_log_torch_trace_rank_3_x.log").symlink_to(real)  # inside: read
    (trace / "loop.log").symlink_to(trace / "loop.log")
    report = nbcompile.open_trace(trace)
    shown = outputs(report)
    assert SECRET not in shown and "root:x:0" not in shown
    assert sum("symlink that leads outside the directory" in p for p in report.problems) == 2
    assert report.ranks == [3] and len(report.compiles) == 2


# --- 11. ranks from file names -----------------------------------------------------------------
def test_rank_from_either_file_name_or_from_metadata(tmp_path):
    assert rank_from_name("dedicated_log_torch_trace_rank_0.log") == 0
    assert rank_from_name("dedicated_log_torch_trace_rank_12_abc123.log") == 12
    assert rank_from_name("dedicated_log_torch_trace_abc.log") is None
    trace = tmp_path / "trace"
    trace.mkdir()
    write_log(trace / "dedicated_log_torch_trace_rank_0.log", compile_events())
    write_log(trace / "dedicated_log_torch_trace_rank_1_x.log", compile_events())
    assert nbcompile.open_trace(trace).ranks == [0, 1]
    other = tmp_path / "other"
    other.mkdir()
    write_log(other / "dedicated_log_torch_trace_x.log",
              event({"chromium_event": {}, "rank": 4}, "{}"), compile_events())
    report = nbcompile.open_trace(other)
    assert report.ranks == [4] and report.compiles[0].rank == 4


# --- 10. links ------------------------------------------------------------------------------
def test_only_documentation_links_are_kept():
    registry = graph_break_link("", "Failed to trace builtin operator")["doc_url"]
    assert registry.startswith("https://")  # torch's own registry link for the type
    for url in ("javascript:alert(1)", "http://pytorch.org/docs/gb0059.html",
                "https://pytorch.org.evil.example/gb0059.html", "data:text/html,x",
                "https://docs.pytorch.org/x'onmouseover='alert(1)"):
        gb = parse_graph_break(break_payload("/x.py", 1, url=url))
        assert gb.doc_url == registry, url  # the log's link dropped, torch's kept
        unknown = parse_graph_break(break_payload("/x.py", 1, url=url, reason="New break"))
        assert (unknown.doc_url, unknown.gb_id) == ("", ""), url
    for url in ("https://pytorch.org/docs/stable/gb0059.html",
                "https://docs.pytorch.org/docs/stable/compile/gb0059.html",
                "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html"):
        assert parse_graph_break(break_payload("/x.py", 1, url=url)).doc_url == url
    assert graph_break_link("please visit: javascript:x") == {"gb_id": "", "doc_url": ""}


# --- the torch 2.9 graph-break shape ----------------------------------------------------------
def test_graph_break_type_in_both_payload_shapes():
    new = parse_graph_break(break_payload("/x.py", 6))
    old = parse_graph_break("\n".join([
        "Graph break in user code at /x.py:6",
        "Graph Break Reason: Failed to trace builtin operator",
        "  Explanation: Dynamo does not know how to trace builtin operator `print`",
        "  Hint: Avoid calling builtin `print`.",
        "",
        "  Developer debug context: builtin print False",
        "",
        "User code traceback:",
        '  File "/x.py", line 6, in f',
        '    print("break")',
    ]))
    for gb in (new, old):
        assert gb.gb_type == "Failed to trace builtin operator"
        assert gb.reason == ("Failed to trace builtin operator: Dynamo does not know how to "
                             "trace builtin operator `print`")
    assert old.line == ""  # live parsing reads linecache, as before (there is no /x.py)
    plain = parse_graph_break("Graph break in user code at /x.py:6\n"
                              "Graph Break Reason: Call to `torch._dynamo.graph_break()`\n")
    assert plain.gb_type == "" and plain.reason == "Call to `torch._dynamo.graph_break()`"



























def test_fuzz_open_trace(hostile):
    base, dirs = hostile
    for name, directory in dirs.items():
        started = time.monotonic()
        with contextlib.ExitStack() as stack:
            for fifo in directory.glob("*.log"):
                if fifo.is_fifo():
                    stack.enter_context(fifo_watchdog(fifo))
            report = nbcompile.open_trace(directory)
        shown = outputs(report)
        elapsed = time.monotonic() - started
        assert elapsed < 30, (name, elapsed)
        assert SECRET not in shown, name
        assert report.problems, name
        json.loads(json.dumps(report.to_dict(), allow_nan=False))  # strict JSON
        shown.encode("utf-8")  # no lone surrogate left anywhere
        for text in (trace_text(report), report._repr_mimebundle_()["text/plain"]):
            assert "\x1b" not in text and "\u202e" not in text, name
    confused = nbcompile.open_trace(dirs["type_confusion"])
    assert len(confused.compiles) > len(FIELDS)  # mutated files still read
    assert any(": dynamo_start: a stack frame's line is not a whole number" in p
               for p in confused.problems)
