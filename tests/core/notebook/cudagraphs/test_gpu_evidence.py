"""What an H200 recorded (``make test-gpu``, torch 2.11, ``tests/fixtures/gpu/``), replayed
on a CPU: the records it wrote are valid against today's schema, and torch's own messages
and lines from that run, read again by the pure readers, give what the record says.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from nbcompile.core.notebook.cudagraphs import events as cudagraph_events
from nbcompile.core.notebook.cudagraphs import partitions as cudagraph_partitions
from nbcompile.core.notebook.cudagraphs.outcome import outcome
from tests.fixtures.gpu.trim_evidence import (
    HERE,
    SCENARIOS,
    TUTORIAL_DATA,
    committed,
    tutorial_extract,
)
from tests.support.schema import VALIDATOR


def _fixture(name: str) -> dict[str, Any]:
    return json.loads((HERE / f"{name}.json").read_text())


@pytest.mark.parametrize("name", SCENARIOS)
def test_each_recorded_record_is_valid_today(name):
    fixture = _fixture(name)
    assert fixture["device"].startswith("NVIDIA") and fixture["torch"]
    VALIDATOR.validate(fixture["record"])
    assert fixture["record"]["cudagraph_calls"]  # a GPU run: the tree was watched


@pytest.mark.parametrize("name", ["mutated_input", "cpu_input_unpartitioned"])
def test_torchs_skip_messages_give_the_recorded_outcome(name):
    fixture = _fixture(name)
    recorded = fixture["record"]["compiles"][-1]["cudagraphs"]
    cell = recorded["cell"]
    again = outcome(fixture["torch_messages"], counted=True, requested=True, device="cuda",
                    cell_of=lambda filename: cell if filename.startswith("<ipython") else None)
    assert again is not None and again.status == recorded["status"] == "skipped"
    assert again.reason == recorded["reason"]
    # the user's line torch named (none, when its message carried no stack: torch 2.11
    # printed the mutated input's line in one run of the suite and not in another)
    assert (again.line.to_dict() if again.line else None) == recorded["line"]
    assert again.cell == recorded["cell"]


def test_the_partition_lines_torch_printed_give_the_recorded_split():
    fixture = _fixture("cpu_input")
    # torch's lines for the same code compiled plainly (the test's oracle, another file)
    parts = cudagraph_partitions.read(fixture["evidence"]["torch_partition_lines"],
                                      lambda filename: None)
    recorded = fixture["record"]["compiles"][-1]["cudagraphs"]["partitions"]
    assert parts is not None
    assert (parts.partitions, parts.cudagraphable) == (recorded["partitions"],
                                                       recorded["cudagraphable"]) == (2, 1)
    assert [(n.node, n.reason, n.fx) for n in parts.outside] == [
        (n["node"], n["reason"], n["fx"]) for n in recorded["outside"]]
    assert parts.outside[0].line is not None and parts.outside[0].line.line == "b = y * 2"


def test_the_sizes_torch_logged_are_the_recorded_sizes():
    fixture = _fixture("sizes")
    events = [cudagraph_events.parse(m) for m in fixture["evidence"]["recordings"]]
    assert [e.key for e in events if e is not None] == [
        s["key"] for s in fixture["record"]["cudagraph_shapes"]["shapes"]] == [
        "static", "48", "64", "80"]


def test_a_rerecord_torch_logged_names_the_recorded_input():
    fixture = _fixture("rerecord")
    events = [e for m in fixture["torch_messages"]
              if (e := cudagraph_events.parse(m)) is not None and e.kind == "rerecord"]
    assert events
    rerecord = cudagraph_events.rerecord_of(events[0])
    recorded = next(r for c in fixture["record"]["cudagraph_calls"] for r in c["rerecords"])
    assert (rerecord.reason, rerecord.inputs, rerecord.line) == (
        recorded["reason"], recorded["inputs"], recorded["line"]) == (
        "static input data pointer changed", ["arg0_1"], "return lin_cg(x).relu()")


def test_the_tutorials_extract_is_the_fixtures_read_today():
    """Tutorial 03 prints the H200's calls: the committed extract is those fixtures' counts
    in today's words, where a failed check torch followed with a replay is no re-record
    (``rerecord.json``'s last call: 0 recordings, a failed check, read by that run's
    nbcompile as "recorded again")."""
    fixtures = committed()
    assert json.loads(TUTORIAL_DATA.read_text()) == tutorial_extract(fixtures)
    recorded = fixtures["rerecord"]["record"]["cudagraph_calls"]
    assert any(c["rerecords"] and not c["recordings"] for c in recorded)  # that run's reading
    calls = next(s for s in tutorial_extract(fixtures)["scenarios"]
                 if s["scenario"] == "rerecord")["calls"]
    again = [c for c in calls if "recorded again" in c["what"]]
    assert len(again) == 1 and len(calls) == len(recorded) - 1
