"""``nbcompile.inspect``'s widget, without a kernel: its state holds the published record
within the output budget (never its fallbacks, never more); a record that is not one the
inspector shows, or is over the budget, is refused on the Python side too; its display
is the widget's output, then the static fallbacks' under a line saying they stand for it,
with the record and the sentences of the view the extension draws from them (within the
output budget); its module ships inside the package, self-contained."""

from __future__ import annotations

import copy
import html
import json
import re

import pytest
import traitlets

from nbcompile.core.records import MIME_TYPE
from nbcompile.display.budget import DEFAULT_OUTPUT_BUDGET, json_size, set_output_budget
from nbcompile.display.inline_inspector import (
    FALLBACK_CLASS,
    LOADER,
    MODULE,
    NEEDS_WIDGETS,
    NO_ANSWER,
    SAVED_AGAIN,
    SAVED_REPORT,
    SAVED_TEXT,
    WIDGET_TEXT,
    Inspector,
    check_record,
    inspector_for,
)
from nbcompile.display.inspector import AGAIN_LABEL
from tests.support import ROOT

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _summary() -> dict:
    return json.loads((ROOT / "tests" / "fixtures" / "records" / "summary.json").read_text())


def _bundle(record: dict | None = None) -> dict:
    return {MIME_TYPE: record or _summary(), "text/html": "<div>static report</div>",
            "text/plain": "<nbcompile record>"}


def test_the_state_is_the_published_record_and_the_display_keeps_its_fallbacks():
    widget = Inspector(_bundle())
    state = widget.get_state()
    assert state["record"] == _summary()
    assert json_size(state["record"]) <= DEFAULT_OUTPUT_BUDGET
    # The fallbacks are the output's, not the saved widget state's.
    assert "static report" not in json.dumps({k: v for k, v in state.items() if k != "_esm"})
    shown = widget._repr_mimebundle_()
    assert shown is not None
    data = shown[0]
    assert data[WIDGET_VIEW]["model_id"] == widget.model_id
    # The static report is the next output's, under a line saying what it stands for.
    assert "text/html" not in data and data["text/plain"] == WIDGET_TEXT
    fallback = widget.fallback_bundle()
    assert fallback["text/html"].endswith("<div>static report</div></div>")
    assert FALLBACK_CLASS in fallback["text/html"]
    assert html.escape(NEEDS_WIDGETS, quote=True) in fallback["text/html"]
    assert fallback["text/plain"] == "<nbcompile record>"
    assert widget.target_ids() == ["t1", "t2"]


def test_the_static_output_carries_the_record_and_the_sentences_of_its_saved_view():
    """Where the widget's model is gone, the extension draws the inspector from its static
    output: the record is there (the widget's output no longer carries it), and the
    metadata holds what that view says; a report's view has no button."""
    widget = Inspector(_bundle())
    assert MIME_TYPE not in widget.widget_bundle()[0]
    fallback = widget.fallback_bundle()
    assert fallback[MIME_TYPE] == widget.record
    assert json_size(fallback) <= DEFAULT_OUTPUT_BUDGET
    saved = widget.fallback_metadata()[MIME_TYPE]["inspector"]
    assert saved == {"text": f"{SAVED_TEXT} {SAVED_AGAIN}", "again_label": AGAIN_LABEL,
                     "no_answer": NO_ANSWER}
    report = json.loads((ROOT / "tests" / "fixtures" / "records" / "profile.json").read_text())
    view = Inspector(_bundle(report)).fallback_metadata()[MIME_TYPE]["inspector"]
    assert view["again_label"] == "" and view["text"].endswith(SAVED_REPORT)


def test_the_static_output_stays_within_the_output_budget():
    """A bundle filling the budget: the line above the static report is the static
    output's only addition, so its record is cut a little further (marked) to keep the
    whole output within the budget."""
    record = _summary()
    budget = 128 * 1024
    bundle = _bundle(record)
    bundle["text/html"] = "x" * (budget - json_size(bundle) - 10)
    assert json_size(bundle) <= budget
    try:
        set_output_budget(budget)
        fallback = Inspector(bundle).fallback_bundle()
    finally:
        set_output_budget(DEFAULT_OUTPUT_BUDGET)
    assert json_size(fallback) <= budget
    kept = fallback[MIME_TYPE]
    assert kept != record and any(t.get("omitted") for t in kept["targets"])
    assert [t["id"] for t in kept["targets"]] == [t["id"] for t in record["targets"]]


