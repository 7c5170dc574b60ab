"""Reading a suggestion of a ``suggest`` result."""

from __future__ import annotations


def _item(result, kind, needle=""):
    found = [s for s in result.items if s.kind == kind and needle in s.change]
    assert found, [(s.kind, s.change) for s in result.items]
    return found[0]
