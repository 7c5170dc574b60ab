"""``%nbcompile cache --dir`` in the real shell: a quoted path is the path, a special
tree is refused in words."""

from __future__ import annotations

import os

import pytest
from IPython.core.error import UsageError

from nbcompile.core.notebook import cache


def test_cache_magic_strips_quotes(tmp_path, ip, capsys, cache_state, monkeypatch):
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "quoted dir"
    ip.run_line_magic("nbcompile", f"cache --dir '{target}'")
    assert target.is_dir() and not (tmp_path / "'").exists()
    assert os.environ[cache.ENV] == str(target)
    ip.run_line_magic("nbcompile", f'cache --dir "{tmp_path / "double"}"')
    assert (tmp_path / "double").is_dir()
    with pytest.raises(UsageError, match="not a place for a compile cache"):
        ip.run_line_magic("nbcompile", "cache --dir /proc/nbcompile")
