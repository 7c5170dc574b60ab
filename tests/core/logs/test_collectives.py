"""Collective order across ranks: each compile's ``inductor_collective_schedule`` read from
the ranks' logs and compared per compile id (a ``collectives`` divergence). Real two-rank
``torchrun`` jobs on gloo (CPU), checked against the schedules read from the logs' own text;
and written logs for what torch does not write (uneven and malformed schedules)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import nbcompile
from nbcompile.__main__ import main as cli
from nbcompile.core.records import MIME_TYPE
from tests.support.trace_logs import IDS, compile_events, event, write_log

ALL_REDUCE = "torch.ops._c10d_functional.all_reduce_.default"
ALL_GATHER = "torch.ops._c10d_functional.all_gather_into_tensor.default"
WAIT = "torch.ops._c10d_functional.wait_tensor.default"


def logged_schedules(directory: Path) -> dict[int, dict[str, list[str]]]:
    """The oracle: rank -> compile id -> its schedules' collectives, in log order, read from
    the log text itself (each ``inductor_collective_schedule`` header's ids and the JSON
    list in its tab-indented payload lines)."""
    out: dict[int, dict[str, list[str]]] = {}
    for log in sorted(directory.glob("*.log")):
        found = re.search(r"_rank_(\d+)_", log.name)
        assert found, log.name
        rank = int(found.group(1))
        lines = log.read_text().splitlines()
        for i, line in enumerate(lines):
            if '"inductor_collective_schedule"' not in line:
                continue
            md = json.loads(line.split("] ", 1)[1])
            payload = []
            for more in lines[i + 1:]:
                if not more.startswith("\t"):
                    break
                payload.append(more[1:])
            cid = f"{md['frame_id']}/{md['frame_compile_id']}" + \
                (f"_{md['attempt']}" if md["attempt"] else "")
            out.setdefault(rank, {}).setdefault(cid, []).extend(json.loads("\n".join(payload)))
    return out


def short(name: str) -> str:
    return name.removeprefix("torch.ops.").split(".")[1]


# --- real runs ---
@pytest.mark.slow
def test_ranks_with_the_same_collectives_agree(runs):
    directory = runs("collectives")
    logged = logged_schedules(directory)
    # what torch 2.13 logged: both ranks, one compile, all_gather then all_reduce
    assert set(logged) == {0, 1} and logged[0] == logged[1]
    (cid,) = logged[0]
    assert [op for op in logged[0][cid] if op != WAIT] == [ALL_GATHER, ALL_REDUCE]
    report = nbcompile.open_trace(directory)
    assert report.problems == []
    for c in report.compiles:
        assert c.rank is not None
        assert c.collectives == logged[c.rank].get(c.compile_id, [])
    assert report.divergences == []  # a process group's own type ids are no divergence
    record = report.to_dict()
    assert record["compiles"][0]["collectives"] == logged[0][cid]


@pytest.mark.slow
def test_rank_taking_another_branch_diverges_in_collectives(runs, capsys, tmp_path):
    directory = runs("collectives_branch")
    logged = logged_schedules(directory)
    (cid,) = set(logged[0]) & set(logged[1])
    a, b = logged[0][cid], logged[1][cid]
    assert a != b  # the oracle: the two ranks' logs disagree
    first = next(i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y)

    report = nbcompile.open_trace(directory)
    assert [(c.rank, c.collectives) for c in report.compiles if c.compile_id == cid] == \
        [(0, a), (1, b)]
    (div,) = [d for d in report.divergences if d.kind == "collectives"]
    assert div.groups == [[0], [1]] and div.compile_id == cid
    assert report.divergences[0] is div  # named first: the hang's cause
    assert (f"at compile {cid}: collective {first + 1} is {short(a[first])} on rank 0 but "
            f"{short(b[first])} on rank 1") in div.detail
    assert f"rank 0: {', '.join(map(short, a))}; rank 1: {', '.join(map(short, b))}" \
        in div.detail

    bundle = report._repr_mimebundle_()
    assert [d["kind"] for d in bundle[MIME_TYPE]["divergences"]][0] == "collectives"
    assert "DIVERGENCE collectives (rank groups 0 | 1)" in bundle["text/plain"]
    html = bundle["text/html"]
    assert "<b>collectives</b>" in html and "border:2px solid #c62828" in html  # grid marked

    page = tmp_path / "trace.html"
    assert cli(["open", str(directory), "--html", str(page)]) == 0
    out = capsys.readouterr().out
    assert f"DIVERGENCE collectives (rank groups 0 | 1): the collectives differ at compile " \
           f"{cid}" in out
    assert "<b>collectives</b>" in page.read_text()


# --- written logs ---
def _schedule(ops: object, frame: int = 0) -> str:
    return event({"artifact": {"name": "inductor_collective_schedule", "encoding": "json"},
                  **{**IDS, "frame_id": frame}}, json.dumps(ops))


def _job(tmp_path: Path, rank0: list[str], rank1: list[str]) -> Path:
    for rank, extra in ((0, rank0), (1, rank1)):
        write_log(tmp_path / f"dedicated_log_torch_trace_rank_{rank}_x.log",
                  compile_events(extra=extra))
    return tmp_path


def test_a_rank_that_issues_fewer_collectives_is_named(tmp_path):
    two = [_schedule([ALL_REDUCE, WAIT])]
    report = nbcompile.open_trace(_job(tmp_path, two + [_schedule([ALL_GATHER, None])], two))
    assert report.compile("0/0", rank=0).collectives == \
        [ALL_REDUCE, WAIT, ALL_GATHER, "(unnamed)"]  # a graph's schedules, in log order
    (div,) = report.divergences
    assert div.kind == "collectives" and div.compile_id == "0/0"
    assert "rank 0 issues collective 3 (all_gather_into_tensor) but rank 1 issues only 2" \
        in div.detail

    none = nbcompile.open_trace(_job(tmp_path, [], [_schedule([ALL_REDUCE])]))
    assert "rank 1 issues collective 1 (all_reduce_) but rank 0 issues none" in \
        none.divergences[0].detail


def test_a_malformed_schedule_is_a_problem_note_not_a_divergence_source(tmp_path):
    bad = [_schedule({"not": "a list"}), _schedule([1, 2]),
           event({"artifact": {"name": "inductor_collective_schedule"}, **IDS}, "[[[" * 5000)]
    report = nbcompile.open_trace(_job(tmp_path, bad, []))
    assert [c.collectives for c in report.compiles] == [[], []]
    assert report.divergences == []
    notes = [p for p in report.problems if "not a JSON list of collective names" in p]
    assert len(notes) == 3 and all("rank_0_x.log:" in p for p in notes)


def test_agreeing_ranks_and_one_process_show_no_collectives_divergence(tmp_path):
    same = [_schedule([ALL_GATHER, WAIT, ALL_REDUCE, WAIT])]
    assert nbcompile.open_trace(_job(tmp_path, same, same)).divergences == []
    (tmp_path / "one").mkdir()
    single = write_log(tmp_path / "one" / "dedicated_log_torch_trace_x.log",
                       compile_events(extra=same))
    assert nbcompile.open_trace(single).compiles[0].collectives == \
        [ALL_GATHER, WAIT, ALL_REDUCE, WAIT]


def test_a_rank_that_hit_the_cache_logged_no_schedule_and_is_left_out(tmp_path):
    hit = event({"artifact": {"name": "fx_graph_cache_hit", "encoding": "json"}, **IDS}, "{}")
    miss = event({"artifact": {"name": "fx_graph_cache_miss", "encoding": "json"}, **IDS}, "{}")
    report = nbcompile.open_trace(_job(tmp_path, [miss, _schedule([ALL_REDUCE, WAIT])], [hit]))
    assert [d.kind for d in report.divergences] == ["cache"]  # not a collectives one
