"""``WeakSlot``: an attribute that holds the user's object weakly.

nbcompile keeps targets (and their records) for the whole kernel session; the user's
modules and functions must still be freed when the user drops them (``del``, a re-run
cell, ``%reset``). A ``WeakSlot`` attribute reads back the object while something else
holds it, and ``None`` once it is gone. Objects that cannot be weakly referenced
(e.g. builtins) are held strongly; bound methods are held through ``WeakMethod``.
"""

from __future__ import annotations

import types
import weakref
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


def weak(value: Any) -> Callable[[], Any]:
    """A callable returning ``value`` while it is alive, then ``None``."""
    if value is None:
        return lambda: None
    if isinstance(value, types.MethodType):
        return weakref.WeakMethod(value)
    try:
        return weakref.ref(value)
    except TypeError:  # not weakly referenceable: nothing the user could free anyway
        return lambda: value


class WeakSlot(Generic[T]):
    """A data descriptor (usable as a dataclass field with default ``None``) holding a
    ``T`` weakly: it reads ``T | None``."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = f"_weak_{name}"

    def __get__(self, obj: Any, objtype: type | None = None) -> T | None:
        if obj is None:
            return None  # the dataclass default
        ref = obj.__dict__.get(self.slot)
        return ref() if ref is not None else None

    def __set__(self, obj: Any, value: T | None) -> None:
        obj.__dict__[self.slot] = weak(value)
