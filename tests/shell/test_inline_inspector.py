"""``nbcompile.inspect(f)`` on a target compiled in the in-process shell: the widget holds
the record as published (cut to a small output budget, the saved state stays within it),
and its channel answers a request for the whole record with every compile, as the
sidebar's comm does; a report's result is inspected as it displays."""

from __future__ import annotations

import jsonschema

import nbcompile
from nbcompile.core.records import MIME_TYPE
from nbcompile.display.budget import DEFAULT_OUTPUT_BUDGET, json_size, set_output_budget
from tests.support.schema import SCHEMA
from tests.support.shell import run_cell


def test_inspect_holds_the_cut_record_and_sends_the_whole_one(ip):
    run_cell(ip, "import torch")
    run_cell(ip, "%%compile --no-dynamic\ndef widget_bump(x, k):\n    return x * k + 2\n")
    run_cell(ip, "with torch._dynamo.config.patch(recompile_limit=64):  # put back after\n"
                 "    for k in range(12):\n        widget_bump(torch.ones(3), k)")
    try:
        set_output_budget("16K")
        widget = nbcompile.inspect(ip.user_ns["widget_bump"])
        state = widget.get_state()["record"]
        assert json_size(state) <= 16 * 1024
        published = state["targets"][0]
        assert published["omitted"] and len(published["compiles"]) < 12
        # What the widget sends when its front end asks {"type": "whole"}.
        sent = widget.whole_messages()
    finally:
        set_output_budget(DEFAULT_OUTPUT_BUDGET)
    assert len(sent) == 1, sent
    whole = sent[0]["data"][MIME_TYPE]
    jsonschema.validate(whole, SCHEMA)
    target = whole["targets"][0]
    assert target["id"] == published["id"] and len(target["compiles"]) == 12
    assert target["omitted"] == []
    assert widget.record == state  # the whole record never enters the saved state
    data = widget.fallback_bundle()
    assert "widget_bump" in data["text/html"] and "widget_bump" in data["text/plain"]

    # A report's result: the record it displays.
    report = nbcompile.report(ip.user_ns["widget_bump"])
    assert nbcompile.inspect(report).record["targets"][0]["id"] == target["id"]


def test_compile_inspect_shows_the_summary_in_the_inline_inspector_as_it_compiles(ip, capsys):
    from ipywidgets.widgets.widget import _instances

    from nbcompile.display.inline_inspector import Inspector

    before = set(_instances)
    run_cell(ip, "%%compile --inspect --backend eager\nimport torch\n"
                 "def inspected(x):\n    return torch.cos(x) + 1\n")
    shown = [w for k, w in _instances.items() if k not in before and isinstance(w, Inspector)]
    assert len(shown) == 1
    widget = shown[0]
    assert [t["name"] for t in widget.record["targets"]] == ["inspected"]
    assert widget.record["targets"][0]["status"] == "pending"
    # Where no widget runs, the output is the summary itself (this shell prints text/plain).
    assert "inspected (function)" in capsys.readouterr().out
    run_cell(ip, "inspected(torch.ones(3))")
    assert widget.record["targets"][0]["status"] == "compiled"
    data = widget._repr_mimebundle_()[0]  # type: ignore[index]
    assert "application/vnd.jupyter.widget-view+json" in data and MIME_TYPE not in data
    # The static output carries the record: the sidebar reads the cell's record there.
    assert widget.fallback_bundle()[MIME_TYPE] == widget.record
    assert "inspected" in widget.fallback_bundle()["text/html"]
    # The settled summary was published again (its fallbacks and record up to date).
    assert "compiled" in capsys.readouterr().out.rsplit("inspected (function)", 1)[-1]
    # What a reconnecting sidebar is told: each target the kernel holds, with its cell.
    from nbcompile.magics.inspector_comm import answer_held

    held = [r["data"][MIME_TYPE] for r in answer_held()]
    mine = [p for p in held if p["targets"][0]["name"] == "inspected"]
    assert len(mine) == 1 and mine[0]["targets"][0]["status"] == "compiled"
    assert all(len(p["targets"]) == 1 for p in held)


