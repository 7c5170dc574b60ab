"""The record contract: the schema and the docs tables are generated from the dataclasses
(and fail here when stale), the schema is closed, real records from real compiles
validate, and records saved by an older nbcompile still validate."""

from __future__ import annotations

import copy
import dataclasses
import json

import jsonschema
import pytest

import nbcompile
from nbcompile.core.records import MIME_TYPE
from nbcompile.schema import generate
from tests.support import ROOT
from tests.support.schema import _errors, _validate

FIXTURES = ROOT / "tests" / "fixtures" / "records"

SCHEMA = json.loads(generate.SCHEMA_PATH.read_text())







def test_committed_schema_is_generated_from_the_dataclasses():
    assert generate.SCHEMA_PATH.read_text() == generate.schema_text(), (
        "nbcompile/schema/record-v1.schema.json is stale: "
        "run python -m nbcompile.schema.generate"
    )


def test_docs_field_tables_are_generated_from_the_dataclasses():
    current = generate.DOCS_PATH.read_text()
    assert current.count(":begin -->") >= 12
    assert current == generate.docs_text(current), (
        "docs/records.md field tables are stale: run python -m nbcompile.schema.generate"
    )


def test_generator_check_mode_reports_staleness(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "record.schema.json"
    stale.write_text("{}\n")
    monkeypatch.setattr(generate, "SCHEMA_PATH", stale)
    assert generate.main(["--check"]) == 1
    assert "stale:" in capsys.readouterr().err and stale.read_text() == "{}\n"
    assert generate.main([]) == 0
    assert json.loads(stale.read_text()) == SCHEMA


def test_schema_is_valid_and_every_object_is_closed():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert {s["$ref"] for s in SCHEMA["oneOf"]} == {
        "#/$defs/SummaryRecord", "#/$defs/TargetRecord", "#/$defs/Comparison",
        "#/$defs/Profile", "#/$defs/Suggestions", "#/$defs/TraceRecord",
        "#/$defs/Diagnosis", "#/$defs/CompileTime"}
    for name, definition in SCHEMA["$defs"].items():
        assert definition["additionalProperties"] is False, name
        assert set(definition["required"]) <= set(definition["properties"]), name
    compile_ = SCHEMA["$defs"]["CompileRecord"]["properties"]
    assert compile_["output_code_path"] == {
        "type": "string", "description": "where Inductor wrote the generated module"}
    assert compile_["started_at"]["type"] == "number"
    target = SCHEMA["$defs"]["TargetRecord"]
    assert {"graph_break_count", "recompile_count", "kernel_count"} <= set(target["required"])
    assert "code_piece_count" in target["properties"]
    assert SCHEMA["$defs"]["Kernel"]["properties"]["kind"]["enum"] == [
        "kernel", "extern", "wrapper"]


def test_every_optional_field_carries_its_default():
    """What a reader takes for a field an older record lacks is in the schema (the
    front end's view model is filled from it): the dataclass default, valid for the
    field's own schema; a computed key's default is the empty value of its type."""
    for name, definition in SCHEMA["$defs"].items():
        for key, prop in definition["properties"].items():
            if key in definition["required"]:
                assert "default" not in prop, f"{name}.{key}"
                continue
            assert "default" in prop, f"{name}.{key}"
            schema = {"$defs": SCHEMA["$defs"], **prop}
            assert not list(jsonschema.Draft202012Validator(schema).iter_errors(
                prop["default"])), f"{name}.{key}: {prop['default']!r}"
    target = SCHEMA["$defs"]["TargetRecord"]["properties"]
    assert target["stance"]["default"] == "default"  # a dataclass default
    assert target["cell_names"]["default"] == {}  # a computed key: empty of its type
    assert SCHEMA["$defs"]["Comparison"]["properties"]["confidence"]["default"] == 0.95


def test_an_optional_field_needs_a_json_default():
    @dataclasses.dataclass
    class Odd:
        when: object = dataclasses.field(default_factory=object)
        OPTIONAL_KEYS = frozenset({"when"})

    (f,) = dataclasses.fields(Odd)
    with pytest.raises(TypeError, match="not a JSON value"):
        generate.field_default(Odd, f)
    assert generate.empty_value(int | None) is None
    assert generate.empty_value(list[str]) == []


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.json")), ids=lambda p: p.name)
def test_committed_fixtures_validate(path):
    _validate(json.loads(path.read_text()))


def test_record_saved_by_the_previous_nbcompile_still_validates():
    """``v1-saved.json`` is the summary fixture as nbcompile wrote it before the schema was
    generated: it lacks ``code_piece_count``, and older records lack more."""
    saved = json.loads((FIXTURES / "v1-saved.json").read_text())
    assert "code_piece_count" not in saved["targets"][0]
    _validate(saved)
    older = copy.deepcopy(saved)  # as written before stack/stage/advice... were added
    for target in older["targets"]:
        for key in ("code_piece_count", "annotations", "code_diffs", "advice", "preview"):
            target.pop(key, None)
        for kernel in target["kernels"]:
            for key in ("stage", "handle", "nodes"):
                kernel.pop(key)
        for compile_ in target["compiles"]:
            for key in ("recompile_guard", "post_grad_graphs", "recompile_limit"):
                compile_.pop(key)
        for graph_break in target["graph_breaks"]:
            graph_break.pop("stack")
    _validate(older)


def _saved_target() -> dict:
    return json.loads((FIXTURES / "v1-saved.json").read_text())["targets"][0]


@pytest.mark.parametrize("where", ["target", "kernel", "compile", "cell", "summary"])
def test_unknown_key_fails_validation(where):
    summary = json.loads((FIXTURES / "v1-saved.json").read_text())
    target = summary["targets"][0]
    place = {"target": target, "kernel": target["kernels"][0], "compile": target["compiles"][0],
             "cell": target["cell"], "summary": summary}[where]
    place["kernal_count"] = 1
    assert any("kernal_count" in m for m in _errors(summary)), where


@pytest.mark.parametrize(("path", "value"), [
    (("kernel_count",), "3"),
    (("kernels", 0, "kind"), "launcher"),
    (("kernels", 0, "lines", 0, "lineno"), 4.5),
    (("compiles", 0, "started_at"), None),
    (("status",), "done"),
    (("schema_version",), 2),
    (("graph_breaks", 0, "filename"), 7),
])
def test_wrong_type_fails_validation(path, value):
    target = _saved_target()
    place = target
    for key in path[:-1]:
        place = place[key]
    place[path[-1]] = value
    assert _errors(target), path


def test_missing_required_key_and_unknown_record_kind_fail():
    target = _saved_target()
    del target["kernels"]
    assert _errors(target)
    assert _errors({"schema_version": 1, "record": "profile"})
    bad = {"schema_version": 1, "record": "summary", "cell": {}, "updated_at": 0,
           "targets": [{"schema_version": 1, "record": "target", "name": "x"}]}
    assert _errors(bad)


@pytest.mark.slow
def test_real_trace_record_validates(runs):
    from nbcompile.display.trace import published_trace

    report = nbcompile.open_trace(runs("breaks"))
    record = report.to_dict()
    assert record["record"] == "trace" and record["compiles"]
    assert any(c["graph_breaks"] for c in record["compiles"])
    assert any(c["recompile_reason"] for c in record["compiles"])
    assert not any(k.startswith("_") for c in record["compiles"] for k in c)
    _validate(record)
    _validate(published_trace(report))
    bundle = report._repr_mimebundle_()
    _validate(bundle[MIME_TYPE])
    # closed: a key the schema does not know, or a status it does not allow, is caught
    broken = copy.deepcopy(record)
    broken["compiles"][0]["status"] = "exploded"
    broken["compiles"][0]["_source"] = "internal"
    assert _errors(broken)  # oneOf: the record matches no variant
    trace_only = jsonschema.Draft202012Validator(
        {"$ref": "#/$defs/TraceRecord", "$defs": SCHEMA["$defs"]})
    messages = [e.message for e in trace_only.iter_errors(json.loads(json.dumps(broken)))]
    assert any("'exploded'" in m for m in messages), messages
    assert any("'_source'" in m for m in messages), messages


def test_every_record_writes_inf_and_nan_as_null():
    import json
    import math

    from nbcompile.core.fixes.record import Measured
    from nbcompile.core.perf.comparison import TimingRow

    measured = Measured(time_s=math.inf).to_dict()
    assert measured["time_s"] is None and json.dumps(measured, allow_nan=False)
    row = TimingRow(mode="default", kind="mode", median_s=1.0, speedup=math.nan).to_dict()
    assert row["median_s"] == 1.0 and row["speedup"] is None
