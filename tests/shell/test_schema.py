"""The record contract: the schema and the docs tables are generated from the dataclasses
(and fail here when stale), the schema is closed, real records from real compiles
validate, and records saved by an older nbcompile still validate."""

from __future__ import annotations

import json

import pytest
import torch

import nbcompile
from nbcompile.core.records import MIME_TYPE
from nbcompile.display import summary_bundle
from nbcompile.schema import generate
from tests.fixtures import make_fixtures
from tests.support import ROOT
from tests.support.schema import _errors, _validate
from tests.support.shell import run_cell

FIXTURES = ROOT / "tests" / "fixtures" / "records"

SCHEMA = json.loads(generate.SCHEMA_PATH.read_text())


CELL = '''import torch
def breaks_and_recompiles(x):
    y = torch.cos(x) + 1
    print("graph break here")
    return torch.relu(y) * 3
net = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.Tanh())
'''






@pytest.fixture(scope="module")
def compiled(ip):
    """A function with a graph break and a recompile (float32, then float64), a module."""
    ip.run_cell_magic("compile", "", CELL)
    run_cell(ip, "x = torch.randn(8, 16)\nbreaks_and_recompiles(x); net(x)\n"
                 "breaks_and_recompiles(x.double())")
    return [nbcompile.report(ip.user_ns[name]) for name in ("breaks_and_recompiles", "net")]


def test_real_target_records_validate(compiled):
    fn, module = compiled
    assert fn.graph_break_count >= 1 and fn.recompile_count >= 1
    assert module.kind == "module" and module.status == "compiled"
    for rep in compiled:
        data = rep.to_dict()
        _validate(data)
        assert any(c["output_code_path"] for c in data["compiles"])
        assert all(c["started_at"] > 0 for c in data["compiles"])


def test_real_summary_record_validates(compiled):
    payload = summary_bundle(compiled)[MIME_TYPE]
    assert payload["record"] == "summary" and len(payload["targets"]) == 2
    _validate(payload)


def test_kernel_count_counts_kernels_that_run_and_code_pieces_count_all(compiled):
    for rep in compiled:
        data = rep.to_dict()
        kinds = [k["kind"] for k in data["kernels"]]
        assert data["kernel_count"] == kinds.count("kernel") >= 1
        assert data["code_piece_count"] == len(kinds) > data["kernel_count"]  # + wrappers
        assert f"{rep.code_piece_count} code piece(s)" in repr(rep)
        text = summary_bundle([rep])["text/plain"]
        assert f"{rep.kernel_count} kernel(s)" in text


def test_real_timing_record_validates(ip):
    def scaled(x):
        return torch.sigmoid(x) * 2 + 1

    comparison = nbcompile.compare(scaled, torch.randn(64, 64), modes=["default"],
                                   budget_s=0.2)
    data = comparison.to_dict()
    assert data["record"] == "timing" and [r["mode"] for r in data["rows"]] == [
        "eager", "default"]
    _validate(data)
    data["rows"][1]["speed"] = 1.0
    assert any("speed" in m for m in _errors(data))


def test_fresh_records_match_committed_fixture(ip):
    fresh = make_fixtures.build()
    _validate(fresh)
    committed = json.loads((FIXTURES / "summary.json").read_text())
    assert _key_paths(fresh) == _key_paths(committed), (
        "records changed shape since the fixture: run python tests/fixtures/make_fixtures.py"
    )


def _key_paths(value, prefix="") -> set[str]:
    """Every key path in a JSON value (list items merged), e.g. .targets[].kernels[].name;
    free-form maps (options, cache, times, phases, cell_names) count as one path."""
    paths: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            paths.add(f"{prefix}.{key}")
            if key not in ("options", "cache", "times", "phases", "environment", "cell_names"):
                paths |= _key_paths(item, f"{prefix}.{key}")
    elif isinstance(value, list):
        for item in value:
            paths |= _key_paths(item, f"{prefix}[]")
    return paths
