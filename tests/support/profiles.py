"""Checks every profile must pass: time accounting adds up, and the published record
validates within its budget."""

from __future__ import annotations

import json

import pytest

import nbcompile
from nbcompile.core.perf.profile.record import Profile
from nbcompile.display.profile import profile_bundle
from tests.support.schema import VALIDATOR


def _check_accounting(p: Profile) -> None:
    """The structural identity: the parts add up to the wall time, or the
    profile says what is missing and how much."""
    parts = sum(k.total_s for k in p.kernels) / p.repeat + p.outside_graphs_s + p.overhead_s
    within = abs(parts - p.wall_s) <= 0.10 * p.wall_s
    assert p.accounted == within
    if not within:
        assert any("missing" in n and "ms" in n for n in p.notes), p.notes


def _check_profile(p: Profile, repeat: int) -> None:
    assert p.repeat == repeat and p.wall_s > 0 and p.eager_wall_s > 0
    assert p.kernels and all(k.calls >= repeat and k.total_s > 0 for k in p.kernels)
    assert all(k.mean_s == pytest.approx(k.total_s / k.calls) for k in p.kernels)
    assert sum(k.share for k in p.kernels) == pytest.approx(1.0)
    assert p.kernel_s == pytest.approx(sum(k.total_s for k in p.kernels) / repeat)
    _check_accounting(p)
    data = p.to_dict()
    assert data["record"] == "profile" and data["schema_version"] == nbcompile.SCHEMA_VERSION
    assert {"speedup", "compiled_s", "eager_s", "kernels"} <= set(data["lines"][0])
    bundle = profile_bundle(p)
    assert set(bundle) == {nbcompile.MIME_TYPE, "text/html", "text/plain"}
    VALIDATOR.validate(json.loads(json.dumps(bundle[nbcompile.MIME_TYPE])))  # closed schema
