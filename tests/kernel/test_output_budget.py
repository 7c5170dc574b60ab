"""Saved notebooks stay small: each published output fits the output
budget, with marks saying what was cut and how to get it in the kernel; the record
published twice in one output is gone; the published records still validate."""

from __future__ import annotations

import copy
import json
import re

import jsonschema
import pytest

from benchmarks.notebook_size import gpt2_cells, notebook, run, saved_size
from nbcompile.core.records import MIME_TYPE
from nbcompile.display.budget import DEFAULT_OUTPUT_BUDGET
from tests.support.schema import SCHEMA

#: nbformat adds some bytes around each output's data (keys, indentation, line splits).
OUTPUT_SLACK = 8 * 1024
#: GPT-2's case (the benchmark compiles it 12 times): 8 compiles make a record of ~1.5 MB,
#: six times the default budget, so every cut is exercised at two thirds of the compiling.
GPT2_COMPILES = 8
GPT2_CELLS = gpt2_cells(GPT2_COMPILES)
#: The one-line function's case: 30 compiles by AOTAutograd (no C++ to build: the
#: kernels' bytes are GPT-2's case) against a small output budget, set in its first cell.
ONE_LINE_BUDGET = 32 * 1024
ONE_LINE_CELLS = [
    f"%nbcompile config --output-budget {ONE_LINE_BUDGET // 1024}K",
    """%%compile --no-dynamic --backend aot_eager
def bump(x, k):
    return x * k + 1
""",
    """for k in range(30):
    bump(torch.ones(4), k)
""",
    "nbcompile.report(bump)",
]


def _outputs(nb):
    return [o for cell in nb.cells for o in cell.get("outputs", [])]


def _records(nb):
    return [o["data"][MIME_TYPE] for o in _outputs(nb) if MIME_TYPE in o.get("data", {})]


@pytest.fixture(scope="module")
def both_nbs():
    """Both cases run in one kernel (the GPT-2 cells at the default budget, then the
    one-line function's, which set a smaller one), each returned as its own notebook: the
    setup cell and its cells."""
    nb = run(notebook(GPT2_CELLS + ONE_LINE_CELLS))
    setup, cells = nb.cells[0], nb.cells[1:]
    split = len(GPT2_CELLS)
    views = []
    for part in (cells[:split], cells[split:]):
        view = copy.deepcopy(nb)
        view.cells = [setup, *part]
        views.append(view)
    return views


@pytest.fixture(scope="module")
def gpt2_nb(both_nbs):
    return both_nbs[0]


@pytest.fixture(scope="module")
def one_line_nb(both_nbs):
    return both_nbs[1]


def test_gpt2_with_8_compiles_saves_under_1mb(gpt2_nb):
    records = _records(gpt2_nb)
    assert len(records) == 2  # the live summary and the displayed report
    assert all(r["targets"][0]["recompile_count"] == GPT2_COMPILES - 1 for r in records)
    assert saved_size(gpt2_nb) < 1_000_000


def test_each_output_of_30_recompiles_is_within_the_budget(one_line_nb):
    outputs = [o for o in _outputs(one_line_nb) if MIME_TYPE in o.get("data", {})]
    assert len(outputs) == 2
    for output in outputs:
        assert output["data"][MIME_TYPE]["targets"][0]["recompile_count"] == 29
        assert len(json.dumps(output).encode()) <= ONE_LINE_BUDGET + OUTPUT_SLACK


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
