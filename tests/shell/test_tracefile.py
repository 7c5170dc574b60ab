"""Opening TORCH_TRACE runs: real torchrun (gloo, 2 ranks) and script traces, bad input,
the ``%nbcompile open`` magic and ``python -m nbcompile open``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from IPython.core.error import UsageError

import nbcompile
from tests.fixtures.traces import record_runs
from tests.support.shell import run_cell

PROGRAM = Path(record_runs.__file__).with_name("breaks_program.py")




def _graph_code(graph: str) -> list[str]:
    """FX graph lines without comments (file names and line numbers differ by path)."""
    return [ln.strip() for ln in graph.splitlines()
            if ln.strip() and not ln.strip().startswith("#")]


def test_script_trace_matches_live_compile(runs, ip):
    """The same code: run as a script under TORCH_TRACE, and live through %%compile."""
    report = nbcompile.open_trace(runs("breaks"))
    source = PROGRAM.read_text()
    definition, calls = source.split("step = torch.compile(step)\n")
    ip.run_cell_magic("compile", "", definition)
    run_cell(ip, calls)
    live = nbcompile.report(ip.user_ns["step"])

    trace_breaks = {(b.reason, b.lineno, b.line) for c in report.compiles for b in c.graph_breaks}
    # in the notebook the cell's first line is "%%compile": its lines count from there
    live_breaks = {(b.reason, b.lineno - 1, b.line) for b in live.graph_breaks}
    assert trace_breaks == live_breaks
    assert {(ln, text) for _, ln, text in trace_breaks} == {(10, 'print("checkpoint")')}

    trace_reasons = {c.recompile_reason for c in report.compiles if c.recompile_reason}
    assert trace_reasons == {r.reason for r in live.recompiles}
    assert any("SCALE" in r for r in trace_reasons)

    trace_graphs = [_graph_code(g) for c in report.compiles for g in c.graphs]
    live_graphs = [_graph_code(g) for c in live.compiles for g in c.graphs]
    assert len(trace_graphs) == 5
    assert trace_graphs == live_graphs
    statuses = [c.status for c in report.compiles]
    assert statuses.count("restarted") == 3 and statuses.count("compiled") == 5
    assert report.compile("0/0").fail_reason.startswith("Failed to trace builtin operator")
    assert report.compile("0/0_1").graphs


# --- bad input: a note, never a crash, everything readable still shown ---
def test_missing_path_is_a_clear_file_not_found(tmp_path, ip):
    missing = tmp_path / "no-such-dir"
    with pytest.raises(FileNotFoundError, match="no such trace file or directory: .*no-such-dir"):
        nbcompile.open_trace(missing)
    with pytest.raises(UsageError, match="%nbcompile open: no such trace file"):
        ip.run_line_magic("nbcompile", f"open {missing}")


# --- the magic and the command line ---
def test_magic_shows_the_report(runs, ip, capsys):
    ip.run_line_magic("nbcompile", f"open {runs('ddp_divergent')}")
    out = capsys.readouterr().out
    assert "DIVERGENCE compile_ids" in out and "rank 1 compiled 0/1" in out
    with pytest.raises(UsageError, match="give a TORCH_TRACE log file or directory"):
        ip.run_line_magic("nbcompile", "open")


def test_magic_takes_a_quoted_path_with_spaces(runs, ip, capsys, tmp_path):
    spaced = tmp_path / "my job"
    shutil.copytree(runs("failed"), spaced)
    ip.run_line_magic("nbcompile", f'open "{spaced}"')
    out = capsys.readouterr().out
    assert "1 compile(s)" in out and "failed" in out
