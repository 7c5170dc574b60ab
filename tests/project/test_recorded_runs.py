"""The committed recordings of the trace tests' runs (``tests/fixtures/traces/
recorded-runs.tar.xz``) are those of today's programs and torch pin: a program or the pin
changed without ``make recorded-runs`` fails here (the suite would record the runs live,
minutes slower, and say nothing). An archive recorded under another stamp is not used."""

from __future__ import annotations

import re

from tests.fixtures.traces import record_runs
from tests.support import ROOT


def _pinned_torch() -> str:
    """The torch version ``make setup`` installs (the Makefile's ``torch==X``)."""
    match = re.search(r"torch==([\w.]+)", (ROOT / "Makefile").read_text())
    assert match, "no torch pin in the Makefile"
    return match.group(1)


def test_the_archived_runs_are_of_todays_programs_and_torch_pin():
    stamped = record_runs.archived_stamp()
    assert stamped is not None, f"{record_runs.ARCHIVE} is missing: run `make recorded-runs`"
    assert stamped["programs"] == record_runs.programs_digest(), \
        "the runs' programs changed since they were recorded: run `make recorded-runs`"
    assert stamped["torch"].split("+")[0] == _pinned_torch(), \
        "recorded by another torch than the pin: run `make recorded-runs`"
    # the checkout it was recorded in, which the views' texts read as <root>
    assert (record_runs.recorded_root() or "").startswith("/")


def test_an_archive_of_another_stamp_is_not_unpacked(tmp_path, monkeypatch):
    stamped = record_runs.archived_stamp()
    assert stamped is not None
    monkeypatch.setattr(record_runs, "stamp", lambda: {**stamped, "torch": "0.0.0"})
    assert record_runs.unpack(tmp_path) is False
    assert list(tmp_path.iterdir()) == []


def test_an_archive_of_this_stamp_holds_every_runs_logs(tmp_path, monkeypatch):
    stamped = record_runs.archived_stamp()
    assert stamped is not None
    monkeypatch.setattr(record_runs, "stamp", lambda: stamped)
    assert record_runs.unpack(tmp_path) is True
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(record_runs.RUNS)
    for name in record_runs.RUNS:
        assert list((tmp_path / name).glob("*.log")), name
