"""Saved notebooks stay small (issue 15, part 2): each published output fits the output
budget, with marks saying what was cut and how to get it in the kernel; the record
published twice in one output is gone; the published records still validate."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest

import nbcompile
from benchmarks.notebook_size import GPT2_CELLS, ONE_LINE_CELLS, notebook, run, saved_size
from nbcompile.core.records import MIME_TYPE
from nbcompile.display.budget import DEFAULT_OUTPUT_BUDGET, json_size, parse_size

from .test_magic_inprocess import SCHEMA

#: nbformat adds some bytes around each output's data (keys, indentation, line splits).
OUTPUT_SLACK = 8 * 1024


def _outputs(nb):
    return [o for cell in nb.cells for o in cell.get("outputs", [])]


def _records(nb):
    return [o["data"][MIME_TYPE] for o in _outputs(nb) if MIME_TYPE in o.get("data", {})]


@pytest.fixture(scope="module")
def gpt2_nb():
    return run(notebook(GPT2_CELLS))


@pytest.fixture(scope="module")
def one_line_nb():
    return run(notebook(ONE_LINE_CELLS))


def test_gpt2_with_12_compiles_saves_under_1mb(gpt2_nb):
    records = _records(gpt2_nb)
    assert len(records) == 2  # the live summary and the displayed report
    assert all(r["targets"][0]["recompile_count"] >= 10 for r in records)
    assert saved_size(gpt2_nb) < 1_000_000


def test_each_output_of_30_recompiles_is_within_the_budget(one_line_nb):
    outputs = [o for o in _outputs(one_line_nb) if MIME_TYPE in o.get("data", {})]
    assert len(outputs) == 2
    for output in outputs:
        assert output["data"][MIME_TYPE]["targets"][0]["recompile_count"] == 29
        assert len(json.dumps(output).encode()) <= DEFAULT_OUTPUT_BUDGET + OUTPUT_SLACK


def test_marks_say_how_many_were_cut_and_how_to_get_them(one_line_nb, gpt2_nb):
    report = _records(one_line_nb)[-1]["targets"][0]
    marks = {m["field"]: m for m in report["omitted"]}
    assert marks, "a 30-recompile report over the budget must say what it left out"
    assert report["truncated"] is True
    for mark in marks.values():
        assert mark["count"] > 0
        assert mark["how"].startswith("nbcompile.report(bump).")
    if "compiles" in marks:  # the counts add up: published + cut = what the kernel has
        assert len(report["compiles"]) + marks["compiles"]["count"] == 30
    # the summary's text lists ten recompiles and says where the rest are
    texts = [o["data"]["text/plain"] for o in _outputs(one_line_nb)
             if MIME_TYPE in o.get("data", {})]
    assert all("19 more recompiles" in t and "nbcompile.report(bump).recompiles" in t
               for t in texts)
    gpt_report = _records(gpt2_nb)[-1]["targets"][0]
    assert any(m["how"].startswith("nbcompile.report(gpt).") for m in gpt_report["omitted"])


def test_report_html_is_a_summary_not_a_second_copy(gpt2_nb):
    report_output = [o for o in _outputs(gpt2_nb) if MIME_TYPE in o.get("data", {})][-1]
    html = report_output["data"]["text/html"]
    assert len(html.encode()) <= DEFAULT_OUTPUT_BUDGET // 4
    assert re.search(r"more kernels &mdash; in the kernel: <code>nbcompile\.report\(gpt\)"
                     r"\.kernels</code>", html)


def test_published_records_validate_against_the_schema(gpt2_nb, one_line_nb):
    for record in _records(gpt2_nb) + _records(one_line_nb):
        jsonschema.validate(record, SCHEMA)


def test_kernel_keeps_the_full_record_and_budget_is_a_setting(ip):
    from nbcompile.display import budget
    from nbcompile.display.bundle import summary_bundle

    from .conftest import run_cell

    run_cell(ip, "import torch\ntorch._dynamo.config.recompile_limit = 64")
    run_cell(ip, "%%compile --no-dynamic\ndef budget_bump(x, k):\n    return x * k + 1\n")
    run_cell(ip, "for k in range(12):\n    budget_bump(torch.ones(3), k)")
    full = nbcompile.report(ip.user_ns["budget_bump"])
    assert len(full.compiles) == 12  # the kernel's record is whole
    try:
        run_cell(ip, "%nbcompile config --output-budget 16K")
        assert budget.output_budget() == 16 * 1024
        bundle = summary_bundle([full])
        assert json_size(bundle) <= 16 * 1024 + 1024
        published = bundle[MIME_TYPE]["targets"][0]
        assert len(published["compiles"]) < 12 and published["omitted"]
        assert len(full.compiles) == 12  # publishing cut a copy, not the kernel's data
        with pytest.raises(Exception, match=r"--output-budget.*'12Q'.*K or M"):
            run_cell(ip, "%nbcompile config --output-budget 12Q")
        assert budget.output_budget() == 16 * 1024  # bad input changes nothing
    finally:
        budget.set_output_budget(DEFAULT_OUTPUT_BUDGET)
    assert parse_size("1M") == 1024 * 1024 and parse_size("512K") == 512 * 1024


def test_inspector_gets_the_whole_record_from_the_live_kernel(ip):
    """What the Compile inspector sends for a cut record: a user expression (IPython's own
    ``user_expressions``, as the kernel runs it) whose MIME bundle is the whole record."""
    from nbcompile.display import budget
    from nbcompile.display.bundle import summary_bundle

    from .conftest import run_cell

    run_cell(ip, "import torch\ntorch._dynamo.config.recompile_limit = 64")
    run_cell(ip, "%%compile --no-dynamic\ndef whole_bump(x, k):\n    return x * k + 2\n")
    run_cell(ip, "for k in range(12):\n    whole_bump(torch.ones(3), k)")
    target_id = nbcompile.report(ip.user_ns["whole_bump"]).id
    try:
        budget.set_output_budget(16 * 1024)
        published = summary_bundle([nbcompile.report(ip.user_ns["whole_bump"])])[MIME_TYPE]
        assert published["targets"][0]["omitted"], "the published record must be cut"
        expr = ('__import__("nbcompile.display.inspector", fromlist=["_"])'
                f'.whole_record("{target_id}")')
        answer = ip.user_expressions({"nbcompile": expr, "gone": expr.replace(target_id, "t0x")})
    finally:
        budget.set_output_budget(DEFAULT_OUTPUT_BUDGET)
    assert answer["nbcompile"]["status"] == "ok", answer["nbcompile"]
    whole = answer["nbcompile"]["data"][MIME_TYPE]
    target = whole["targets"][0]
    assert target["id"] == target_id and len(target["compiles"]) == 12
    assert target["omitted"] == [] and target["recompile_count"] == 11
    jsonschema.validate(whole, SCHEMA)
    # an id this kernel does not know (a saved output of an earlier kernel): nothing
    assert MIME_TYPE not in answer["gone"].get("data", {}), answer["gone"]


def test_a_cut_record_fits_its_budget_marks_included():
    """The marks a cut adds count against the budget too: a record cut to any budget
    above its floor (every list emptied) is within it. (A mark appended after the last
    measure once left a saved output 14 bytes over.)"""
    import copy

    from nbcompile.display.budget import fit_record

    base = {
        "name": "storm", "omitted": [], "truncated": False, "output_code": "",
        "compiles": [{"id": f"0/{i}", "graphs": [{"code": "g" * (i % 40)}] * 2,
                      "reason": "x" * (i % 7)} for i in range(120)],
        "recompiles": [{"reason": "guard failed " * (i % 3)} for i in range(119)],
        "graph_breaks": [{"reason": "r" * i} for i in range(9)],
    }
    floor, full = json_size(fit_record(copy.deepcopy(base), 0)), json_size(base)
    over = [(b, json_size(cut) - b) for b in range(floor, full, 7)
            if json_size(cut := fit_record(copy.deepcopy(base), b)) > b]
    assert not over, over[:5]


def test_report_html_keeps_its_budget_mark_included(ip):
    """The 'Not shown' mark is counted before details are chosen: the HTML is within
    any budget that holds the summary and the mark."""
    from nbcompile.display.report_html import report_html

    from .conftest import run_cell

    run_cell(ip, "import torch\ntorch._dynamo.config.recompile_limit = 64")
    run_cell(ip, "%%compile --no-dynamic\ndef html_bump(x, k):\n    return (x * k).sin() + 3\n")
    run_cell(ip, "for k in range(4):\n    html_bump(torch.ones(3), k)")
    record = nbcompile.report(ip.user_ns["html_bump"])
    whole, least = len(report_html(record).encode()), len(report_html(record, 0).encode())
    over = [(b, size - b) for b in range(least + 200, whole, max((whole - least) // 150, 1))
            if (size := len(report_html(record, b).encode())) > b]
    assert not over, over[:5]


# --- every record kind's bundle within the budget, huge inputs (issue 21, part 6) --------
# The rule (display/budget.py): the whole MIME bundle within the output budget; each
# fallback (text/html, text/plain, a chart) at most a quarter; the JSON record takes what
# the fallbacks leave. Long lists are ranked, capped and end with what was left out.
# Records built directly, as the code builds them (no torch compile needed for the shapes).

@pytest.fixture(params=[DEFAULT_OUTPUT_BUDGET, 32 * 1024], ids=["256K", "32K"])
def small_or_default(request):
    from nbcompile.display.budget import set_output_budget

    set_output_budget(request.param)
    yield request.param
    set_output_budget(DEFAULT_OUTPUT_BUDGET)


def _within(bundle: dict, budget: int) -> dict:
    from nbcompile.display.budget import entry_size, fallback_budget

    sizes = {mime: entry_size(value) for mime, value in bundle.items()}
    assert sum(sizes.values()) <= budget, sizes
    assert all(size <= fallback_budget() for mime, size in sizes.items() if mime != MIME_TYPE), \
        sizes
    assert "<script" not in bundle["text/html"]
    return sizes


def _storm(breaks: int = 50_000) -> nbcompile.CompileReport:
    from nbcompile.api import CompileReport
    from nbcompile.core.records import CompileRecord, GraphBreak, LineAnnotation

    gbs = [GraphBreak(reason=f"Unsupported call <b>{i}</b>: torch.nonzero", filename="<cell>",
                      lineno=i + 2, line=f"y = torch.nonzero(x{i})", compile_id="0/0",
                      doc_url="https://docs.pytorch.org/docs/stable/compile/gb0059.html")
           for i in range(breaks)]
    compile_ = CompileRecord(compile_id="0/0", frame="storm", graph_breaks=gbs)
    lines = [LineAnnotation(filename="<cell>", lineno=i + 2, line=f"y = torch.nonzero(x{i})",
                            category="graph_break", reason=gb.reason)
             for i, gb in enumerate(gbs)]
    return CompileReport(id="t1", name="storm", kind="function", status="compiled",
                         compiles=[compile_], graph_count=breaks + 1, graph_breaks=gbs,
                         annotations=lines)


def test_a_report_with_50k_breaks_is_within_the_budget(small_or_default):
    from nbcompile.display.bundle import summary_bundle

    storm = _storm()
    annotated = summary_bundle([storm], annotate=True)
    for bundle in (storm._repr_mimebundle_(), annotated):
        _within(bundle, small_or_default)
        jsonschema.validate(bundle[MIME_TYPE], SCHEMA)
        text, html = bundle["text/plain"], bundle["text/html"]
        assert re.search(r"\.\.\. and [\d,]+ more (graph breaks|source lines); the full list: "
                         r"nbcompile\.report\(storm\)\.(graph_breaks|annotate\(\)\.lines)", text)
        assert "&lt;b&gt;" in html and "<b>0</b>" not in html
    text = annotated["text/plain"].split("annotated source of")[0]
    shown = text.count("  graph break")
    (more,) = re.findall(r"\.\.\. and ([\d,]+) more graph breaks", text)
    assert shown + int(more.replace(",", "")) == 50_000
    assert len(storm.graph_breaks) == 50_000  # the kernel's record stays whole


def test_a_profile_with_150k_kernels_is_within_the_budget(small_or_default):
    from nbcompile.api import Profile
    from nbcompile.core.perf.profile import KernelTime, LineTime

    kernels = [KernelTime(name=f"cpp_fused_<i>{i}</i>", kind="kernel", calls=5,
                          total_s=1.0 / (i + 1), mean_s=0.2 / (i + 1), lines=[i % 400 + 1])
               for i in range(150_000)]  # slowest first, as profile() orders them
    lines = [LineTime(lineno=n, line=f"    y = torch.sin(y) * {n}", compiled_s=n * 1e-6,
                      eager_s=n * 2e-6, kernels=[f"cpp_fused_<i>{n}</i>"])
             for n in range(1, 2001)]
    p = Profile(name="deep", repeat=5, kernels=kernels, lines=lines, filename="<cell>",
                wall_s=1e-3, kernel_s=1e-3, eager_wall_s=2e-3)
    bundle = p._repr_mimebundle_()
    _within(bundle, small_or_default)
    jsonschema.validate(json.loads(json.dumps(bundle[MIME_TYPE])), SCHEMA)
    text, html = bundle["text/plain"], bundle["text/html"]
    assert "cpp_fused_<i>0</i>" in text  # the slowest kernel first
    assert "cpp_fused_&lt;i&gt;0&lt;/i&gt;" in html and "<i>0</i>" not in html
    for view in (text, html):
        assert re.search(r"\d+ more kernels left out of this output \(output budget\): "
                         r"p\.kernels", view)
    assert "2000  " in text.split("line ")[1].splitlines()[1]  # the hottest line first
    marks = {m["field"]: m["count"] for m in bundle[MIME_TYPE]["omitted"]}
    assert marks["kernels"] + len(bundle[MIME_TYPE]["kernels"]) == 150_000


def test_40k_suggestions_are_within_the_budget(small_or_default):
    from nbcompile.api import Suggestions
    from nbcompile.core.fixes.suggest import Measured, Problem, Suggestion

    items = [Suggestion(problem=Problem(kind="graph_break", reason=f"call <{i}>", lineno=3,
                                        line="print(x)"),
                        kind="rewrite", change=f"# remove print <{i}>", status="not tried",
                        note="not tried: out of time")
             for i in range(40_000)]
    s = Suggestions(name="f", baseline=Measured(graphs=2, breaks=1), items=items)
    bundle = s._repr_mimebundle_()
    _within(bundle, small_or_default)
    jsonschema.validate(bundle[MIME_TYPE], SCHEMA)
    for view in (bundle["text/plain"], bundle["text/html"]):
        assert re.search(r"\.\.\. and [\d,]+ more suggestions; the full list: s\.items", view)
    assert "# remove print &lt;0&gt;" in bundle["text/html"]
    assert len(bundle[MIME_TYPE]["items"]) < 40_000 and len(s.items) == 40_000


def test_a_diagnosis_and_a_comparison_with_long_lists_are_within_the_budget(
        small_or_default):
    from nbcompile.api import Comparison, Diagnosis
    from nbcompile.core.diagnosis.record import Rung
    from nbcompile.core.perf.comparison import TimingRow

    d = Diagnosis(name="f", kind="crash", summary="crashes <here>", error_detail="x" * 10**6,
                  rungs=[Rung(backend="inductor", layer="inductor", outcome="crash",
                              error="RuntimeError: " + "e" * 3000)] * 50,
                  notes=[f"note <{i}>" for i in range(20_000)],
                  skipped=[f"skipped {i}" for i in range(20_000)])
    c = Comparison(name="f", rows=[TimingRow(mode="eager", kind="eager", median_s=1e-3)]
                   + [TimingRow(mode=f"m{i}", kind="mode", median_s=1e-3, speedup=1.0,
                                notes=["n" * 400] * 3) for i in range(3_000)],
                   notes=[f"note {i}" for i in range(50)])
    for record in (d, c):
        bundle = record._repr_mimebundle_()
        _within(bundle, small_or_default)
        jsonschema.validate(json.loads(json.dumps(bundle[MIME_TYPE])), SCHEMA)
        assert re.search(r"\.\.\. and [\d,]+ more notes; the full list: ",
                         bundle["text/plain"])
    assert "crashes &lt;here&gt;" in d._repr_mimebundle_()["text/html"]
