"""TORCH_TRACE logs are untrusted input: ``%nbcompile open`` in the real shell reads
source lines only under an explicit ``--source-root``. The reader's own checks are in
``tests/core/logs/test_trace_hostile.py``.
"""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

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
