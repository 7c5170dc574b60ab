"""A displayed trace stays within the output budget, however big the job's logs: every
compile's index first, contents (breaks, guards, graphs, code) while they fit, failed
and divergent compiles first; what is left out is marked with the expression that has it.
Real logs recorded by torch (tests/fixtures/traces), laid out as a four-rank job."""

from __future__ import annotations

import json
import re
import shutil

import jsonschema
import pytest

import nbcompile
from nbcompile.core.records import MIME_TYPE
from nbcompile.display.budget import (
    DEFAULT_OUTPUT_BUDGET,
    entry_size,
    fallback_budget,
    json_size,
    set_output_budget,
)
from nbcompile.display.trace import GRID_COLUMNS, published_trace, trace_bundle, trace_text
from nbcompile.schema.generate import SCHEMA_PATH
from tests.support import ROOT

TRACES = ROOT / "tests" / "fixtures" / "traces"
SCHEMA = json.loads(SCHEMA_PATH.read_text())


@pytest.fixture(scope="module")
def job(tmp_path_factory) -> nbcompile.TraceReport:
    root = tmp_path_factory.mktemp("job")
    for rank, name in enumerate(("recompile", "graph_break", "fullgraph_error", "module")):
        shutil.copy(TRACES / f"{name}.log", root / f"dedicated_log_torch_trace_rank_{rank}_x.log")
    return nbcompile.open_trace(root)


def _valid(record: dict) -> dict:
    jsonschema.validate(json.loads(json.dumps(record)), SCHEMA)
    return record


def test_a_small_trace_is_published_whole(job):
    record = _valid(published_trace(job))
    assert record["omitted"] == []
    assert not any(c.get("contents_omitted") for c in record["compiles"])
    assert len(record["compiles"]) == len(job.compiles) == 7
    assert any(c["graphs"] for c in record["compiles"])


@pytest.mark.slow
def test_contents_fit_the_budget_failed_and_divergent_first(job):
    whole = json_size(published_trace(job, budget=10**9))
    budget = whole // 2
    record = _valid(published_trace(job, budget=budget))
    assert json_size(record) <= budget
    assert len(record["compiles"]) == 7  # the grid keeps every compile
    left_out = [c for c in record["compiles"] if c.get("contents_omitted")]
    assert left_out and all(not c["graphs"] and not c["guards"] for c in left_out)
    failed = next(c for c in record["compiles"] if c["status"] == "failed")
    assert not failed.get("contents_omitted") and failed["fail_reason"]
    (mark,) = record["omitted"]
    assert mark["field"] == "compiles[].contents" and mark["count"] == len(left_out)
    assert "open_trace(path).compile(" in mark["how"]
    assert record["truncated"] is True


def test_a_tiny_budget_cuts_the_compile_list_with_a_mark(job):
    record = _valid(published_trace(job, budget=3000))
    assert 1 <= len(record["compiles"]) < 7
    marks = {m["field"]: m["count"] for m in record["omitted"]}
    assert marks["compiles"] == 7 - len(record["compiles"])


def test_the_fallbacks_detail_what_the_record_publishes(job):
    bundle = trace_bundle(job)
    assert "graph break at" in bundle["text/plain"]
    assert bundle["text/html"].count("<details><summary>[") == 7


