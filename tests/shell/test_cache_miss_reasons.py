"""A cache miss explained across runs of a cell: a function's cell edited and run again
(a new file name, a new code object) is paired with the earlier compile of the same
function, and the miss names the cell line whose constant changed; torch's own cache
artifacts are the oracle (the FX graph key differs in the graph alone)."""

from __future__ import annotations

import json
import logging
import re

import pytest

from nbcompile.core.compiletime.history import kernel_frames
from tests.support.shell import run_cell

CELL = ("import torch\n"
        "def scaled_relu(x):\n"
        "    y = torch.relu(x) * {c}\n"
        "    return y + 1\n")
CALL = "torch.compile(scaled_relu)(torch.randn(8))\n"
_COMPONENT = re.compile(r"^\[(\w+)\] ([^:]+):", re.S)


class FxLookups(logging.Handler):
    """torch's own FX graph cache artifacts, as logged: (hit|miss, component -> hash)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.seen: list[tuple[str, dict[str, str]]] = []

    def emit(self, record: logging.LogRecord) -> None:
        artifact = getattr(record, "metadata", {}).get("artifact")
        name = artifact.get("name", "") if isinstance(artifact, dict) else ""
        if name.startswith("fx_graph_cache_"):
            data = json.loads(getattr(record, "payload", "") or "{}")
            parts = {m.group(2).strip(): m.group(1) for line in data.get("components", [])
                     if isinstance(line, str) and (m := _COMPONENT.match(line))}
            self.seen.append((name.rsplit("_", 1)[-1], parts))


@pytest.fixture
def torch_record(tmp_path, monkeypatch):
    # an empty Inductor cache: the first compiles miss whatever ran before
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "inductor"))
    handler = FxLookups()
    logger = logging.getLogger("torch.__trace")
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)


def test_an_edited_cell_names_the_line_whose_constant_changed(ip, torch_record):
    ip.run_cell(CELL.format(c=2), store_history=True).raise_error()
    run_cell(ip, CALL)
    first_code = ip.user_ns["scaled_relu"].__code__
    # the constant edited, the cell run again
    ip.run_cell(CELL.format(c=3), store_history=True).raise_error()
    run_cell(ip, CALL)
    edited = ip.user_ns["scaled_relu"].__code__
    assert edited.co_filename != first_code.co_filename

    # torch's record: both compiles missed, and their FX graph keys differ in the graph only
    (before_state, before), (after_state, after) = torch_record.seen
    assert (before_state, after_state) == ("miss", "miss")
    assert {n for n in set(before) | set(after) if before.get(n) != after.get(n)} == {"gm"}

    [frame] = kernel_frames(ip.user_ns["scaled_relu"])
    assert frame.filename == edited.co_filename
    # the FX graph cache's key differs in the graph only (torch 2.9's AOTAutograd cache
    # lists its key components too: its graph, the same change)
    assert [(c.layer, c.kind) for c in frame.key_changes if c.layer == "fx_graph"] == \
        [("fx_graph", "graph")]
    assert {c.kind for c in frame.key_changes} == {"graph"}
    line = f"{edited.co_filename}:3 `y = torch.relu(x) * 3`"
    assert f"FX graph cache missed: the graph differs at {line}" in frame.cache_note
    assert frame.cache_note.startswith("compared with scaled_relu's compile ")
    assert f"from an earlier version of its cell ({first_code.co_filename})" in frame.cache_note
    assert "nothing was cached under this key" not in frame.cache_note

    # the same text run again: a new file name, and torch's hit reads as a hit
    ip.run_cell(CELL.format(c=3), store_history=True).raise_error()
    run_cell(ip, CALL)
    again = ip.user_ns["scaled_relu"].__code__
    assert again.co_filename != edited.co_filename
    assert torch_record.seen[-1][0] == "hit"
    [frame] = kernel_frames(ip.user_ns["scaled_relu"])
    assert not frame.key_changes
    assert "FX graph cache hit" in frame.cache_note and "missed" not in frame.cache_note
    assert f"from an earlier run of its cell ({edited.co_filename})" in frame.cache_note
