"""The record contract: fixtures and fresh records validate against the v1 JSON Schema,
and the committed fixtures (read by the TypeScript tests) match what Python produces."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from .fixtures import make_fixtures
from .test_magic_inprocess import SCHEMA

FIXTURES = Path(__file__).parent / "fixtures" / "records"


def _key_paths(value, prefix="") -> set[str]:
    """Every key path in a JSON value (list items merged), e.g. targets[].kernels[].name."""
    paths: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("options", "cache", "times", "phases"):
                paths.add(f"{prefix}.{key}")  # free-form maps
                continue
            paths.add(f"{prefix}.{key}")
            paths |= _key_paths(item, f"{prefix}.{key}")
    elif isinstance(value, list):
        for item in value:
            paths |= _key_paths(item, f"{prefix}[]")
    return paths


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.json")), ids=lambda p: p.name)
def test_committed_fixtures_validate(path):
    jsonschema.validate(json.loads(path.read_text()), SCHEMA)


def test_fresh_records_match_committed_fixture(ip):
    fresh = make_fixtures.build()
    jsonschema.validate(fresh, SCHEMA)
    committed = json.loads((FIXTURES / "summary.json").read_text())
    missing = _key_paths(fresh) - _key_paths(committed)
    assert not missing, (
        f"records gained fields the fixture lacks: {sorted(missing)}; "
        "run python tests/fixtures/make_fixtures.py"
    )


def test_schema_rejects_a_wrong_record():
    bad = {"schema_version": 1, "record": "summary", "cell": {}, "updated_at": 0,
           "targets": [{"schema_version": 1, "record": "target", "name": "x"}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, SCHEMA)
