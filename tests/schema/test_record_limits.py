"""The front end's size cap is the kernel's: the largest output budget is
published in the generated schema, and no budget above it is accepted."""

from __future__ import annotations

import json

import pytest

from nbcompile.display import budget
from nbcompile.schema.generate import SCHEMA_PATH, build_schema


def test_the_schema_publishes_the_kernels_largest_outputs():
    limits = build_schema()["x-nbcompile-limits"]
    assert limits["max_record_bytes"] == budget.MAX_OUTPUT_BUDGET
    assert limits["max_whole_record_bytes"] == budget.WHOLE_RECORD_BUDGET
    assert limits["default_output_budget"] == budget.DEFAULT_OUTPUT_BUDGET
    # the committed schema (read by the labextension's validator) says the same
    assert json.loads(SCHEMA_PATH.read_text())["x-nbcompile-limits"] == limits


def test_no_output_budget_above_the_largest_is_accepted():
    try:
        assert budget.set_output_budget("8M") == budget.MAX_OUTPUT_BUDGET
        with pytest.raises(ValueError, match=r"too large: at most 8M"):
            budget.set_output_budget("9M")
        with pytest.raises(ValueError, match=r"too large"):
            budget.set_output_budget(budget.MAX_OUTPUT_BUDGET + 1)
        assert budget.output_budget() == budget.MAX_OUTPUT_BUDGET  # refused: unchanged
    finally:
        budget.set_output_budget(budget.DEFAULT_OUTPUT_BUDGET)


def test_fit_list_cuts_to_the_budget_and_says_how_many():
    data = {"items": [{"x": "y" * 100} for _ in range(1000)], "notes": []}
    budget.fit_list(data, "items", 20_000, "s.items")
    assert budget.json_size(data) <= 20_000
    left_out = 1000 - len(data["items"])
    assert data["notes"] == [f"{left_out} more items left out of this output (output budget): "
                             "s.items"]
