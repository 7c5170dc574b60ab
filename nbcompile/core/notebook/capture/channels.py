"""Side channels: what the session learns about a compile besides torch's structured
trace (torch's CUDA-graph messages, cache keys another compile stored, frames another
target's call compiled), each a module of its own behind this one interface.

The session calls every registered channel (``CaptureSession.channels``, the one place) at each
frame compile's start and end and at each target call's end; a channel answers with notes
for the targets (``Notes``: target id -> sentences), which the session adds and shows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...records import CompileRecord
from ...trace.builder import Fed
from ..targets.target_state import Target
from .attribution import Key

if TYPE_CHECKING:
    from ..targets.running import Call

#: Notes for targets, by target id.
Notes = dict[str, list[str]]


class SideChannel:
    """One side channel; every hook does nothing unless the channel overrides it."""

    def start(self) -> None:
        """The session starts listening (install handlers)."""

    def stop(self) -> None:
        """The session stops listening (remove them)."""

    def compile_started(self, key: Key, owners: list[Target]) -> None:
        """Frame compile ``key`` started for ``owners`` (outermost first; maybe none)."""

    def compile_finished(self, key: Key, fed: Fed, record: CompileRecord,
                         owners: list[Target]) -> Notes:
        """Frame compile ``key`` finished as ``record`` (before its owners take it)."""
        return {}

    def call_ended(self, call: Call, records: list[CompileRecord]) -> Notes:
        """A registered target's call ended; ``records``: the compiles made during it."""
        return {}
