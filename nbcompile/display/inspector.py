"""What the Compile inspector asks the kernel for: a target's whole record, and the
records of every target the kernel holds.

Published outputs fit the output budget (cut lists carry ``omitted`` marks); the kernel
keeps everything. When the inspector shows a cut record and the kernel is live, it asks
over the comm target of ``magics/inspector_comm.py``, which answers with
``whole_record(id)``'s payload. When the sidebar (re)connects to a running kernel (a page
reloaded), it asks the same way for ``held_records()``.
"""

from __future__ import annotations

from typing import Any

from ..core.notebook.capture.session import get_session
from ..core.notebook.capture.snapshot import target_record
from ..core.notebook.targets.target_state import Target
from ..core.records import MIME_TYPE
from .budget import WHOLE_RECORD_BUDGET, output_budget
from .payload import summary_payload

#: Targets told to a reconnecting inspector (the latest ones, when a kernel holds more).
MAX_HELD = 200

#: Bytes of one whole record sent to the inspector (the front end accepts this much in
#: its reply): generous, since it is never saved in the notebook.
WHOLE_BUDGET = WHOLE_RECORD_BUDGET


class WholeRecord:
    """A target's record within ``WHOLE_BUDGET`` instead of the output budget."""

    def __init__(self, payload: dict[str, Any]) -> None:
        self.payload = payload

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return {MIME_TYPE: self.payload, "text/plain": "<nbcompile record>"}


def _target(target_id: str) -> Target | None:
    session = get_session()
    return next((t for t in (*session.targets, *session.replaced) if t.id == target_id),
                None)


def live_bundle(target_id: str) -> dict[str, Any] | None:
    """The report bundle of the target with ``id`` as this kernel holds it now (what
    ``report(f)`` displays), or ``None``: a snapshot refreshed."""
    from .report_html import report_bundle

    target = _target(target_id)
    return report_bundle(target_record(target)) if target is not None else None


def whole_record(target_id: str) -> WholeRecord | None:
    """The record of the target with ``id`` (``"t3"``) in this kernel, or ``None``."""
    target = _target(target_id)
    if target is None:
        return None
    record = target_record(target)
    return WholeRecord(summary_payload([record], record.cell.to_dict(), budget=WHOLE_BUDGET,
                                       text_caps=False))


def held_records() -> list[dict[str, Any]]:
    """The record of each target this kernel holds now (the latest ``MAX_HELD``), one
    payload each with its cell, within the output budget like a published record."""
    targets = get_session().targets[-MAX_HELD:]
    records = [target_record(t) for t in targets]
    return [summary_payload([r], r.cell.to_dict(), budget=output_budget()) for r in records]
