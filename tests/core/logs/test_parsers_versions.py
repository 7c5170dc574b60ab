"""The TORCH_TRACE logs of several torch releases, read by today's parsers.

tests/fixtures/traces/versions/<torch>/ holds the same programs recorded on each torch
nbcompile supports (``record.py`` there: the oldest, 2.13 and the newest), and on 2.8, below
the floor, whose logs ``open_trace`` still reads. Every version
must show the same facts (compiles, a graph break with its type and reason, a recompile
reason, phases, kernels, a module, a failed compile, a refused RNN); the ways the
releases differ are listed in ``VERSIONS`` and checked too, so a parser that stops
handling one of them fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nbcompile.core.insight.not_compiled import why_not_compiled
from nbcompile.core.logs.run import TraceRecord, read_trace
from nbcompile.core.trace.builder import CompileBuilder
from nbcompile.core.trace.compile_id import CompileId
from nbcompile.core.trace.listener import StringTable, TraceEvent
from tests.support import ROOT

VERSIONS_DIR = ROOT / "tests" / "fixtures" / "traces" / "versions"
DIRS = sorted(p for p in VERSIONS_DIR.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
SCENARIOS = ("graph_break", "recompile", "module", "module_cached", "fullgraph_error", "rnn")

#: How each recorded release writes its log (what the parsers must cope with).
VERSIONS: dict[str, dict[str, object]] = {
    # below the supported floor (docs/project/versions.md), but its logs open: written as
    # 2.9.1 writes them
    "2.8.0": {"break_type_on_reason_line": True, "metrics_keys": 84,
              "cold_post_grad": "after_post_grad_graph", "rnn_refusal_in": "reason",
              "torch_version_events": 0},
    "2.9.1": {
        # the break type is on the "Graph Break Reason:" line itself
        "break_type_on_reason_line": True,
        # compilation_metrics' keys (torch adds some in most releases)
        "metrics_keys": 89,
        # what a cold compile calls its post-grad graph (2.9 writes
        # inductor_post_grad_graph only when the graph comes from the cache)
        "cold_post_grad": "after_post_grad_graph",
        # where Dynamo's refusal of an RNN module is written (called through nbcompile's
        # entry function, 2.9 writes no break, only the compile's fail_reason:
        # tests/test_not_compiled.py)
        "rnn_refusal_in": "reason",
        # torch_version artifacts per log (2.9 writes none)
        "torch_version_events": 0,
    },
    "2.13.0": {"break_type_on_reason_line": False, "metrics_keys": 99,
               "cold_post_grad": "inductor_post_grad_graph", "rnn_refusal_in": "reason",
               "torch_version_events": 1},
    "2.15.0": {"break_type_on_reason_line": False, "metrics_keys": 99,
               "cold_post_grad": "inductor_post_grad_graph", "rnn_refusal_in": "explanation",
               "torch_version_events": 1},
}
_RNN = "RNN, GRU, or LSTM"


def _read(version_dir: Path, name: str) -> TraceRecord:
    trace = read_trace(version_dir / f"{name}.log")
    assert trace.problems == [] and trace.unknown_events == {}, (trace.problems,
                                                                 trace.unknown_events)
    return trace


def _events(path: Path, kind: str | None) -> list[tuple[dict, str]]:
    """(metadata, payload) of the events of one kind (an artifact's name counts; None:
    every event)."""
    found: list[tuple[dict, list[str]]] = []
    for line in path.read_text().splitlines():
        if line.startswith("\t"):
            if found and found[-1][1] is not None:
                found[-1][1].append(line[1:])
            continue
        metadata = json.loads(line[line.index("] ") + 2:])
        name = metadata["artifact"]["name"] if "artifact" in metadata else next(iter(metadata))
        found.append((metadata, []) if kind in (None, name) else ({}, None))  # type: ignore[arg-type]
    return [(m, "\n".join(p)) for m, p in found if m]


@pytest.fixture(params=DIRS, ids=[p.name for p in DIRS])
def version(request) -> Path:
    assert request.param.name in VERSIONS, (
        f"fixtures for torch {request.param.name}: add what its logs look like to VERSIONS")
    return request.param


def test_every_supported_end_is_recorded_and_small():
    assert {"2.8.0", "2.9.1", "2.13.0", "2.15.0"} <= {p.name for p in DIRS}
    for version_dir in DIRS:
        assert sorted(p.stem for p in version_dir.glob("*.log")) == sorted(SCENARIOS)
        assert sum(p.stat().st_size for p in version_dir.glob("*.log")) < 400_000


def test_logs_are_this_torch_and_every_compile_closes(version):
    for name in SCENARIOS:
        named = _events(version / f"{name}.log", "torch_version")
        assert len(named) == VERSIONS[version.name]["torch_version_events"], name
        for _, payload in named:
            assert json.loads(payload)["pytorch_version"].split("+")[0] == version.name
        trace = _read(version, name)
        starts = _events(version / f"{name}.log", "dynamo_start")
        closes = _events(version / f"{name}.log", "compilation_metrics")
        ids = [CompileId.parse(c.compile_id) for c in trace.compiles]
        assert None not in ids
        # one frame compile per dynamo_start; a restarted attempt is closed by the next
        assert len({c.compile_id.partition("_")[0] for c in trace.compiles}) == len(starts)
        assert len([c for c in trace.compiles if c.status != "restarted"]) == len(closes)
        for c in trace.compiles:
            assert c.compile_time_s > 0 and c.phases, (name, c.compile_id)


def test_graph_break_type_and_reason(version):
    trace = _read(version, "graph_break")
    assert [c.compile_id for c in trace.compiles] == ["0/0", "0/0_1", "1/0"]
    first, retried, resumed = trace.compiles
    assert first.status == "restarted" and first.function == "f"
    [gb] = first.graph_breaks
    assert gb.gb_type == "Failed to trace builtin operator"
    assert gb.reason.startswith(f"{gb.gb_type}: ") and "`print`" in gb.explanation
    assert gb.explanation in gb.reason and gb.lineno == 6 and gb.hint
    assert retried.status == "compiled" and len(retried.graphs) == 1
    assert "sin" in retried.graphs[0]
    assert resumed.function.startswith("torch_dynamo_resume_in_f") and not resumed.graphs
    # the difference: where the break type is written
    [(_, payload)] = _events(version / "graph_break.log", "dynamo_graph_break_reason")
    reason_line = next(ln for ln in payload.splitlines() if ln.startswith("Graph Break Reason:"))
    on_the_line = reason_line == f"Graph Break Reason: {gb.gb_type}"
    assert on_the_line == VERSIONS[version.name]["break_type_on_reason_line"], reason_line


def test_recompile_reason(version):
    trace = _read(version, "recompile")
    assert [(c.compile_id, c.status) for c in trace.compiles] == [("0/0", "compiled"),
                                                                  ("0/1", "compiled")]
    first, second = trace.compiles
    assert first.recompile_reason == ""
    assert second.recompile_reason == "tensor 'x' size mismatch at index 0. expected 4, actual 6"
    assert "4" in second.recompile_guard and second.guards and first.guards
    assert second.content().recompile_limit == 8
    assert all(len(c.graphs) == 1 and not c.kernels for c in trace.compiles)  # eager


def test_module_kernels_phases_and_post_grad_graph(version):
    expected = VERSIONS[version.name]
    [cold] = _read(version, "module").compiles
    [warm] = _read(version, "module_cached").compiles
    for c in (cold, warm):
        assert c.function == "forward" and len(c.graphs) == 1
        assert [k.name for k in c.kernels if k.name.startswith("cpp_fused")] == [
            "cpp_fused_gelu_mul_0"]
        assert "addmm" in c.output_code and "def call(" in c.output_code
        record = c.content()
        assert record.status == "ok" and record.graph_op_count > 0
        assert record.times["total_s"] == pytest.approx(c.compile_time_s)
    assert cold.status == "compiled" and cold.cache.get("fx_graph_cache_miss") == 1
    assert warm.status == "cache_hit" and warm.cache.get("fx_graph_cache_hit") == 1
    phases = {"Dynamo tracing", "AOTAutograd", "Inductor passes", "code generation",
              "entire_frame_compile", "inductor_compile"}
    assert phases <= set(cold.phases), sorted(cold.phases)
    assert cold.phases["entire_frame_compile"] == pytest.approx(cold.compile_time_s, rel=1e-3)
    # the post-grad graph, cold and from the cache, under the names each torch writes
    [cold_graph] = cold.content().post_grad_graphs
    [warm_graph] = warm.content().post_grad_graphs
    assert "addmm" in cold_graph and cold_graph == warm_graph
    names = ("inductor_post_grad_graph", "after_post_grad_graph")
    written = [n for n in names if _events(version / "module.log", n)]
    assert written == [expected["cold_post_grad"]]
    assert _events(version / "module_cached.log", "inductor_post_grad_graph")


def test_failed_compile(version):
    [c] = _read(version, "fullgraph_error").compiles
    assert c.status == "failed" and c.function == "h"
    assert c.fail_reason.startswith("Unsupported: Failed to trace builtin operator")
    assert "`print`" in c.fail_reason
    assert c.content().error == c.fail_reason
    builder = CompileBuilder(StringTable())
    for metadata, payload in _events(version / "fullgraph_error.log", None):
        if not builder.strings.add(metadata) and (
                event := TraceEvent.from_metadata(metadata, payload)) is not None:
            builder.feed(event)
    failure = builder.failure((0, 0))
    assert failure is not None and failure.type == "Unsupported" and failure.lineno == 6


@pytest.mark.slow
def test_refused_rnn_is_explained(version):
    trace = _read(version, "rnn")
    records = [c.content() for c in trace.compiles]
    breaks = [gb for c in trace.compiles for gb in c.graph_breaks]
    assert not any(c.graphs for c in trace.compiles)
    # the difference: where Dynamo writes why
    where = VERSIONS[version.name]["rnn_refusal_in"]
    assert breaks and all(_RNN in getattr(gb, where) for gb in breaks)
    if where == "explanation":  # 2.15: the break is a delayed function call
        assert not any(_RNN in gb.gb_type for gb in breaks)
    else:
        assert {gb.gb_type for gb in breaks} == {f"Attempted to wrap {_RNN}"}
    note = why_not_compiled("lstm", records, breaks)
    assert "allow_rnn" in note and "lstm was not compiled" in note


def test_compilation_metrics_keys(version):
    counts = {len(m["compilation_metrics"])
              for name in SCENARIOS
              for m, _ in _events(version / f"{name}.log", "compilation_metrics")}
    assert counts == {VERSIONS[version.name]["metrics_keys"]}
