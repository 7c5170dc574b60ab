"""Annotated source (``report(obj).annotate()``, ``%%compile --annotate``) and code diffs
between compiles, on real CPU compiles in-process."""

from __future__ import annotations

import linecache

import pytest
import torch

import nbcompile
from nbcompile.core.records import MIME_TYPE
from nbcompile.display import live
from tests.support.shell import run_cell

CELL = '''import torch

def annotated(x):
    y = x + 1  # <b>not bold</b>
    print("side effect")
    n = x.shape[0]
    return (y * n).softmax(-1)
'''


@pytest.fixture(scope="module")
def summaries(ip):
    """The LiveSummary objects the magic creates (to read their bundles)."""
    made: list[live.LiveSummary] = []
    original = live.LiveSummary.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self)

    live.LiveSummary.__init__ = init
    yield made
    live.LiveSummary.__init__ = original


@pytest.fixture(scope="module")
def annotated(ip, summaries):
    ip.run_cell_magic("compile", "--annotate", CELL)
    summary = summaries[-1]
    pending = summary.bundle()
    run_cell(ip, "xa = torch.randn(4, 8)\nya = annotated(xa)")
    return ip, summary, pending


def line_of(filename: str, text: str) -> int:
    lines = linecache.getlines(filename)
    return next(i for i, line in enumerate(lines, start=1) if line.strip().startswith(text))


def test_each_line_is_marked(annotated):
    ip = annotated[0]
    view = nbcompile.report(ip.user_ns["annotated"]).annotate()
    filename = view.lines[0].filename
    add = view.line(line_of(filename, "y = x + 1"))
    assert add.category == "kernel" and add.kernels and add.kernels[0].startswith("cpp_fused_")
    brk = view.line(line_of(filename, 'print("side effect")'))
    assert brk.category == "graph_break" and brk.reason
    soft = view.line(line_of(filename, "return (y * n).softmax(-1)"))
    assert soft.category == "kernel" and "softmax" in soft.kernels[0]
    assert view.line(line_of(filename, "def annotated(x):")).category == "outside"
    assert view.line(line_of(filename, "import torch")).category == "outside"
    assert {a.category for a in view.lines} <= {"kernel", "graph_break", "outside", "blank",
                                                 "python", "traced", "extern"}


def test_annotated_html_is_escaped_and_expands_to_kernel_code(annotated):
    ip = annotated[0]
    view = nbcompile.report(ip.user_ns["annotated"]).annotate()
    html = view._repr_html_()
    assert "<b>not bold</b>" not in html and "&lt;b&gt;not bold&lt;/b&gt;" in html
    assert "<details" in html and "<script" not in html
    assert "extern" in html and "cpp_fused_" in html and "kernel(" in html  # the C++ code
    bundle = view._repr_mimebundle_()
    assert {"text/html", "text/plain", MIME_TYPE} <= bundle.keys()
    assert "graph break" in bundle["text/plain"]


def test_annotations_are_in_the_published_record(annotated):
    from nbcompile.display.bundle import published_record

    data = published_record(nbcompile.report(annotated[0].user_ns["annotated"]))
    cats = {a["lineno"]: a["category"] for a in data["annotations"]}
    assert "graph_break" in cats.values() and "kernel" in cats.values()
    kernel_line = next(a for a in data["annotations"] if a["category"] == "kernel")
    assert kernel_line["kernel_refs"]
    assert data["kernels"][kernel_line["kernel_refs"][0]]["kind"] == "kernel"


def test_compile_annotate_flag_adds_the_view_to_the_live_summary(annotated):
    _, summary, pending = annotated
    assert "once the first call compiles" in pending["text/html"]
    bundle = summary.bundle()
    assert "annotated source of" in bundle["text/html"]
    assert "cpp_fused_" in bundle["text/plain"]


def test_dtype_recompile_diff_names_the_kernel(ip):
    ip.run_cell_magic("compile", "", "def to_diff(x):\n    return torch.cos(x) * 3\n")
    run_cell(ip, "xd = torch.randn(4, 8)\nd1 = to_diff(xd)\nd2 = to_diff(xd.double())")
    rep = nbcompile.report(ip.user_ns["to_diff"])
    kernel = next(k.name for k in rep.kernels if k.kind == "kernel")
    diffs = [d for d in rep.code_diffs if d.kernel == kernel]
    assert diffs and diffs[0].change == "changed"
    assert diffs[0].diff and diffs[0].added > 0 and diffs[0].removed > 0
    assert kernel in diffs[0].diff and "double" in diffs[0].diff
    assert "dtype mismatch" in diffs[0].cause
    frame = diffs[0].compile_id.split("/")[0]
    assert (diffs[0].previous_compile_id, diffs[0].compile_id) == (f"{frame}/0", f"{frame}/1")
    html = rep._repr_mimebundle_()["text/html"]
    assert "changed since the previous compile" in html and kernel in html


def test_cell_rerun_diff_against_the_previous_target(ip):
    ip.run_cell_magic("compile", "", "def edited(x):\n    return x.sin() + 1\n")
    run_cell(ip, "xe = torch.randn(4, 8)\ne1 = edited(xe)")
    ip.run_cell_magic("compile", "", "def edited(x):\n    return x.sin() * 2\n")
    run_cell(ip, "e2 = edited(xe)")
    rep = nbcompile.report(ip.user_ns["edited"])
    changed = [d for d in rep.code_diffs if d.cause == "cell re-run"]
    assert changed, rep.code_diffs
    assert any(d.kernel.startswith("cpp_fused_") for d in changed)
    torch.testing.assert_close(ip.user_ns["e2"], ip.user_ns["xe"].sin() * 2)
