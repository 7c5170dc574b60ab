"""Replay recorded TORCH_TRACE logs through the parser table and the compile builder.

The logs in tests/fixtures/traces/ come from real compiles (record_traces.py): the same
metadata and payloads the live logging handler sees, read back from files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nbcompile.core.records import CompileRecord
from nbcompile.core.trace.builder import CompileBuilder
from nbcompile.core.trace.compile_id import CompileId
from nbcompile.core.trace.listener import StringTable, TraceEvent
from nbcompile.core.trace.parsed import CacheLookup, Phase
from nbcompile.core.trace.parsers import PARSERS, parse, parser_for
from tests.support import ROOT

TRACES = ROOT / "tests" / "fixtures" / "traces"


def read_trace(path: Path) -> list[tuple[dict, str]]:
    """(metadata, payload) of every record: a glog header ``... file.py:N] {json}``, then
    tab-indented payload lines when the metadata has ``has_payload``."""
    records: list[tuple[dict, list[str]]] = []
    for line in path.read_text().splitlines():
        if line.startswith("\t"):
            records[-1][1].append(line[1:])
        else:
            records.append((json.loads(line[line.index("] ") + 2:]), []))
    return [(metadata, "\n".join(lines)) for metadata, lines in records]


def replay(name: str) -> tuple[list[CompileRecord], CompileBuilder]:
    strings = StringTable()
    builder = CompileBuilder(strings)
    finished = []
    for metadata, payload in read_trace(TRACES / f"{name}.log"):
        if strings.add(metadata):
            continue
        event = TraceEvent.from_metadata(metadata, payload)
        if event is not None and (record := builder.feed(event).finished) is not None:
            finished.append(record)
    return finished, builder


@pytest.mark.parametrize("name", ["graph_break", "recompile", "module", "fullgraph_error"])
def test_recorded_logs_are_small_and_every_compile_closes(name):
    path = TRACES / f"{name}.log"
    assert path.stat().st_size < 200_000
    records = read_trace(path)
    starts = [m for m, _ in records if "dynamo_start" in m]
    closes = [m for m, _ in records if "compilation_metrics" in m]
    assert starts and len(starts) == len(closes)
    finished, _ = replay(name)
    assert len(finished) == len(closes)
    for record in finished:
        assert CompileId.parse(record.compile_id) is not None
        assert record.times.get("total_s", 0) > 0


def test_graph_break_log():
    finished, _ = replay("graph_break")
    first = finished[0]
    assert first.compile_id == "0/0"
    assert first.frame == "f"
    assert len(first.graphs) == 1 and "sin" in first.graphs[0]
    [graph_break] = first.graph_breaks
    assert "print" in (graph_break.reason + graph_break.gb_type).lower()
    assert graph_break.lineno == 6  # print("break") in record_traces.py's script
    assert graph_break.compile_id == "0/0"
    assert not first.kernels  # backend="eager"; the module log has Inductor's kernels
    assert all(not r.graphs for r in finished[1:])  # the resumed rest of f has no ops


def test_recompile_log():
    finished, _ = replay("recompile")
    assert [r.compile_id for r in finished] == ["0/0", "0/1"]
    assert finished[0].recompile_reason == ""
    assert "size" in finished[1].recompile_guard.lower()
    assert "4" in finished[1].recompile_guard
    assert finished[1].recompile_reason  # in words
    assert finished[1].guards and finished[0].guards
    assert finished[1].recompile_limit > 0
    assert all(r.graphs and not r.kernels for r in finished)  # backend="eager"


def test_module_log():
    finished, builder = replay("module")
    [record] = finished
    assert record.frame == "forward"
    assert record.graph_op_count > 0
    assert record.status == "ok"
    names = [k.name for k in record.kernels]
    assert any(n.startswith("cpp_fused") for n in names), names
    assert record.output_code and record.post_grad_graphs
    assert "inductor_s" in record.times or len(record.times) > 1
    phases = builder.phases((0, 0))
    assert phases and all(isinstance(p, Phase) for p in phases)
    assert {"B", "E"} <= {p.ph for p in phases}


def test_fullgraph_error_log():
    finished, builder = replay("fullgraph_error")
    [record] = finished
    assert record.status == "failed"
    assert "Unsupported" in record.error
    failure = builder.failure((0, 0))
    assert failure is not None and failure.type == "Unsupported"
    assert failure.lineno == 6


def test_parser_table_is_pure_and_ignores_unknown_kinds():
    assert parse("some_future_kind", {"some_future_kind": {}}, "x") is None
    metadata = {"artifact": {"name": "fx_graph_cache_miss", "encoding": "json"}}
    assert parser_for("artifact", metadata) is not None
    assert parse("artifact", metadata, "{}") == CacheLookup("fx_graph_cache_miss")
    assert parse("chromium_event", {"chromium_event": {}}, "not json") is None
    assert set(PARSERS) >= {"dynamo_start", "compilation_metrics", "inductor_output_code",
                            "chromium_event", "artifact:dynamo_graph_break_reason"}


def test_compile_id_prints_as_dynamo():
    assert str(CompileId(0, 1)) == "0/1"
    assert str(CompileId(0, 1, 1)) == "0/1_1"
    assert CompileId.parse("[0/1_1]") == CompileId(0, 1, 1)
    assert CompileId.parse("0/1_1").frame_compile == CompileId(0, 1)
    assert CompileId.parse("not an id") is None
    assert CompileId.from_metadata({"frame_id": 2, "frame_compile_id": 3, "attempt": 1}) \
        == CompileId(2, 3, 1)
    assert CompileId.from_metadata({"chromium_event": {}}) is None


def test_recompile_reasons_name_the_versions_whose_guards_failed():
    from nbcompile.core.trace.payloads import recompile_failed_versions

    listed = json.dumps(["38/2: ___check_obj_id(self, 1403)  # for group in self.param_groups",
                         "38/1: len(self.state) != 4"])
    assert recompile_failed_versions(listed) == [(38, 2), (38, 1)]
    text = "7/0: tensor 'x' size mismatch at index 0. expected 4, actual 6"
    assert recompile_failed_versions(text) == [(7, 0)]
    assert recompile_failed_versions("a reason with no version") == []


def test_interned_filenames_from_before_a_listener_are_resolved():
    import torch._logging.structured as structured

    index = structured.intern_string("/somewhere/interned_before.py")
    assert StringTable().filename(index) == "/somewhere/interned_before.py"
    assert StringTable().filename(10**9) == ""


def test_post_grad_graph_under_both_names_torch_writes():
    """torch 2.9 logs a cold compile's post-grad graph as ``after_post_grad_graph``."""
    for name in ("inductor_post_grad_graph", "after_post_grad_graph"):
        assert parser_for("artifact", {"artifact": {"name": name}}) is PARSERS[
            "artifact:inductor_post_grad_graph"]


