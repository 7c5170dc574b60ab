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