def test_every_budget_is_kept_flags_and_marks_included(job):
    """What is added after a choice (``contents_omitted`` flags, the marks) counts too:
    for any budget that holds the first compile's index, the record is within it."""
    whole = json_size(published_trace(job, budget=10**9))
    over = [(b, json_size(r) - b) for b in range(3000, whole, max(whole // 200, 1))
            if json_size(r := published_trace(job, budget=b)) > b]
    assert not over, over[:5]


# --- a huge job: 300 ranks x 100 compiles ---------------------------
# Before: a 137 KB record, but a 2.2 MB text/html and a 1.6 MB text/plain. Now every MIME
# entry of the bundle, together, is within the output budget; the fallbacks rank (failed
# compiles and divergent ones first), cap and say what they left out.
RANKS, COMPILES = 300, 100


@pytest.fixture(scope="module")
def big_job(tmp_path_factory) -> nbcompile.TraceReport:
    from tests.support.trace_logs import break_artifact, break_payload, compile_events, write_log

    root = tmp_path_factory.mktemp("big_job")
    for rank in range(RANKS):
        events = []
        for frame in range(COMPILES):
            failed = ({"fail_type": "RuntimeError", "fail_reason": "boom <b>bold</b>"}
                      if (rank, frame) == (7, 42) else {})
            file = f"/src/prog_{frame % 7}.py"
            events.append(compile_events(frame, name=f"fn_{frame}", file=file, metrics=failed,
                                         extra=[break_artifact(break_payload(
                                             file, 10 + frame, printed="print(x)"), frame)]))
        if rank == 7:  # one rank compiles once more: the ranks diverge
            events.append(compile_events(COMPILES, name="extra", file="/src/extra.py"))
        write_log(root / f"dedicated_log_torch_trace_rank_{rank}_x.log", *events)
    return nbcompile.open_trace(root)


@pytest.fixture(params=[DEFAULT_OUTPUT_BUDGET, 32 * 1024], ids=["256K", "32K"])
def budget(request):
    set_output_budget(request.param)
    yield request.param
    set_output_budget(DEFAULT_OUTPUT_BUDGET)


@pytest.mark.slow
def test_a_huge_trace_fits_the_budget_every_mime_type_together(big_job, budget):
    assert len(big_job.compiles) == RANKS * COMPILES + 1 and big_job.divergences
    bundle = big_job._repr_mimebundle_()
    sizes = {mime: entry_size(value) for mime, value in bundle.items()}
    assert sum(sizes.values()) <= budget, sizes
    assert sizes["text/html"] <= fallback_budget() and sizes["text/plain"] <= fallback_budget()
    record = _valid(bundle[MIME_TYPE])
    assert record["truncated"] is True and record["omitted"]
    text, html = bundle["text/plain"], bundle["text/html"]
    # text: the failed compile first, then the divergent one, the rest counted
    compile_lines = [ln for ln in text.splitlines() if ln.startswith("  [")]
    assert compile_lines[0].startswith("  [42/0] rank 7 fn_42") and "failed" in compile_lines[0]
    assert compile_lines[1].startswith("  [100/0] rank 7 extra")
    (more,) = re.findall(r"\.\.\. and ([\d,]+) more compiles; the full list: "
                         r"nbcompile\.open_trace\(path\)\.compiles / python -m nbcompile open "
                         r"DIR --json FILE", text)
    assert int(more.replace(",", "")) + len(compile_lines) == len(big_job.compiles)
    assert "ranks: 0-299 (300 ranks)" in text
    # html: escaped, the grid capped in ranks and compile ids, each cut said
    assert "<b>bold</b>" not in html and "boom &lt;b&gt;bold&lt;/b&gt;" in html
    assert "<script" not in html and "src='http" not in html
    assert re.search(r"\.\.\. and [\d,]+ more ranks; the full list: ", html)
    (ids,) = re.findall(r"\.\.\. and ([\d,]+) more compile ids", html)
    assert COMPILES + 1 - GRID_COLUMNS <= int(ids) < COMPILES + 1
    assert ">100/0 &#9888;</th>" in html and ">42/0</th>" in html  # divergent, failed
    assert re.search(r"[\d,]+ more compile\(s\) in the grid above", html)
    assert html.count("<tr><th>rank ") < RANKS
    assert "<th>rank 7</th>" in html  # the rank that failed and diverged is in the grid


def test_a_terminal_trace_text_is_whole(job):
    """No budget (``python -m nbcompile open``): every compile, in log order."""
    text = trace_text(job)
    assert "more compiles" not in text
    assert [ln.split("]")[0] for ln in text.splitlines() if ln.startswith("  [")] == [
        f"  [{c.compile_id}" for c in job.compiles]
