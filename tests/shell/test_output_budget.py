"""Saved notebooks stay small: each published output fits the output
budget, with marks saying what was cut and how to get it in the kernel; the record
published twice in one output is gone; the published records still validate."""

from __future__ import annotations

import jsonschema
import pytest

import nbcompile
from nbcompile.core.records import MIME_TYPE
from nbcompile.display.budget import DEFAULT_OUTPUT_BUDGET, json_size, parse_size
from tests.support.schema import SCHEMA


def test_kernel_keeps_the_full_record_and_budget_is_a_setting(ip):
    from nbcompile.display import budget
    from nbcompile.display.bundle import summary_bundle
    from tests.support.shell import run_cell

    run_cell(ip, "import torch")
    run_cell(ip, "%%compile --no-dynamic\ndef budget_bump(x, k):\n    return x * k + 1\n")
    run_cell(ip, "with torch._dynamo.config.patch(recompile_limit=64):  # put back after\n"
                 "    for k in range(12):\n        budget_bump(torch.ones(3), k)")
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
    """What the Compile inspector asks for a cut record: the comm target's answer is the
    whole record; ``whole_record`` also works as a user expression."""
    from nbcompile.display import budget
    from nbcompile.display.bundle import summary_bundle
    from nbcompile.magics import inspector_comm
    from tests.support.shell import run_cell

    run_cell(ip, "import torch")
    run_cell(ip, "%%compile --no-dynamic\ndef whole_bump(x, k):\n    return x * k + 2\n")
    run_cell(ip, "with torch._dynamo.config.patch(recompile_limit=64):  # put back after\n"
                 "    for k in range(12):\n        whole_bump(torch.ones(3), k)")
    target_id = nbcompile.report(ip.user_ns["whole_bump"]).id
    try:
        budget.set_output_budget(16 * 1024)
        published = summary_bundle([nbcompile.report(ip.user_ns["whole_bump"])])[MIME_TYPE]
        assert published["targets"][0]["omitted"], "the published record must be cut"
        expr = ('__import__("nbcompile.display.inspector", fromlist=["_"])'
                f'.whole_record("{target_id}")')
        answer = ip.user_expressions({"nbcompile": expr, "gone": expr.replace(target_id, "t0x")})
        over_comm = inspector_comm.answer(target_id)["data"][MIME_TYPE]
        assert inspector_comm.answer("t0x") == {"data": {}}
        assert inspector_comm.answer('t1")') == {"data": {}}
    finally:
        budget.set_output_budget(DEFAULT_OUTPUT_BUDGET)
    assert answer["nbcompile"]["status"] == "ok", answer["nbcompile"]
    whole = answer["nbcompile"]["data"][MIME_TYPE]
    target = whole["targets"][0]
    assert target["id"] == target_id and len(target["compiles"]) == 12
    assert target["omitted"] == [] and target["recompile_count"] == 11
    jsonschema.validate(whole, SCHEMA)
    assert over_comm["targets"][0]["compiles"] == target["compiles"]
    # an id this kernel does not know (a saved output of an earlier kernel): nothing
    assert MIME_TYPE not in answer["gone"].get("data", {}), answer["gone"]


def test_report_html_keeps_its_budget_mark_included(ip):
    """The 'Not shown' mark is counted before details are chosen: the HTML is within
    any budget that holds the summary and the mark."""
    from nbcompile.display.report_html import report_html
    from tests.support.shell import run_cell

    run_cell(ip, "import torch")
    run_cell(ip, "%%compile --no-dynamic\ndef html_bump(x, k):\n    return (x * k).sin() + 3\n")
    run_cell(ip, "for k in range(4):\n    html_bump(torch.ones(3), k)")
    record = nbcompile.report(ip.user_ns["html_bump"])
    whole, least = len(report_html(record).encode()), len(report_html(record, 0).encode())
    over = [(b, size - b) for b in range(least + 200, whole, max((whole - least) // 150, 1))
            if (size := len(report_html(record, b).encode())) > b]
    assert not over, over[:5]
