"""Which targets a frame compile belongs to, decided once, at its ``dynamo_start``.

A compile belongs to every target whose call is running (``calls``: the target's own
frames, the resume functions after its breaks, the functions it calls that Dynamo compiles
on their own), outermost call first; a target whose calls nbcompile cannot see is found by
code span in the compile's user stack. Owners are held weakly: a re-run cell's replaced
targets are freed with their records.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from typing import Any

from ..targets import running as calls
from ..targets.target_state import Target
from .registry import TargetRegistry

#: A frame compile: ``(frame_id, frame_compile_id)``.
Key = tuple[int, int]


class Attribution:
    """Frame compiles -> their targets; the caller holds the session's lock."""

    def __init__(self, registry: TargetRegistry, filename: Callable[[Any], str]) -> None:
        self._registry = registry
        self._filename = filename  # a stack entry's filename (an index into torch's table)
        self._owners: dict[Key, list[weakref.ref[Target]]] = {}
        self._in_call: set[Key] = set()  # frame compiles inside a target's call

    def claim(self, key: Key, stack: list[dict[str, Any]]) -> list[Target]:
        """The targets a frame compile starting now belongs to: every target whose call
        is running (outermost first), else the one its user stack names by code span."""
        if key[1] == 0:
            self._forget_frame(key[0])  # before this compile's own entries are made
        owners: list[Target] = []
        for call in calls.running():
            call.compiles.append(key)
            if not any(call.target is t for t in owners):
                owners.append(call.target)
        if owners:
            self._in_call.add(key)  # the call's end tells the settled state
        elif (found := self.target_for_stack(stack, watched=False)) is not None:
            owners = [found]
        self._owners[key] = [weakref.ref(t) for t in owners]
        return owners

    def _forget_frame(self, frame_id: int) -> None:
        """A frame's first compile: what an earlier frame of that id claimed is another
        frame's (``torch._dynamo.reset()`` restarts frame ids), so it is dropped."""
        for stale in [k for k in self._owners if k[0] == frame_id]:
            del self._owners[stale]
            self._in_call.discard(stale)

    def owners(self, key: Key) -> list[Target]:
        """The live targets a frame compile was claimed for (outermost first)."""
        return _alive(self._owners.get(key))

    def settle(self, key: Key) -> bool:
        """At a compile's end: whether what it shows stays (False: the call it ran in goes
        on, and its end will tell)."""
        inside = key in self._in_call
        self._in_call.discard(key)
        return not inside

    def claimed(self) -> Iterator[tuple[Key, list[Target]]]:
        """Every frame compile with live owners, oldest first."""
        for key, refs in list(self._owners.items()):
            if owners := _alive(refs):
                yield key, owners

    def target_for_stack(self, stack: list[dict[str, Any]], *,
                         watched: bool = True) -> Target | None:
        """The target owning the innermost frame of ``stack`` that any target owns
        (``watched=False``: only among targets whose calls nbcompile cannot see)."""
        known = [t for t in self._registry.everyone() if watched or not t.watched]
        candidates: list[Target] | None = None
        for entry in reversed(stack):
            filename = self._filename(entry.get("filename"))
            owners = [t for t in known if t.owns_frame(filename, entry.get("line", 0))]
            if candidates is not None:
                narrowed = [t for t in owners if t in candidates]
                if narrowed:
                    return narrowed[-1]
                continue
            if len(owners) == 1:
                return owners[0]
            if owners:
                candidates = owners  # e.g. one class forward shared by two module targets
        return candidates[-1] if candidates else None

    def owner_of(self, frame_id: int, frame_compile_id: int) -> Target | None:
        """The innermost target a frame compile was attributed to; for a compile not (yet)
        seen (e.g. one stopped by ``recompile_limit``), the target of that frame's others."""
        owners = self._owners.get((frame_id, frame_compile_id))
        if owners is not None:
            alive = _alive(owners)
            return alive[-1] if alive else None
        for (frame, _), found in reversed(list(self._owners.items())):
            if frame == frame_id and (alive := _alive(found)):
                return alive[-1]
        return None


def _alive(owners: list[weakref.ref[Target]] | None) -> list[Target]:
    return [t for ref in owners or () if (t := ref()) is not None]
