"""The record schema (record-v1) and validation against it."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

import nbcompile

SCHEMA = json.loads(
    (Path(nbcompile.__file__).parent / "schema" / "record-v1.schema.json").read_text()
)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def _validate(record: dict) -> None:
    """Validate the record as JSON (what a notebook saves) against the closed schema."""
    VALIDATOR.validate(json.loads(json.dumps(record)))


def _errors(record: dict) -> list[str]:
    return [e.message for e in VALIDATOR.iter_errors(json.loads(json.dumps(record)))]
