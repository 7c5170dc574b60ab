"""TORCH_TRACE logs are untrusted input (issue 21, "Trace logs from anywhere").

``nbcompile.open_trace``, ``%nbcompile open`` and ``python -m nbcompile open`` must read
hostile logs without crashing, hanging or reading any local file but the logs in the
directory (no source line looked up on disk unless ``source_root=`` says where), escape
what reaches a terminal, and keep only documentation links. One test per finding, then a
fuzz over generated hostile directories (in-process and on the command line). The
``%nbcompile cache --dir`` checks are at the end.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import random
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from IPython.core.error import UsageError

import nbcompile
from nbcompile.core.logs.files import TraceLog, rank_from_name
from nbcompile.core.notebook import cache
from nbcompile.core.records import MIME_TYPE
from nbcompile.core.trace.payloads import (
    graph_break_link,
    linecache_line,
    parse_graph_break,
    source_line,
)
from nbcompile.display.trace import terminal_safe, trace_page, trace_text

from .conftest import ROOT

SECRET = "NBCOMPILE-SECRET-7f3a9c"
HEADER = "V1122 09:00:00.000000 1 torch/_dynamo/convert_frame.py:1] "
HUGE = "__NBCOMPILE_HUGE__"  # written as the JSON number 1e400 (inf once parsed)
IDS = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}


# --- writing logs --------------------------------------------------------------------
def event(metadata: dict, payload: str | None = None) -> str:
    """One trace event as torch writes it: glog header + JSON, then tab-indented payload."""
    md = dict(metadata)
    if payload is not None:
        md["has_payload"] = hashlib.md5(payload.encode()).hexdigest()
    text = HEADER + json.dumps(md).replace(f'"{HUGE}"', "1e400") + "\n"
    if payload is not None:
        text += "".join(f"\t{ln}\n" for ln in payload.split("\n"))
    return text


def break_payload(file: str, line: int, *, printed: str | None = None,
                  url: str = "https://docs.pytorch.org/docs/stable/compile/gb0059.html",
                  reason: str = "Failed to trace builtin operator") -> str:
    """A torch 2.13-shaped ``dynamo_graph_break_reason`` (see graph_break.log)."""
    frame = f'  File "{file}", line {line}, in f'
    return "\n".join([
        f"Graph break in user code at {file}:{line}",
        "Graph Break Reason: Encountered graph break when attempting to trace CALL: a "
        "function call, e.g. f(x, y):",
        "",
        reason,
        "  Explanation: Dynamo does not know how to trace builtin operator `print`",
        "  Hint: Avoid calling builtin `print`.",
        "",
        f" For more details about this graph break, please visit: {url}",
        "",
        "User code traceback:",
        frame,
        *([f"    {printed}"] if printed is not None else []),
        "",
    ])


def compile_events(frame: int = 0, *, name: str = "f", file: str = "/src/prog.py",
                   metrics: dict | None = None, start: dict | None = None,
                   extra: list[str] = ()) -> list[str]:
    ids = {"frame_id": frame, "frame_compile_id": 0, "attempt": 0}
    start = start if start is not None else {"stack": [{"line": 4, "name": name,
                                                        "filename": file}]}
    m = {"co_name": name, "co_filename": file, "co_firstlineno": 4,
         "entire_frame_compile_time_s": 0.5, **(metrics or {})}
    return [event({"dynamo_start": start, **ids}), *extra,
            event({"compilation_metrics": m, **ids})]


def write_log(path: Path, *events: str | list[str]) -> Path:
    flat: list[str] = []
    for e in events:
        flat.extend([e] if isinstance(e, str) else e)
    path.write_text("".join(flat))
    return path


def break_artifact(payload: str, frame: int = 0) -> str:
    return event({"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"},
                  "frame_id": frame, "frame_compile_id": 0, "attempt": 0}, payload)


def outputs(report) -> str:
    """Everything a report shows or stores: record, bundle, page, text."""
    bundle = report._repr_mimebundle_()
    return "\n".join([json.dumps(report.to_dict()), json.dumps(bundle[MIME_TYPE]),
                      bundle["text/html"], bundle["text/plain"], trace_page(report),
                      trace_text(report)])


@pytest.fixture
def secret(tmp_path) -> Path:
    """A file outside every trace directory whose content must never show."""
    outside = tmp_path / "outside"
    outside.mkdir()
    path = outside / "secret.txt"
    path.write_text(f"{SECRET} first line\n{SECRET} second line\n")
    return path


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nbcompile", "open", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=timeout)


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


def _kernel_code(handle: str) -> str:
    return ("def call(args):\n    a, b = args\n    buf0 = empty((2, 2))\n"
            f"    # [Provenance debug handles] {handle}\n"
            "    extern_kernels.mm(a, b, out=buf0)\n    return (buf0, )\n")


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


# --- the magic ------------------------------------------------------------------------------
def test_magic_open_with_a_source_root(tmp_path, ip, capsys, secret):
    src = tmp_path / "my src"
    src.mkdir()
    (src / "prog.py").write_text("a = 1\nprint('rooted')\n")
    log = write_log(tmp_path / "dedicated_log_torch_trace_rank_0_a.log",
                    compile_events(extra=[break_artifact(break_payload("/x/prog.py", 2))]))
    ip.run_line_magic("nbcompile", f"open {log} --source-root '{src}'")
    assert "print('rooted')" in capsys.readouterr().out
    ip.run_line_magic("nbcompile", f"open {log}")
    assert "print('rooted')" not in capsys.readouterr().out
    with pytest.raises(UsageError, match="--source-root belongs to"):
        ip.run_line_magic("nbcompile", f"cache --source-root '{src}'")


# --- fuzz: generated hostile directories ---------------------------------------------------
#: Every metadata field of the event kinds nbcompile reads, with its path in the metadata.
FIELDS = [
    ("str", ()), ("dynamo_start", ()), ("dynamo_start", ("stack",)),
    ("dynamo_start", ("stack", 0)), ("dynamo_start", ("stack", 0, "line")),
    ("dynamo_start", ("stack", 0, "name")), ("dynamo_start", ("stack", 0, "filename")),
    ("dynamo_start", ("stack", 0, "loc")), ("ids", ("frame_id",)),
    ("ids", ("frame_compile_id",)), ("ids", ("attempt",)), ("ids", ("rank",)),
    ("ids", ("has_payload",)), ("artifact", ()), ("artifact", ("name",)),
    ("compilation_metrics", ()),
    *[("compilation_metrics", (k,)) for k in (
        "co_name", "co_filename", "co_firstlineno", "graph_op_count", "fail_type",
        "fail_reason", "fail_user_frame_filename", "fail_user_frame_lineno",
        "dynamo_config", "recompile_reason", "restart_reasons",
        "dynamo_time_before_restart_s", "entire_frame_compile_time_s",
        "dynamo_cumulative_compile_time_us", "inductor_cumulative_compile_time_us",
        "guard_latency_us", "inductor_fx_local_cache_hit_count")],
    ("bwd_compilation_metrics", ("inductor_compile_time_s",)),
    ("inductor_output_code", ("filename",)), ("chromium_event", ()),
]
VALUES = [None, True, -1, 2 ** 70, HUGE, "abc", "", [], {}, [1, "x", None], {"a": {"b": 1}},
          "\x1b[2J<script>alert(1)</script>\u202e", "9" * 30]


def _base_events(rng: random.Random, secret: Path) -> list[tuple[dict, str | None]]:
    """(metadata, payload) of a small healthy compile that names the secret everywhere."""
    s = str(secret)
    ids = dict(IDS)
    chromium = json.dumps({"name": "backend_compile", "ts": 1.0, "ph": "B"})
    return [
        ({"str": [s, 0]}, None),
        ({"dynamo_start": {"stack": [{"line": 1, "name": "f", "filename": 0, "loc": "x"}]},
          **ids}, None),
        ({"chromium_event": {}, **ids}, chromium),
        ({"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"}, **ids},
         break_payload(s, 1, url="javascript:alert(1)")),
        ({"artifact": {"name": "recompile_reasons", "encoding": "json"}, **ids},
         json.dumps(["0/0: L['x'] == 1"])),
        ({"dynamo_output_graph": {"sizes": {}}, **ids},
         f"def forward(self, x):\n    # File: {s}:1 in f, code: x\n    sin = torch.sin(x)"),
        ({"inductor_output_code": {"filename": s}, **ids}, _kernel_code("extern_kernels.mm:1")),
        ({"artifact": {"name": "inductor_provenance_tracking_kernel_stack_traces",
                       "encoding": "json"}, **ids},
         json.dumps({"extern_kernels.mm:1": [f'  File "{s}", line 1, in f\n']})),
        ({"compilation_metrics": {"co_name": "f", "co_filename": s, "co_firstlineno": 1,
                                  "fail_type": "Unsupported", "fail_reason": "x",
                                  "fail_user_frame_filename": s, "fail_user_frame_lineno": 1,
                                  "entire_frame_compile_time_s": 0.1}, **ids}, None),
        ({"bwd_compilation_metrics": {"inductor_compile_time_s": 0.1}, **ids}, None),
    ]


def _set(md: dict, kind: str, path: tuple, value) -> bool:
    """Replace the field at ``path`` under ``md[kind]`` (or a locating field): True if set."""
    if kind == "ids":
        md[path[0]] = value
        return True
    if kind not in md:
        return False
    if not path:
        md[kind] = value
        return True
    node = md[kind]
    for part in path[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return False
    if isinstance(node, (dict, list)):
        try:
            node[path[-1]] = value
            return True
        except IndexError:
            return False
    return False


def _type_confusion(directory: Path, rng: random.Random, secret: Path) -> None:
    """One file per (field, hostile value): each file is one mutated healthy compile."""
    n = 0
    for kind, path in FIELDS:
        for value in VALUES:
            lines = []
            for md, payload in _base_events(rng, secret):
                md = json.loads(json.dumps(md))
                if event_kind_of(md) == kind or kind == "ids":
                    _set(md, kind, path, value)
                lines.append(event(md, payload))
            (directory / f"dedicated_log_torch_trace_rank_{n % 3}_{n}.log").write_text(
                "".join(lines))
            n += 1


def event_kind_of(md: dict) -> str:
    keys = {"rank", "frame_id", "frame_compile_id", "attempt", "has_payload"}
    return next((k for k in md if k not in keys), "")


def _healthy(rng: random.Random, secret: Path) -> str:
    return "".join(event(md, p) for md, p in _base_events(rng, secret))


def _junk(directory: Path, rng: random.Random, secret: Path) -> None:
    healthy = _healthy(rng, secret).encode()
    (directory / "dedicated_log_torch_trace_rank_0_bin.log").write_bytes(rng.randbytes(50_000))
    (directory / "junk.log").write_bytes(b"V1122 " + rng.randbytes(5000))
    (directory / "dedicated_log_torch_trace_rank_1_gz.log").write_bytes(gzip.compress(healthy))
    (directory / "trace.log.gz").write_bytes(gzip.compress(healthy))
    for i in range(8):  # truncated at random points, and with bytes flipped
        cut = rng.randrange(1, len(healthy))
        (directory / f"dedicated_log_torch_trace_rank_2_cut{i}.log").write_bytes(healthy[:cut])
        flipped = bytearray(healthy)
        for _ in range(20):
            flipped[rng.randrange(len(flipped))] = rng.randrange(256)
        (directory / f"dedicated_log_torch_trace_rank_3_flip{i}.log").write_bytes(flipped)
    bad_utf8 = (HEADER + '{"dynamo_start": {"stack": []}, "frame_id": 0}').encode() \
        .replace(b"[]", b'["\xff\xfe\xc3"]') + b"\n\t\xff\xfe payload\n"
    (directory / "dedicated_log_torch_trace_rank_4_utf8.log").write_bytes(
        bad_utf8 + healthy)
    (directory / "dedicated_log_torch_trace_rank_5_nul.log").write_bytes(
        healthy.replace(b"f", b"f\x00", 3))


def _special(directory: Path, rng: random.Random, secret: Path) -> None:
    (directory / "dedicated_log_torch_trace_rank_0_ok.log").write_text(_healthy(rng, secret))
    os.mkfifo(directory / "x.log")
    os.mkfifo(directory / "dedicated_log_torch_trace_rank_1_fifo.log")
    (directory / "dedicated_log_torch_trace_rank_2_out.log").symlink_to(secret)
    (directory / "dedicated_log_torch_trace_rank_3_zero.log").symlink_to("/dev/zero")
    (directory / "dedicated_log_torch_trace_rank_4_dir.log").symlink_to(secret.parent)
    (directory / "dedicated_log_torch_trace_rank_5_dangling.log").symlink_to(
        directory / "nowhere")
    (directory / "sub.log").mkdir()
    (directory / "\x1b[2Jname\u202e.log").write_text(_healthy(rng, secret))
    (directory / b"bad\xffname.log".decode("utf-8", "surrogateescape")).write_text(
        _healthy(rng, secret))


def _markup(directory: Path, rng: random.Random, secret: Path) -> None:
    evil = "<script>alert(1)</script>\x1b[31m\u202e\r\n'\"&"
    lines = compile_events(name=evil, file=evil, extra=[
        break_artifact(break_payload(evil, 1, reason=evil, printed=evil,
                                     url=f"https://docs.pytorch.org/{evil}"))])
    (directory / "dedicated_log_torch_trace_rank_0_m.log").write_text(
        "".join(lines) + evil + "\n" + _healthy(rng, secret))


def _many(directory: Path, rng: random.Random, secret: Path) -> None:
    """2000 small logs, one compile each (one of them with a line that is not a trace)."""
    for i in range(2000):
        text = "".join(compile_events(name=f"f{i}", file=str(secret)))
        if i == 1000:
            text += "\x1b[2J not a trace line\n"
        (directory / f"dedicated_log_torch_trace_rank_{i}_m.log").write_text(text)


CASES = {"type_confusion": _type_confusion, "junk": _junk, "special": _special,
         "markup": _markup, "many": _many}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """The hostile trace directories (and the secret outside them)."""
    base = tmp_path_factory.mktemp("hostile")
    secret = base / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text(f"{SECRET} first line\n{SECRET} second line\n")
    rng = random.Random(21)
    dirs = {}
    for name, make in CASES.items():
        directory = base / name
        directory.mkdir()
        make(directory, rng, secret)
        dirs[name] = directory
    yield base, dirs
    for directory in dirs.values():  # free anything stuck on a FIFO
        for fifo in directory.glob("*.log"):
            if fifo.is_fifo():
                with contextlib.suppress(OSError):
                    os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))


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


# --- 9. %nbcompile cache --dir ----------------------------------------------------------------
@pytest.fixture
def cache_state(monkeypatch):
    saved = os.environ.get(cache.ENV)
    monkeypatch.setattr(cache, "_state", cache.CacheState())
    yield
    if saved is None:
        os.environ.pop(cache.ENV, None)
    else:
        os.environ[cache.ENV] = saved


def test_cache_dir_refuses_special_trees_and_unsafe_parents(tmp_path, cache_state):
    for special in ("/proc/self/cwd/x", "/sys/kernel/x", "/dev/shm/nbcompile-x", "/dev"):
        with pytest.raises(cache.CacheDirError, match="not a place for a compile cache"):
            cache.ensure_dir(special)
    assert not Path("/dev/shm/nbcompile-x").exists()
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    with pytest.raises(cache.CacheDirError, match="a parent of .* is writable by group"):
        cache.ensure_dir(shared / "a" / "b")
    assert not (shared / "a").exists()
    os.chmod(shared, 0o1777)  # sticky, like /tmp: fine
    made = cache.ensure_dir(shared / "a" / "b")
    assert stat.S_IMODE(made.stat().st_mode) == 0o700


def test_cache_dir_creates_every_missing_directory_0700(tmp_path, cache_state):
    old = os.umask(0o002)
    try:
        made = cache.ensure_dir(tmp_path / "p" / "q" / "r")
    finally:
        os.umask(old)
    for d in (tmp_path / "p", tmp_path / "p" / "q", made):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700, d


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to chown")
def test_cache_dir_refuses_a_parent_owned_by_another_user(tmp_path, cache_state):
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o755)
    os.chown(theirs, 65534, 65534)
    with pytest.raises(cache.CacheDirError, match="a parent of .* is owned by another user"):
        cache.ensure_dir(theirs / "mine")


def test_cache_magic_strips_quotes(tmp_path, ip, capsys, cache_state, monkeypatch):
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "quoted dir"
    ip.run_line_magic("nbcompile", f"cache --dir '{target}'")
    assert target.is_dir() and not (tmp_path / "'").exists()
    assert os.environ[cache.ENV] == str(target)
    ip.run_line_magic("nbcompile", f'cache --dir "{tmp_path / "double"}"')
    assert (tmp_path / "double").is_dir()
    with pytest.raises(UsageError, match="not a place for a compile cache"):
        ip.run_line_magic("nbcompile", "cache --dir /proc/nbcompile")
