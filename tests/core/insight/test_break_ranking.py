"""Graph breaks deduplicated across targets and compiles, ranked by measured time
outside graphs when a profile saw them, else by hits (real compiles)."""

from __future__ import annotations

import pytest

#: Compiles real code or runs child processes: not in the fast tier.
pytestmark = pytest.mark.slow


def test_published_target_carries_the_worded_status_and_hit_counts():
    """One rule, one place: the inspector reads these instead of recomputing them."""
    import json

    from nbcompile.display.summary_model import status_text
    from tests.fixtures import make_fixtures

    summary = json.loads((make_fixtures.HERE / "records" / "summary.json").read_text())
    gelu = next(t for t in summary["targets"] if t["name"] == "gelu_chain")
    assert gelu["status_text"] == "compiled"
    assert [gb["hits"] for gb in gelu["graph_breaks"]] == [2]  # compiles 0/0 and 0/1
    from nbcompile.core.records import TargetRecord

    rec = TargetRecord(id="t0", name="f", kind="function", status="not_compiled")
    assert status_text(rec) == "not compiled (runs eagerly)"
