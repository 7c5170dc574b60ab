"""A finished compile placed in the notebook: the cell run that made the call, and for a
recompile the cell runs since the frame's previous compile that changed what its failed
guard reads (``cell_history``)."""

from __future__ import annotations

from ...records import CompileRecord
from ..cells.cell_history import get_history
from ..targets.target_state import Target


def place(record: CompileRecord, target: Target) -> None:
    """``record``'s ``cell``, and for a recompile its ``changed_by`` and ``changes``, from
    the kernel's cell history (once: a compile shared by targets is placed by the first)."""
    history = get_history()
    if not record.place(history.current(), history.run):
        return
    if not (record.recompile_reason or record.recompile_guard):
        return
    frame = record.compile_id.split("/", 1)[0]
    previous = [c for c in target.compiles if c is not record
                and c.compile_id.split("/", 1)[0] == frame]
    since = previous[-1].cell_run if previous else -1
    compiled_in = {c.compile_id: c.cell for c in previous}
    for version in record.failed_versions:  # the cell whose call compiled each version
        version.cell = compiled_in.get(version.compile_id, version.cell)
    changes = history.changes_for(record.recompile_guard, record.recompile_reason, since)
    record.changed_by = sorted({c.cell for c in changes if c.cell is not None})
    record.changes = list(dict.fromkeys(c.words() for c in changes))
