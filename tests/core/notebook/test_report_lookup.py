"""nbcompile.report of an object no %%compile cell compiled is a clear error."""

from __future__ import annotations

import pytest

import nbcompile


def test_report_of_unknown_object_is_a_clear_error():
    with pytest.raises(LookupError, match="compile it in a %%compile cell"):
        nbcompile.report(lambda x: x)
