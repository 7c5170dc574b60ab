"""What the Compile inspector asks the kernel for: a target's whole record, the records of
every target the kernel holds, and the targets a saved inspector shows, found again.

Published outputs fit the output budget (cut lists carry ``omitted`` marks); the kernel
keeps everything. When the inspector shows a cut record and the kernel is live, it asks
over the comm target of ``magics/inspector_comm.py``, which answers with
``whole_record(id)``'s payload. When the sidebar (re)connects to a running kernel (a page
reloaded), it asks the same way for ``held_records()``. An inspector drawn from a saved
output (its widget gone with the kernel that drew it) asks with ``again()``: the targets
it shows, named by their cell and name (target ids are per kernel), read as this kernel
holds them now, with the sentence its view shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.notebook.capture.session import get_session
from ..core.notebook.capture.snapshot import target_record
from ..core.notebook.targets.target_state import Target
from ..core.records import MIME_TYPE
from .budget import WHOLE_RECORD_BUDGET, output_budget
from .payload import summary_payload

#: Targets told to a reconnecting inspector (the latest ones, when a kernel holds more).
MAX_HELD = 200

#: The label of a saved inspector's button that asks the kernel for its targets.
AGAIN_LABEL = "Inspect again"
#: What the kernel says when it holds none of the targets a saved inspector shows.
NOT_HELD = ("The kernel does not hold this target yet: run the cells that compile it, then "
            f"{AGAIN_LABEL}.")
#: What it says when it holds them all (read now, so later compiles wait for the button).
HELD_NOW = (f"Read from the running kernel as it holds the target now: {AGAIN_LABEL} reads "
            "it again after later compiles.")
#: Targets a saved inspector asks for at most (a summary of a whole cell can list many).
MAX_AGAIN = 20

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


@dataclass(frozen=True)
class SavedTarget:
    """A target a saved inspector shows, as a later kernel can find it: by the cell that
    compiled it (its id, when the front end told one) and its name."""

    name: str
    cell_id: str | None

    @classmethod
    def parse(cls, value: object) -> SavedTarget | None:
        """A request's entry ``{"name": str, "cell_id": str | None}``, else ``None``."""
        if not isinstance(value, dict):
            return None
        name, cell_id = value.get("name"), value.get("cell_id")
        if not isinstance(name, str) or not 0 < len(name) <= 200:
            return None
        if cell_id is not None and (not isinstance(cell_id, str) or len(cell_id) > 200):
            return None
        return cls(name, cell_id or None)

    def find(self) -> Target | None:
        """This kernel's latest target of that name compiled by that cell (by name alone
        when no cell id was told)."""
        return next((t for t in reversed(get_session().targets) if t.name == self.name
                     and (self.cell_id is None or t.cell.cell_id == self.cell_id)), None)


@dataclass(frozen=True)
class Again:
    """The answer to a saved inspector's request: the whole record of each target found,
    and the sentence its view shows."""

    records: list[WholeRecord]
    text: str


def again(wanted: list[SavedTarget]) -> Again:
    """The targets ``wanted`` (the first ``MAX_AGAIN``) as this kernel holds them now."""
    wanted = wanted[:MAX_AGAIN]
    found = [t for t in (w.find() for w in wanted) if t is not None]
    records = [whole_record(t.id) for t in found]
    held = [r for r in records if r is not None]
    if not held:
        return Again([], NOT_HELD)
    if len(held) < len(wanted):
        return Again(held, (f"The kernel holds {len(held)} of the {len(wanted)} targets shown "
                            "(read now); run the cells that compile the others, then "
                            f"{AGAIN_LABEL}."))
    return Again(held, HELD_NOW)


def held_records() -> list[dict[str, Any]]:
    """The record of each target this kernel holds now (the latest ``MAX_HELD``), one
    payload each with its cell, within the output budget like a published record."""
    targets = get_session().targets[-MAX_HELD:]
    records = [target_record(t) for t in targets]
    return [summary_payload([r], r.cell.to_dict(), budget=output_budget()) for r in records]
