"""Who hears a target's change (the live summary, the inspector), and for how long."""

from __future__ import annotations

from collections.abc import Callable

from ..targets.target_state import Target

#: Hears a target's change: ``settled`` is False while a call of the target is still
#: running (more compiles may follow within it), True when what is shown now stays.
Listener = Callable[[Target, bool], None]


class Listeners:
    """Listeners, each with the targets it is about (none: all, for good)."""

    def __init__(self) -> None:
        self._entries: list[tuple[Listener, tuple[Target, ...], object]] = []

    def subscribe(self, listener: Listener, about: tuple[Target, ...] = ()
                  ) -> Callable[[], None]:
        """Hear every change of a target; ``about``: the targets ``listener`` shows,
        after whose replacement (a re-run cell) it is dropped. Returns the unsubscribe."""
        token = object()  # the unsubscribe holds this, not the listener: no cycle through
        self._entries.append((listener, tuple(about), token))  # a listener's own object

        def unsubscribe() -> None:
            self._entries = [e for e in self._entries if e[2] is not token]
        return unsubscribe

    def notify(self, target: Target, settled: bool = True) -> None:
        for listener, _, _ in list(self._entries):
            try:
                listener(target, settled)
            except Exception:  # a broken display must not break compiles
                pass

    def prune(self, registered: Callable[[Target], bool]) -> None:
        """Drop a listener about targets none of which is registered any more (its cell
        was re-run): it would hold the replaced targets for good."""
        self._entries = [entry for entry in self._entries
                         if not entry[1] or any(registered(t) for t in entry[1])]
