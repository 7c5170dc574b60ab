"""%nbcompile cache save|load: a foreign artifacts file is refused without --trust, and
the options belong to their subcommands."""

from __future__ import annotations

import os

import pytest
from IPython.core.error import UsageError


def test_a_foreign_artifacts_file_is_refused_without_trust(ip, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    os.chmod(tmp_path, 0o700)
    foreign = tmp_path / "from-a-colleague.nbcompile-artifacts"
    foreign.write_bytes(b"a pickle would run code here")
    os.chmod(foreign, 0o666)
    with pytest.raises(UsageError, match="writable by group or others.*--trust"):
        ip.run_line_magic("nbcompile", f"cache load {foreign}")
    with pytest.raises(UsageError, match="no saved artifacts at .*unnamed-notebook"):
        ip.run_line_magic("nbcompile", "cache load")
    with pytest.raises(UsageError, match="--trust is for load"):
        ip.run_line_magic("nbcompile", "cache save --trust")
    with pytest.raises(UsageError, match=r"are for %nbcompile cache save\|load"):
        ip.run_line_magic("nbcompile", "cache --trust")
