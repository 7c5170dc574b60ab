"""The call commands' options (``compare``, ``profile``, ``suggest``, ``diagnose``), checked
in one place: the Python API and the magics refuse the same values with the same words.

Each check takes the option's name as the caller spells it (``budget_s`` in Python,
``--budget`` in a magic) and returns the value as the command uses it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

from ..units import clip


class CallOptionError(ValueError):
    """An option of a call command out of what it allows; the message names the option,
    what it allows and the value given."""


class CallOptionTypeError(CallOptionError, TypeError):
    """An option of a call command of the wrong type (``budget_s="10"``)."""


def _given(value: Any) -> str:
    """The refused value in words: its repr, with its type when that is what is wrong."""
    if isinstance(value, (str, bytes, bool)) or value is None:
        return f"{value!r} ({type(value).__name__})"
    text = repr(value)
    return clip(text, 57, "...") + f" ({type(value).__name__})"


def check_budget(value: Any, name: str = "budget_s") -> float:
    """Seconds of a budget: a positive, finite real number (an int, a float, a NumPy
    scalar; not a bool, a string or None)."""
    allowed = f"{name} must be a positive, finite number of seconds"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise CallOptionTypeError(f"{allowed}, not {_given(value)}")
    seconds = float(value)
    if not math.isfinite(seconds) or seconds <= 0:
        raise CallOptionError(f"{allowed}, not {value!r}")
    return seconds


def check_repeat(value: Any, name: str = "repeat") -> int:
    """A count of calls: a whole number >= 1 (not a bool or a float)."""
    allowed = f"{name} must be a whole number of calls >= 1"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise CallOptionTypeError(f"{allowed}, not {_given(value)}")
    if value < 1:
        raise CallOptionError(f"{allowed}, not {value!r}")
    return int(value)


def check_flag(value: Any, name: str) -> bool:
    """An on/off option: ``True`` or ``False`` (a string such as ``"no"`` would read as
    on)."""
    if not isinstance(value, bool):
        raise CallOptionTypeError(f"{name} must be True or False, not {_given(value)}")
    return value


def check_fraction(value: Any, name: str) -> float:
    """A share such as ``min_effect``: a real number from 0 up to (not including) 1."""
    allowed = f"{name} must be a number from 0 up to 1 (e.g. 0.03 for 3 %)"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise CallOptionTypeError(f"{allowed}, not {_given(value)}")
    share = float(value)
    if not (0 <= share < 1):
        raise CallOptionError(f"{allowed}, not {value!r}")
    return share


def check_modes(modes: Any, name: str = "modes") -> Sequence[Any]:
    """``compare``'s modes: one name or backend callable, or a non-empty sequence of them
    (which names are known is ``modes.resolve_modes``'s to say)."""
    example = (f"e.g. {name} eager,default" if name.startswith("-")
               else f"e.g. {name}=('eager', 'default')")
    if isinstance(modes, str) or callable(modes):
        items: Sequence[Any] = [modes]
    elif isinstance(modes, Sequence) or isinstance(modes, (set, frozenset)):
        items = list(modes)
    else:
        raise CallOptionTypeError(f"{name} must be mode names or backend callables "
                                  f"({example}), not {_given(modes)}")
    if not items or all(isinstance(m, str) and not m.strip() for m in items):
        raise CallOptionError(f"{name} is empty; give at least one mode ({example})")
    return items
