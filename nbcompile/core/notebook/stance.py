"""``torch.compiler.set_stance`` for a cell or from now on, and the calls it ran eagerly.

Under ``force_eager`` every call of a compiled function runs its Python code; under
``eager_on_recompile`` a call whose guards no compiled entry passes runs eagerly instead
of recompiling, and under ``fail_on_recompile`` it raises (the first call too: nothing is
compiled). torch says none of these in its trace, so while such a stance is in force the
targets' calls are heard as they start (``calls.each_call``) and counted per target, with
the cell they ran in: a status never stays "waiting for first call" for a target that ran.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from .. import torch_compat
from ..trace.parsers import explain_reasons
from ..trace.payloads import recompile_reason_groups
from . import calls
from .cell_history import get_history
from .target_state import forward_arg_names
from .usernames import module_text

#: The stances ``%%stance`` and ``%nbcompile stance`` accept.
STANCES = ("default", "fail_on_recompile", "eager_on_recompile", "force_eager")
#: The stances under which a call may run eagerly, or be refused (and is counted).
EAGER_STANCES = ("force_eager", "eager_on_recompile", "fail_on_recompile")


def current() -> str:
    """The stance in force (``default`` on a torch that cannot say)."""
    return torch_compat.current_stance()


def set_stance(name: str) -> str:
    """Put ``name`` in force from now on; returns the stance it replaced."""
    if name not in STANCES:
        raise ValueError(f"unknown stance {name!r}: one of {', '.join(STANCES)}")
    before = current()
    torch.compiler.set_stance(name)
    return before


def ran_eagerly(stance: str, target: Any, fn: Any, args: tuple[Any, ...],
                kwargs: dict[str, Any]) -> bool:
    """Whether a call starting now under ``stance`` runs eagerly (or, under
    ``fail_on_recompile``, is refused): every call under ``force_eager``; under the
    others one that no compiled entry of ``fn``'s code accepts (when torch cannot be
    asked: only while nothing is compiled)."""
    if stance == "force_eager":
        return True
    if stance not in EAGER_STANCES:
        return False
    code = getattr(fn, "__code__", None)
    passes = None
    if code is not None:
        try:
            f_locals = dict(inspect.signature(fn).bind(*args, **kwargs).arguments)
        except (TypeError, ValueError):
            f_locals = None
        if f_locals is not None:
            passes = torch_compat.guards_pass(code, f_locals)
    if passes is None:
        return not getattr(target, "compiles", None)
    return not passes


class EagerCounter:
    """While on, each target call that runs eagerly under the stance in force is told to
    ``on_eager(target, stance, cell)``."""

    def __init__(self, on_eager: Callable[[Any, str, int | None], None]) -> None:
        self._on_eager = on_eager
        self._remove: Callable[[], None] | None = None

    @property
    def on(self) -> bool:
        return self._remove is not None

    def start(self) -> None:
        if self._remove is None:
            self._remove = calls.each_call(self._heard)

    def stop(self) -> None:
        if self._remove is not None:
            self._remove()
            self._remove = None

    def _heard(self, target: Any, fn: Any, args: tuple[Any, ...],
               kwargs: dict[str, Any]) -> None:
        stance = current()
        if ran_eagerly(stance, target, fn, args, kwargs):
            self._on_eager(target, stance, get_history().current())


#: torch's error when ``fail_on_recompile`` refuses a call (``eval_frame.py``).
_REFUSED = re.compile(
    r"Detected recompile when torch\.compile stance is 'fail_on_recompile'\. "
    r"filename: '(?P<file>[^']*)', function name: '(?P<fn>[^']*)', line number: (?P<line>\d+)")


@dataclass
class Refusal:
    """A call ``fail_on_recompile`` refused: where, the failed guard(s), and the cells
    that changed what they read."""

    filename: str
    function: str
    lineno: int
    guard: str  # torch's text of the failed guard(s)
    reason: str = ""  # in words
    changes: list[str] = field(default_factory=list)  # ``cell [7] set SCALE = 0.5``
    cell: int | None = None  # the cell whose call was refused


def parse_refusal(message: str) -> Refusal | None:
    """The refusal torch's ``fail_on_recompile`` error describes, else None."""
    m = _REFUSED.search(message)
    if m is None:
        return None
    _, _, failures = message.partition("guard failure(s):")
    lines = (re.sub(r"^\s*- ?", "", line) for line in failures.splitlines())
    groups = recompile_reason_groups("\n".join(lines))  # the newest compiled version first
    guards = list(dict.fromkeys(g for group in groups for g in group))
    newest = groups[0] if groups else []
    return Refusal(m.group("file"), m.group("fn"), int(m.group("line")), "; ".join(newest),
                   explain_reasons(guards, newest), cell=get_history().current())


def explain_refusal(refusal: Refusal, target: Any) -> Refusal:
    """``refusal`` with its guard in the target's words (a module's name, not ``self``)
    and the cells since the target's last compile that changed what it reads."""
    if target is not None and target.kind == "module":
        args = forward_arg_names(target.compiled_module)
        refusal.reason = module_text(refusal.reason, target.name, args)
        refusal.guard = module_text(refusal.guard, target.name, args)
    compiles = getattr(target, "compiles", None) or []
    since = max((c._run for c in compiles), default=-1)
    refusal.changes = list(dict.fromkeys(
        c.words() for c in get_history().changes_for(refusal.guard, refusal.reason, since)))
    return refusal