@pytest.mark.parametrize("hostile, why", [
    ([1, 2], "not a record"),
    ({**_summary(), "schema_version": 2}, "schema version 2"),
    ({**_summary(), "record": "<img src=x onerror=alert(1)>"}, "record kind"),
    ({"schema_version": 1}, "record kind 'None'"),
])
def test_a_record_the_inspector_does_not_show_is_refused(hostile, why):
    with pytest.raises(traitlets.TraitError, match=re.escape(why)):
        check_record(hostile)
    widget = Inspector(_bundle())
    with pytest.raises(traitlets.TraitError):
        widget.record = hostile
    assert widget.record == _summary()  # unchanged


def test_a_record_over_the_output_budget_is_refused():
    big = copy.deepcopy(_summary())
    big["targets"][0]["output_code"] = "x" * (DEFAULT_OUTPUT_BUDGET + 1)
    with pytest.raises(traitlets.TraitError, match="over the output budget"):
        inspector_for(_bundle(big))
    try:
        set_output_budget("1M")  # the user's budget is the widget's
        assert inspector_for(_bundle(big)).record is not None
    finally:
        set_output_budget(DEFAULT_OUTPUT_BUDGET)
    with pytest.raises(TypeError, match="no nbcompile record"):
        inspector_for({"text/plain": "x"})


def test_the_module_is_held_once_however_many_inspectors():
    first, second = Inspector(_bundle()), Inspector(_bundle())
    assert first.module is second.module
    code = first.module.get_state()["code"]
    assert code == MODULE.read_text()
    # Each inspector carries the loader and a reference to the module widget, not the code.
    for widget in (first, second):
        state = widget.get_state()
        assert state["module"] == f"IPY_MODEL_{first.module.model_id}"
        assert state["_esm"] == LOADER.read_text()
        assert json_size(state) < json_size(state["record"]) + 4_000
    # Closed (a user's `widget.close_all()`): the next inspector makes a new one.
    first.module.close()
    assert Inspector(_bundle()).module is not first.module


def test_a_whole_record_is_asked_only_for_the_targets_shown():
    record = _summary()
    record["targets"][0]["id"] = "../../etc"  # not an id: never looked up
    record["targets"][1]["id"] = "t987654"  # an id no target of this process has
    widget = Inspector(_bundle(record))
    assert widget.target_ids() == ["t987654"]
    # No kernel session knows it: nothing to answer, nothing sent.
    assert widget.whole_messages() == []


def test_the_module_ships_in_the_package_and_fetches_nothing():
    assert MODULE.is_file() and MODULE.parent.parent == ROOT / "nbcompile" / "display"
    text = MODULE.read_text()
    assert "export" in text and "render" in text
    # One self-contained module: no import of anything, no script or HTML put in.
    assert not re.search(r"""\bimport\s*\(|\bimport\s*[\w{*][^;]*\bfrom\s*["']""", text)
    assert not re.search(r"\b(innerHTML|outerHTML|insertAdjacentHTML|eval)\b", text)
    assert "new Function" not in text
    # The loader: its one import is of the module widget's code, through a blob URL.
    loader = LOADER.read_text()
    assert len(loader) < 2_000
    imports = re.findall(r"\bimport\s*\(([^)]*)\)", loader)
    assert len(imports) == 1 and "createObjectURL" in loader, imports
    assert not re.search(r"\b(innerHTML|outerHTML|insertAdjacentHTML|eval|fetch)\b", loader)
    # In the wheel (a gitignored build output: listed as an artifact), built by its hook.
    pyproject = (ROOT / "pyproject.toml").read_text()
    wheel = pyproject.split("[tool.hatch.build.targets.wheel]", 1)[1].split("\n[", 1)[0]
    assert re.search(r'^artifacts = \[.*"nbcompile/display/static"', wheel, re.M)
    assert '"nbcompile/display/static/inspector.js",' in pyproject  # ensured-targets
    assert '"nbcompile/display/static/loader.js",' in pyproject
    assert re.search(r'^\s*"anywidget>=0\.11', pyproject, re.M)
