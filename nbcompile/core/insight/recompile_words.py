"""A recompile in words (``Recompile.text``): torch's reason, then who changed what the
guard reads and the call that paid for it, then the compiled versions torch tried. Written
once here; the summary under the cell and the inspector (sidebar and widget) show it."""

from __future__ import annotations

from ..records import Recompile


def recompile_text(rc: Recompile) -> str:
    """A recompile's reason, then the cells: who changed what the guard reads, and the
    call that paid for it (``cell [7] set SCALE = 0.5; the call in cell [9] recompiled``)."""
    tried = versions_text(rc)
    if rc.cell is None:
        return rc.reason + tried
    who = ("; ".join(rc.changes) if rc.changes
           else "which cell changed what it reads is not known (not a global or a "
                "module's mode that a cell set)")
    return f"{rc.reason} — {who}; the call in cell [{rc.cell}] recompiled{tried}"


def versions_text(rc: Recompile) -> str:
    """The compiled versions torch tried, each with its own failed guard and the cell
    whose call compiled it (``""`` for one version, or none named)."""
    if len(rc.failed_versions) < 2:
        return ""
    each = "; ".join(
        v.compile_id + (f" (compiled in cell [{v.cell}])" if v.cell is not None else "")
        + f": {v.guard}" for v in rc.failed_versions)
    return f". torch tried {len(rc.failed_versions)} compiled versions: {each}"