def test_live_progress_reads_the_builders_fields_one_decode_per_event(monkeypatch):
    """The capture session feeds each recorded event to the builder and the progress
    tracker; a ``chromium_event`` payload is decoded once (by the builder's parser; a
    key-less one, which the builder skips, by the tracker), and the tracker follows the
    same steps as when it decodes every event itself."""
    from nbcompile.core.notebook.capture.session import CaptureSession
    from nbcompile.core.trace.progress import ProgressTracker

    decoded: list[str] = []
    real = PARSERS["chromium_event"]
    monkeypatch.setitem(PARSERS, "chromium_event",
                        lambda md, payload: decoded.append(payload) or real(md, payload))
    session, alone = CaptureSession(), ProgressTracker()
    chromium = 0
    steps: list[tuple] = []
    for metadata, payload in read_trace(TRACES / "module.log"):
        if session.listener.strings.add(metadata):
            continue
        event = TraceEvent.from_metadata(metadata, payload)
        if event is None:
            continue
        chromium += event.kind == "chromium_event"
        session.on_event(event)
        before = len(decoded)
        alone.feed(event)  # decodes on its own: not counted
        del decoded[before:]
        if event.frame is not None and (state := session.progress.get(event.frame)):
            steps.append((event.frame, state.step, alone.get(event.frame).step))
    assert chromium > 100 and len(decoded) == chromium
    assert len({s[1] for s in steps}) >= 3, steps  # e.g. tracing, AOTAutograd, Inductor
    assert all(mine == own for _, mine, own in steps)
