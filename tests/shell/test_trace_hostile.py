"""TORCH_TRACE logs are untrusted input.

``nbcompile.open_trace``, ``%nbcompile open`` and ``python -m nbcompile open`` must read
hostile logs without crashing, hanging or reading any local file but the logs in the
directory (no source line looked up on disk unless ``source_root=`` says where), escape
what reaches a terminal, and keep only documentation links. One test per finding, then a
fuzz over generated hostile directories (in-process and on the command line). The
``%nbcompile cache --dir`` checks are at the end.
"""

from __future__ import annotations

import os

import pytest
from IPython.core.error import UsageError

from nbcompile.core.notebook import cache
from tests.support.trace_logs import (
    break_artifact,
    break_payload,
    compile_events,
    write_log,
)


# --- the magic ------------------------------------------------------------------------------
def test_magic_open_with_a_source_root(tmp_path, ip, capsys, secret):
    src = tmp_path / "my src"
    src.mkdir()
    (src / "prog.py").write_text("a = 1\nprint('rooted')\n")
    log = write_log(tmp_path / "dedicated_log_torch_trace_rank_0_a.log",
                    compile_events(extra=[break_artifact(break_payload("/x/prog.py", 2))]))
    ip.run_line_magic("nbcompile", f"open {log} --source-root '{src}'")
    assert "print('rooted')" in capsys.readouterr().out
    ip.run_line_magic("nbcompile", f"open {log}")
    assert "print('rooted')" not in capsys.readouterr().out
    with pytest.raises(UsageError, match="--source-root belongs to"):
        ip.run_line_magic("nbcompile", f"cache --source-root '{src}'")




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