def test_config_inspect_on_shows_every_summary_in_the_inline_inspector(ip, capsys):
    import pytest
    from ipywidgets.widgets.widget import _instances

    from nbcompile.display import live
    from nbcompile.display.inline_inspector import Inspector

    def inspectors_made_by(source: str) -> int:
        before = set(_instances)
        run_cell(ip, source)
        return sum(isinstance(w, Inspector) for k, w in _instances.items() if k not in before)

    try:
        run_cell(ip, "%nbcompile config --inspect on")
        assert "shown by the inspector in the cell: on" in capsys.readouterr().out
        assert inspectors_made_by("%%compile\ndef every_a(x):\n    return x + 1\n") == 1
        with pytest.raises(Exception, match="invalid choice: 'maybe'"):
            run_cell(ip, "%nbcompile config --inspect maybe")
        assert live.inspect_every_cell()  # bad input changes nothing
        with pytest.raises(Exception, match="--inspect belongs to %nbcompile config"):
            run_cell(ip, "%nbcompile cache --inspect on")
        run_cell(ip, "%nbcompile config --inspect OFF")
        assert "in the cell: off (%%compile --inspect per cell)" in capsys.readouterr().out
        assert inspectors_made_by("%%compile\ndef every_b(x):\n    return x + 2\n") == 0
    finally:
        live.set_inspect_every_cell(False)


def test_inspect_is_a_snapshot_of_its_cell_refreshed_on_request(ip):
    run_cell(ip, "import torch, nbcompile")
    run_cell(ip, "%%compile --backend eager\ndef snap(x):\n    return x.sin() + 1\n")
    run_cell(ip, "snap(torch.ones(3))")
    ip.run_cell("inspected = nbcompile.inspect(snap)", store_history=True).raise_error()
    widget = ip.user_ns["inspected"]
    taken = ip.execution_count - 1  # the cell that ran inspect()
    assert f"as of cell [{taken}]" in widget.snapshot
    # A recompile, in a later cell.
    ip.run_cell("snap(torch.ones(3, dtype=torch.float64))", store_history=True).raise_error()
    assert widget.record["targets"][0]["recompile_count"] == 0
    # What the widget does when its front end asks {"type": "refresh"}.
    widget._on_message(widget, {"type": "refresh"}, [])
    assert widget.record["targets"][0]["recompile_count"] == 1
    assert f"as of cell [{ip.execution_count - 1}]" in widget.snapshot
    # A report's result is a snapshot too.
    assert nbcompile.inspect(nbcompile.report(ip.user_ns["snap"])).snapshot


def test_a_saved_inspector_finds_its_targets_again_by_cell_and_name(ip):
    """What a saved inspector's button is answered (the comm's ``again`` request): the
    target of that name from that cell as this kernel holds it now (a re-run cell's
    latest), whole, then the kernel's sentence; a target it does not hold: the sentence
    alone."""
    from nbcompile.display.inspector import HELD_NOW, NOT_HELD
    from nbcompile.magics.inspector_comm import answer_again

    run_cell(ip, "import torch")
    assert answer_again([{"name": "again_b", "cell_id": None}]) == [
        {"data": {}, "text": NOT_HELD}]
    for _ in range(2):  # a re-run cell: its new target is the one found
        run_cell(ip, "%%compile --backend eager\ndef again_b(x):\n    return x.cos() + 1\n")
    run_cell(ip, "again_b(torch.ones(3))")
    latest = nbcompile.report(ip.user_ns["again_b"])
    replies = answer_again([{"name": "again_b", "cell_id": latest.cell.cell_id}])
    assert [r.get("text") for r in replies] == [None, HELD_NOW]
    found = replies[0]["data"][MIME_TYPE]
    jsonschema.validate(found, SCHEMA)
    assert [(t["id"], t["status"]) for t in found["targets"]] == [(latest.id, "compiled")]
    # Another cell's target of that name, and requests that name nothing: not held.
    for wanted in ([{"name": "again_b", "cell_id": "another-cell"}], [{"name": 3}], "x",
                   [{"name": "", "cell_id": None}]):
        assert answer_again(wanted) == [{"data": {}, "text": NOT_HELD}], wanted
    # Two targets asked, one held: both counted in the sentence.
    replies = answer_again([{"name": "again_b", "cell_id": None},
                            {"name": "never_compiled", "cell_id": None}])
    assert len(replies) == 2 and "holds 1 of the 2 targets" in replies[1]["text"]
