"""Helpers for tests that drive the in-process IPython shell (the ``ip`` fixture)."""

from __future__ import annotations


def run_cell(ip, source: str):
    """Run a cell like the notebook does; raise if it failed."""
    result = ip.run_cell(source)
    result.raise_error()
    return result
