"""Ctrl-C while a big TORCH_TRACE directory is read: ``open_trace``,
``python -m nbcompile open`` and ``%nbcompile open`` stop at once and keep the files read
whole, marked interrupted, the first problem naming the files not read.

The directories are generated in ``tmp_path``: a compile at the top of each rank's log,
then megabytes of small header-only events (``guard_added_fast``), the densest work for
the reader (every header is decoded), so a few hundred MB take seconds to read.
"""

from __future__ import annotations

import pytest

import nbcompile
from nbcompile.core.logs import run
from nbcompile.core.logs.paths import rank_from_name
from nbcompile.core.logs.run import TraceInterrupted, read_trace
from nbcompile.core.records import MIME_TYPE
from nbcompile.core.steps import Interrupted
from nbcompile.display.trace import published_trace, trace_html, trace_text
from tests.support.trace_logs import write_trace_dir

HEADER = "V1122 09:00:00.000000 1 torch/_dynamo/guards.py:1] "




def _stop_after(files_done: int):
    """A ``progress`` callback that presses Ctrl-C (raises ``KeyboardInterrupt`` in the
    reading thread, as SIGINT does) once ``files_done`` files are read."""
    def progress(done: int, total: int, read: int) -> None:
        if done >= files_done:
            raise KeyboardInterrupt
    return progress


def test_ctrl_c_keeps_the_files_read_whole_and_names_the_rest(tmp_path, monkeypatch):
    monkeypatch.setattr(run, "PROGRESS_INTERVAL_S", 0.0)  # told after every block
    directory = write_trace_dir(tmp_path / "trace", files=12, mb_per_file=1)
    with pytest.raises(TraceInterrupted) as caught:
        read_trace(directory, progress=_stop_after(2))
    assert isinstance(caught.value, Interrupted) and isinstance(caught.value, KeyboardInterrupt)
    partial = caught.value.partial
    assert partial.interrupted is True
    order = sorted(directory.iterdir())  # the order files are read in
    ranks = [rank_from_name(p) for p in order]
    assert [c.function for c in partial.compiles] == [f"f{r}" for r in ranks[:2]]  # not the 3rd
    assert partial.ranks == sorted(ranks[:2]) and len(partial.files) == 2
    assert partial.bytes_read == sum(p.stat().st_size for p in order[:2])
    note = partial.problems[0]
    assert note.startswith("interrupted (Ctrl-C) after 2 of 12 files, ")
    assert f"files not read: {order[2].name} (partly read), {order[3].name}, " in note
    assert note.count(".log") == 5 and "(and 5 more)" in note  # bounded
    assert str(directory) not in note  # names, not paths
    record = partial.to_dict()
    assert record["interrupted"] is True and record["problems"][0] == note
    assert published_trace(partial)["interrupted"] is True
    assert "INTERRUPTED, partial: 2 compile(s)" in trace_text(partial)
    assert "interrupted, partial" in trace_html(partial)


def test_a_whole_read_is_not_marked(tmp_path):
    report = nbcompile.open_trace(write_trace_dir(tmp_path / "trace", files=2),
                                  progress=lambda *a: None)
    assert report.interrupted is False and report.to_dict()["interrupted"] is False
    assert not report.problems and len(report.compiles) == 2
    assert "INTERRUPTED" not in trace_text(report) and "interrupted" not in trace_html(report)


def test_open_trace_raises_with_the_partial_report(tmp_path, monkeypatch):
    monkeypatch.setattr(run, "PROGRESS_INTERVAL_S", 0.0)
    directory = write_trace_dir(tmp_path / "trace", files=3, mb_per_file=1)
    with pytest.raises(TraceInterrupted) as caught:
        nbcompile.open_trace(directory, progress=_stop_after(1))
    partial = caught.value.partial
    assert isinstance(partial, nbcompile.TraceReport)  # with its rich reprs
    bundle = partial._repr_mimebundle_()
    assert bundle[MIME_TYPE]["interrupted"] is True
    assert bundle[MIME_TYPE]["problems"][0].startswith("interrupted (Ctrl-C) after 1 of 3 files")
    assert "INTERRUPTED, partial" in bundle["text/plain"]
