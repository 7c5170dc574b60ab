"""The static report (``text/html`` of a ``CompileReport``, what a front end without
widgets shows) carries the *Runs as* view: per compile, the record's steps, why there is
no source, and the transformed code (Python or ``dis``), escaped and capped."""

from __future__ import annotations

import html

from nbcompile.core.records import MIME_TYPE, CompileRecord, RunsAs, RunStep, TargetRecord
from nbcompile.core.trace.runs_as import NO_NEW_CODE
from nbcompile.display.report_html import report_bundle, report_html
from nbcompile.display.text import GRAPH_CAP

WALK = [
    RunStep(kind="graph", graph=0, text="graph of 0/0 (2 ops: sin, mul)"),
    RunStep(kind="python", lineno=5, text="print('<debug>') in Python (line 5)"),
    RunStep(kind="resume", frame="torch_dynamo_resume_in_f_at_5",
            text="resume in torch_dynamo_resume_in_f_at_5"),
]
SOURCE = ("def f(x):\n    __temp_2, = __compiled_fn_1(x)\n    y = __temp_2\n"
          "    print('<debug>')\n    return __resume_at_30_2(y)\n")
DIS = "  0 RESUME 0\n  2 LOAD_GLOBAL 1 (NULL + __compiled_fn_5)\n"
PROBLEM = ("depyf could not decompile it (DecompilationError: jump): the transformed code "
           "is shown as bytecode (dis)")


def _record(source: str = SOURCE) -> TargetRecord:
    top = CompileRecord(compile_id="0/0", frame="f", graphs=["graph()"], runs_as=RunsAs(
        source=source, steps=WALK, walk=" -> ".join(s.text for s in WALK)))
    resume = CompileRecord(compile_id="1/0", frame="torch_dynamo_resume_in_f_at_5",
                           runs_as=RunsAs(steps=[WALK[0]], walk=WALK[0].text, dis=DIS,
                                          problem=PROBLEM))
    unheard = CompileRecord(compile_id="2/0", frame="g")  # runs_as None: no piece
    failed = CompileRecord(compile_id="3/0", frame="h", status="failed",
                           runs_as=RunsAs(problem=NO_NEW_CODE))
    return TargetRecord(id="t1", name="f", kind="function", status="compiled",
                        compiles=[top, resume, unheard, failed])


def test_the_static_report_shows_what_torch_runs_per_compile():
    page = report_bundle(_record())["text/html"]
    assert page.count("runs as: compile") == 3
    assert "runs as: compile 0/0 (f) &middot; Python (depyf)" in page
    assert ("runs as: compile 1/0 (torch_dynamo_resume_in_f_at_5) &middot; bytecode (dis)"
            in page)
    assert "runs as: compile 2/0" not in page
    # a failed compile: no code, the record's sentence why
    failed = page[page.index("runs as: compile 3/0 (h) &middot; no code"):]
    assert failed.startswith(f"runs as: compile 3/0 (h) &middot; no code</summary>"
                             f"<p>{html.escape(NO_NEW_CODE)}</p></details>"), failed[:300]
    # every step in the record's words, in order, escaped
    steps = [page.index(f"<li>{html.escape(s.text)}</li>") for s in WALK]
    assert steps == sorted(steps)
    assert html.escape(SOURCE) in page and html.escape(DIS) in page
    assert html.escape(PROBLEM) in page
    assert "print('<debug>')" not in page  # user text never raw HTML


def test_a_huge_transformed_code_is_capped_with_where_the_rest_is():
    source = "x = 1\n" * (GRAPH_CAP // 3)
    page = report_html(_record(source))
    assert html.escape(source) not in page
    assert "truncated by nbcompile" in page and "nbcompile.report(f) has the full text" in page


def test_the_runs_as_view_is_counted_when_the_budget_leaves_it_out():
    record = _record()
    whole = report_html(record)
    assert "runs as: compile 0/0" in whole
    tight = report_html(record, len(report_html(record, 0).encode()))
    assert "runs as: compile" not in tight
    assert "3 more runs_as" in tight and "nbcompile.report(f).compiles[i].runs_as" in tight
    assert MIME_TYPE in report_bundle(record)
