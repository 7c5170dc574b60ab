"""Saved notebooks stay small: each published output fits the output
budget, with marks saying what was cut and how to get it in the kernel; the record
published twice in one output is gone; the published records still validate."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest

import nbcompile
from nbcompile.core.records import MIME_TYPE
from nbcompile.display.budget import DEFAULT_OUTPUT_BUDGET, json_size
from tests.support.schema import SCHEMA


@pytest.mark.slow
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


def _fit_measuring_each_cut(data: dict, budget: int) -> dict:
    """``fit_record`` as it was: the whole record re-measured after every cut (the
    reference its kept size must match)."""
    from nbcompile.display.budget import (
        TRIM_ORDER,
        _cap_output_code,
        _lists,
        _mark,
        how_to_get,
    )

    name, omitted = data.get("name", "obj"), {}
    data.setdefault("omitted", [])
    for path, attr in TRIM_ORDER:
        while json_size(data) > budget:
            lists = [lst for lst in _lists(data, path) if lst]
            if not lists:
                break
            for lst in lists:
                keep = len(lst) // 2
                omitted[attr] = omitted.get(attr, 0) + len(lst) - keep
                del lst[keep:]
            _mark(data, path, how_to_get(name, attr), omitted[attr])
        if path == "code_diffs" and json_size(data) > budget:
            _cap_output_code(data, budget // 4, name)
    if json_size(data) > budget:
        _cap_output_code(data, 0, name)
    kept = len(data.get("kernels", []))
    for line in data.get("annotations", []):
        line["kernel_refs"] = [i for i in line.get("kernel_refs", []) if i < kept]
    data["truncated"] = data.get("truncated", False) or bool(data["omitted"])
    return data


def test_fit_record_cuts_as_if_it_measured_after_each_cut():
    """``fit_record`` keeps the record's size by what each cut removes instead of
    re-measuring: every budget gives the same record as re-measuring (multi-byte text,
    nested lists, a list cut to nothing, a generated module capped), and within it."""
    import copy

    base = {
        "name": "storm", "omitted": [], "truncated": False,
        "output_code": "é€𝄞 code\n" * 300,
        "torch_logs": [{"message": "ünïcode " * (i % 5)} for i in range(3)],
        "compiles": [{"id": f"0/{i}", "graphs": ["g€" * (i % 40), "h"] if i % 3 else [],
                      "reason": "x" * (i % 7)} for i in range(40)],
        "code_diffs": [{"diff": "d" * 50}] * 5,
        "kernels": [{"source": "k" * (i % 9)} for i in range(30)],
        "annotations": [{"kernels": [1, 2], "kernel_refs": list(range(i % 30))}
                        for i in range(12)],
        "recompiles": [{"reason": "guard failed " * (i % 3)} for i in range(39)],
        "graph_breaks": [{"reason": "r" * i} for i in range(9)],
    }
    from nbcompile.display.budget import fit_record

    full = json_size(base)
    for budget in [0, 100, 1000, 2000, *range(3000, full + 200, 97)]:
        kept = fit_record(copy.deepcopy(base), budget)
        assert kept == _fit_measuring_each_cut(copy.deepcopy(base), budget), budget
        assert json_size(kept) <= max(budget, json_size(fit_record(copy.deepcopy(base), 0)))


def test_published_record_drops_the_compiles_code_without_converting_it():
    """A published record's compiles carry no code, kernels, Inductor graphs or Chrome
    events (the target carries its code and kernels once): the same record as one whose
    compiles never had them."""
    import dataclasses

    from nbcompile.core.records import CompileRecord, Kernel, TargetRecord
    from nbcompile.display.payload import published_record

    kernel = Kernel(name="cpp_fused_sin_0", language="cpp", source="void k() {}")
    heavy = [CompileRecord(compile_id=f"0/{i}", frame="f", output_code="def call(): ...",
                           kernels=[kernel], post_grad_graphs=["graph()"],
                           graphs=["fx graph"], guards="G",
                           chromium_events=[{"name": "e", "ph": "B", "args": {"a": i}}])
             for i in range(3)]
    record = TargetRecord(id="t1", name="f", kind="function", status="compiled",
                          compiles=heavy, kernels=[kernel], output_code="def call(): ...")
    light = dataclasses.replace(record, compiles=[
        dataclasses.replace(c, output_code="", kernels=[], post_grad_graphs=[],
                            chromium_events=[]) for c in heavy])
    data = published_record(record)
    assert data == published_record(light)
    assert all("chromium_events" not in c and not c["kernels"] and not c["output_code"]
               and not c["post_grad_graphs"] and c["graphs"] == ["fx graph"]
               for c in data["compiles"])
    assert data["kernels"][0]["source"] == "void k() {}"
    assert data["output_code"] == "def call(): ..."
    assert heavy[0].chromium_events and heavy[0].kernels  # the kernel's record is unchanged


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


@pytest.mark.slow
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


@pytest.mark.slow
def test_a_profile_with_150k_kernels_is_within_the_budget(small_or_default):
    from nbcompile.api import Profile
    from nbcompile.core.perf.profile.record import KernelTime, LineTime

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


@pytest.mark.slow
def test_40k_suggestions_are_within_the_budget(small_or_default):
    from nbcompile.api import Suggestions
    from nbcompile.core.fixes.record import Measured, Problem, Suggestion

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


@pytest.mark.slow
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


def test_the_timing_chart_draws_its_first_rows_and_says_so():
    """A comparison of thousands of rows charts its first ``CHART_ROWS`` (the same
    picture as a comparison of exactly that many), with a title that says so."""
    import io

    from matplotlib.image import imread

    from nbcompile.api import Comparison
    from nbcompile.core.perf.comparison import TimingRow
    from nbcompile.display.timing import CHART_ROWS, timing_chart_png

    def chart(n: int) -> tuple[int, ...]:
        rows = [TimingRow(mode="eager", kind="eager", median_s=1e-3)] + [
            TimingRow(mode=f"m{i}", kind="mode", median_s=1e-3, speedup=1.0)
            for i in range(n)]
        png = timing_chart_png(Comparison(name="f", rows=rows))
        assert png is not None
        return imread(io.BytesIO(png)).shape

    assert chart(3_000)[0] == chart(CHART_ROWS)[0] > chart(2)[0]
