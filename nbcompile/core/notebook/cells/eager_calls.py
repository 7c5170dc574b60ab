"""Calls that ran eagerly (or were refused) under torch's stance, counted per target
(``stance.EagerCounter`` hears them) and shown: at once when a call is the first of its
stance or cell, the rest at the cell's end (``flush``)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from ..capture.registry import TargetRegistry
from ..targets.target_state import Target
from .stance import EagerCounter


class EagerCalls:
    """The eager calls of registered targets."""

    def __init__(self, registry: TargetRegistry, notify: Callable[[Target], None],
                 lock: threading.RLock) -> None:
        self._registry = registry
        self._notify = notify
        self._lock = lock
        self._unshown: list[Target] = []
        self.counter = EagerCounter(self._on_eager)

    def _on_eager(self, target: Target, stance: str, cell: int | None) -> None:
        with self._lock:
            if not self._registry.registered(target):
                return
            if target.ran_eagerly(stance, cell):
                self._notify(target)
            elif all(t is not target for t in self._unshown):
                self._unshown.append(target)

    def flush(self) -> None:
        """Show the eager calls counted since they were last shown."""
        with self._lock:
            unshown, self._unshown = self._unshown, []
            for target in unshown:
                self._notify(target)
