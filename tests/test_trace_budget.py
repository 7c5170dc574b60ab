"""A displayed trace stays within the output budget, however big the job's logs: every
compile's index first, contents (breaks, guards, graphs, code) while they fit, failed
and divergent compiles first; what is left out is marked with the expression that has it.
Real logs recorded by torch (tests/fixtures/traces), laid out as a four-rank job."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

import nbcompile
from nbcompile.display.budget import json_size
from nbcompile.display.trace import published_trace, trace_bundle
from nbcompile.schema.generate import SCHEMA_PATH

TRACES = Path(__file__).parent / "fixtures" / "traces"
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
