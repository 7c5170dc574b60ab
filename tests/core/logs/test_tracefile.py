"""Opening TORCH_TRACE runs: real torchrun (gloo, 2 ranks) and script traces, bad input,
the ``%nbcompile open`` magic and ``python -m nbcompile open``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import nbcompile
from nbcompile.core.logs.files import TraceLog
from nbcompile.core.records import MIME_TYPE
from tests.support import ROOT


def _log_of(directory: Path) -> Path:
    (log,) = sorted(directory.glob("*.log"))
    return log


def _copy_log(runs, name: str, tmp_path: Path) -> Path:
    dest = tmp_path / "dedicated_log_torch_trace_copy.log"
    shutil.copyfile(_log_of(runs(name)), dest)
    return dest


# --- real runs ---
@pytest.mark.slow
def test_healthy_two_rank_run(runs):
    report = nbcompile.open_trace(runs("ddp_healthy"))
    assert report.ranks == [0, 1]
    assert report.problems == []
    assert report.divergences == []
    assert [(c.rank, c.compile_id) for c in report.compiles] == [(0, "0/0"), (1, "0/0")]
    for c in report.compiles:
        assert c.status == "compiled"
        assert c.function == "forward" and c.filename.endswith("ddp_train.py")
        assert c.frame == f"forward {c.filename}:{c.lineno}"
        assert len(c.graphs) == 1 and "relu" in c.graphs[0]
        assert any(k.kind == "kernel" for k in c.kernels)
        assert "cpp_fused" in c.output_code
        assert 0 < c.phases["code generation"] < c.compile_time_s  # compilation_metrics
        assert 0 < c.phases["backend_compile"] <= c.compile_time_s + 1e-3  # chromium events
        assert c.cache.get("fx_graph_cache_miss", 0) >= 1
        assert "___check_obj_id" in c.guards or "TENSOR_MATCH" in c.guards
        assert c.stack and c.stack[-1].filename.endswith("ddp_train.py")
    assert report.compile("0/0", rank=1).rank == 1
    assert report.compile("[0/0]").rank == 0


@pytest.mark.slow
def test_divergent_two_rank_run_names_the_rank_and_compile(runs):
    report = nbcompile.open_trace(runs("ddp_divergent"))
    assert report.ranks == [0, 1]
    (div,) = [d for d in report.divergences if d.kind == "compile_ids"]
    assert div.groups == [[0], [1]]
    assert div.compile_id == "0/1"
    assert "rank 1 compiled 0/1 forward" in div.detail and "rank 0 did not" in div.detail
    assert "expected 8, actual 6" in div.detail  # the guard that failed on rank 1 only
    recompile = report.compile("0/1", rank=1)
    assert "size mismatch" in recompile.recompile_reason
    with pytest.raises(KeyError, match="no compile '0/1' on rank 0"):
        report.compile("0/1", rank=0)
    bundle = report._repr_mimebundle_()
    assert bundle[MIME_TYPE]["record"] == "trace"
    assert bundle[MIME_TYPE]["divergences"][0]["kind"] == "compile_ids"
    json.dumps(bundle[MIME_TYPE])
    assert "DIVERGENCE compile_ids" in bundle["text/plain"]
    assert "compiled differently" in bundle["text/html"] and "<script" not in bundle["text/html"]


@pytest.mark.slow
def test_ranks_with_other_shapes_diverge_in_graphs_and_guards(runs):
    report = nbcompile.open_trace(runs("ddp_shapes"))
    assert [c.compile_id for c in report.compiles] == ["0/0", "0/0"]
    kinds = {d.kind: d for d in report.divergences}
    assert set(kinds) == {"graphs", "guards"}  # same compile ids, same cache misses
    for d in kinds.values():
        assert d.groups == [[0], [1]] and d.compile_id == "0/0"
    assert 'f32[8, 16]' in kinds["graphs"].detail and 'f32[6, 16]' in kinds["graphs"].detail
    guard = kinds["guards"].detail
    assert guard.startswith("guards differ at compile 0/0: rank 0 vs rank 1: first differing")
    assert "check_tensor(L['x']" in guard and "size=[8, 16]" in guard and "size=[6, 16]" in guard
    assert "___check_obj_id" not in guard  # object ids differ per process: not a divergence


@pytest.mark.slow
def test_rank_with_a_warm_cache_diverges_in_cache(runs):
    report = nbcompile.open_trace(runs("ddp_cache"))
    rank0, rank1 = report.compiles
    assert (rank0.rank, rank0.status) == (0, "compiled")
    assert (rank1.rank, rank1.status) == (1, "cache_hit")
    assert rank1.cache.get("fx_graph_cache_hit", 0) >= 1 and "fx_graph_cache_miss" in rank0.cache
    (div,) = report.divergences  # same compile ids, graphs and guards
    assert (div.kind, div.groups, div.compile_id) == ("cache", [[0], [1]], "0/0")
    assert "fx_graph_cache_hit" in div.detail and "fx_graph_cache_miss" in div.detail


@pytest.mark.slow
def test_failed_compile_from_a_broken_backend(runs):
    report = nbcompile.open_trace(runs("failed"))
    (c,) = report.compiles
    assert c.status == "failed"
    assert c.fail_reason.startswith("BackendCompilerFailed")
    assert "broken on purpose" in c.fail_reason
    assert report.ranks == []


@pytest.mark.slow
def test_truncated_last_line(runs, tmp_path):
    log = _copy_log(runs, "breaks", tmp_path)
    data = log.read_bytes()
    cut = data.rfind(b"\nV") + 40  # in the middle of the last header line
    log.write_bytes(data[:cut])
    lines = data[:cut].count(b"\n") + 1
    report = nbcompile.open_trace(log)
    assert any(p.startswith(f"{log}:{lines}: the last line is cut short") for p in report.problems)
    assert len(report.compiles) == 8  # everything before it is read


@pytest.mark.slow
def test_corrupt_json_line(runs, tmp_path):
    log = _copy_log(runs, "breaks", tmp_path)
    lines = log.read_text().split("\n")
    index = next(i for i, ln in enumerate(lines) if '"dynamo_start"' in ln)
    lines[index] = lines[index].replace('{"dynamo_start"', '{"dynamo_start" oops', 1)
    log.write_text("\n".join(lines))
    report = nbcompile.open_trace(log)
    assert any(p.startswith(f"{log}:{index + 1}: corrupt JSON") for p in report.problems)
    assert len(report.compiles) == 8
    assert report.compile("0/0_1").graphs  # the rest of that compile is still read


@pytest.mark.slow
def test_payload_md5_mismatch(runs, tmp_path):
    log = _copy_log(runs, "breaks", tmp_path)
    lines = log.read_text().split("\n")
    index = next(i for i, ln in enumerate(lines) if "dynamo_graph_break_reason" in ln)
    lines[index + 1] += " (edited)"  # the first line of that break's payload
    log.write_text("\n".join(lines))
    report = nbcompile.open_trace(log)
    assert report.problems == []  # payloads are read on demand
    first = report.compiles[0]
    assert first.graph_breaks  # still shown, as read
    assert f"{log}:{index + 1}: artifact payload does not match its md5 (corrupted or cut " \
           "short); shown as read" in first._source.problems


def test_empty_file_and_directory_without_traces(tmp_path):
    empty = tmp_path / "dedicated_log_torch_trace_empty.log"
    empty.write_text("")
    report = nbcompile.open_trace(empty)
    assert report.compiles == [] and report.problems == [f"{empty}: empty file (no trace events)"]

    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("hello")
    report = nbcompile.open_trace(other)
    assert report.compiles == []
    assert report.problems[0].startswith(f"{other / 'notes.txt'}: skipped (not a TORCH_TRACE log")
    assert report.problems[-1].startswith(f"{other}: no trace files in this directory")


@pytest.mark.slow
def test_non_trace_files_in_a_trace_directory_are_named(runs, tmp_path):
    directory = tmp_path / "job"
    shutil.copytree(runs("ddp_healthy"), directory)
    (directory / "stdout.txt").write_text("rank 0 done\n")
    (directory / "plain.log").write_text("INFO starting training\n")
    report = nbcompile.open_trace(directory)
    assert report.ranks == [0, 1] and len(report.compiles) == 2
    skipped = sorted(p.split(":")[0] for p in report.problems)
    assert skipped == [str(directory / "plain.log"), str(directory / "stdout.txt")]


@pytest.mark.slow
def test_unknown_events_are_counted_not_fatal(runs, tmp_path):
    log = _copy_log(runs, "failed", tmp_path)
    header = 'V1122 09:00:00.000000 1 torch/_future.py:1] '
    with log.open("a") as f:
        f.write(header + '{"future_event": {"x": 1}, "frame_id": 0, "frame_compile_id": 0, '
                         '"attempt": 0}\n')
        f.write(header + '{"future_event": {}, "has_payload": "00"}\n\tsome\n\tpayload\n')
        f.write(header + '{"future_event": {}, "frame_id": 7, "frame_compile_id": 0, '
                         '"attempt": 0}\n')  # no compile 7/0 is made of it
    report = nbcompile.open_trace(log)
    assert report.unknown_events == {"future_event": 3}
    assert report.problems == []
    assert [c.status for c in report.compiles] == ["failed"]
    assert "future_event x3" in report._repr_mimebundle_()["text/plain"]


@pytest.mark.slow
def test_reader_streams_payloads_on_demand(runs):
    log = TraceLog(_log_of(runs("failed")))
    events = list(log.events())
    assert log.strings and all(isinstance(k, int) for k in log.strings)
    with_payload = [e for e in events if e.payload is not None]
    assert with_payload and all(e.payload.length > 0 for e in with_payload)
    texts = [log.read_payload(e) for e in with_payload]
    assert log.problems == [] and all(not t.startswith("\t") for t in texts)


@pytest.mark.slow
def test_a_payload_over_the_cap_is_read_only_that_far(tmp_path, monkeypatch):
    from nbcompile.core.logs import files

    log = tmp_path / "dedicated_log_torch_trace_rank_0_a.log"
    shutil.copyfile(ROOT / "tests" / "fixtures" / "traces" / "graph_break.log", log)
    guards = nbcompile.open_trace(log).compile("0/0_1").guards
    assert len(guards) > 2000
    monkeypatch.setattr(files, "_MAX_PAYLOAD", 1000)
    capped = nbcompile.open_trace(log)
    cut = capped.compile("0/0_1").guards
    assert 0 < len(cut) < 1000 and guards.startswith(cut)
    assert any("payload of" in p and "only its first" in p for p in capped.problems)
    assert not any("does not match its md5" in p for p in capped.problems)


def test_progress_is_throttled_by_time(tmp_path, monkeypatch):
    from nbcompile.core.logs import files, run

    for i, name in enumerate(("graph_break.log", "recompile.log")):
        shutil.copyfile(ROOT / "tests" / "fixtures" / "traces" / name,
                        tmp_path / f"dedicated_log_torch_trace_rank_{i}_x.log")
    size = sum(p.stat().st_size for p in tmp_path.iterdir())
    monkeypatch.setattr(files, "_CHUNK", 4096)
    calls: list[tuple[int, int, int]] = []
    run.read_trace(tmp_path, progress=lambda *a: calls.append(a))
    assert calls == [(2, 2, size)]  # quick: only the end (every 0.25 s at most before it)
    monkeypatch.setattr(run, "PROGRESS_INTERVAL_S", 0.0)
    calls.clear()
    run.read_trace(tmp_path, progress=lambda *a: calls.append(a))
    assert len(calls) > size // 4096 and calls == sorted(calls) and calls[-1] == (2, 2, size)
    first = (tmp_path / "dedicated_log_torch_trace_rank_0_x.log").stat().st_size
    assert any(done == 1 and first < read < size for done, _, read in calls)  # in the 2nd
