"""The targets of one kernel: the one each user name holds now, and the replaced ones
still alive elsewhere (``f_v1 = f`` before ``f`` was redefined: ``report(f_v1)`` keeps
its record and its later compiles)."""

from __future__ import annotations

from typing import Any

from ..targets.target_state import Target


class TargetRegistry:
    """Registered targets, newest last; the caller holds the session's lock."""

    def __init__(self) -> None:
        self.targets: list[Target] = []  # one per name: what the user's names hold
        self.replaced: list[Target] = []  # redefined, still alive (weakly held) elsewhere

    def register(self, target: Target) -> None:
        """``target`` in place of the target of its name (whose compiles it diffs with)."""
        replaced = [t for t in self.targets if t.name == target.name and t is not target]
        if replaced and not target.previous_compiles:  # code diffs across cell re-runs
            target.previous_compiles = list(replaced[-1].compiles
                                            or replaced[-1].previous_compiles)
        self.replaced = [t for t in self.replaced if t.alive] + [
            t for t in replaced if t.alive]
        self.targets = [t for t in self.targets
                        if (t.name != target.name and t.alive) or t is target]
        self.targets.append(target)

    def registered(self, target: Target) -> bool:
        return any(target is t for t in (*self.targets, *self.replaced))

    def everyone(self) -> tuple[Target, ...]:
        """Every registered target, the replaced ones first."""
        return (*self.replaced, *self.targets)

    def find(self, obj: Any) -> Target | None:
        """The target of a user's object (the newest first)."""
        for target in (*reversed(self.targets), *reversed(self.replaced)):
            if target.matches(obj):
                return target
        return None
