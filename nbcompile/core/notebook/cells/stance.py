"""``torch.compiler.set_stance`` for a cell or from now on, and the calls it ran eagerly.

Under ``force_eager`` every call of a compiled function runs its Python code; under
``eager_on_recompile`` a call whose guards no compiled entry passes runs eagerly instead
of recompiling; under ``eager_then_compile`` a frame's first call runs eagerly; and under
``fail_on_recompile`` a call that would compile raises (the first call too: nothing is
compiled). torch says none of these in its trace, so the targets' calls are heard as they
start (``calls.each_call``, on while torch's live stance may run calls eagerly: heard as
torch sets it, whoever does, ``%%stance``, ``%nbcompile stance`` or
``torch.compiler.set_stance``) and counted per target, with the cell they ran in: a
status never stays "waiting for first call" for a target that ran.

A cell under ``%%stance`` saves torch's whole stance (its name and every option:
``force_backend``, ``skip_guard_eval_unsafe``) and puts back exactly that (``save`` /
``restore``). Stance names are checked against torch itself, not a list of nbcompile's.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from ... import torch_compat
from ...trace.parsers import explain_reasons
from ...trace.payloads import recompile_reason_groups
from ..targets import running as calls
from ..targets.target_state import forward_arg_names
from ..targets.usernames import module_text, wrapped_args_text
from .cell_history import get_history

#: The stances listed when torch cannot say which it has (torch itself checks a name).
STANCES = ("default", "fail_on_recompile", "eager_on_recompile", "force_eager")
#: The stances under which a call may run eagerly, or be refused (and is counted).
EAGER_STANCES = ("force_eager", "eager_on_recompile", "fail_on_recompile",
                 "eager_then_compile")
_DOCUMENTED = re.compile(r'^\s*-\s*"(\w+)":', re.MULTILINE)


def current() -> str:
    """The stance in force (``default`` on a torch that cannot say)."""
    return torch_compat.current_stance()


def save() -> Any:
    """torch's whole stance in force (name and options), for ``restore``."""
    return torch_compat.stance_state()


def restore(saved: Any) -> None:
    """Put back exactly the stance ``save`` gave."""
    torch_compat.put_stance(saved)


def known() -> tuple[str, ...]:
    """The stance names torch documents and accepts (``torch.compiler.set_stance``'s
    docstring, each checked with torch); ``STANCES`` when torch cannot say."""
    names = _DOCUMENTED.findall(inspect.getdoc(torch.compiler.set_stance) or "")
    found = tuple(n for n in dict.fromkeys(names) if torch_compat.stance_refusal(n) is None)
    return found or STANCES


def check(name: str) -> None:
    """A ``ValueError`` in words when torch refuses stance ``name``."""
    refusal = torch_compat.stance_refusal(name)
    if refusal is not None:
        raise ValueError(f"torch refuses the stance {name!r} (torch.compile cannot run "
                         f"under it); torch's stances: {', '.join(known())}")


def set_stance(name: str) -> Any:
    """Put ``name`` in force from now on (torch's ``set_stance(name)``: no options);
    returns the whole stance it replaced (for ``restore``)."""
    check(name)
    before = save()
    torch.compiler.set_stance(name)
    return before


def counts(stance: Any) -> bool:
    """Whether calls under ``stance`` (torch's ``DynamoStance``) are counted."""
    return getattr(stance, "stance", None) in EAGER_STANCES


def counted() -> bool:
    """Whether torch's stance now is one whose calls are counted."""
    return counts(torch_compat.stance_state())


def frame_locals(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
                 ) -> dict[str, Any] | None:
    """The locals ``fn``'s frame starts with for this call (its own parameters, not those
    of a function it wraps, and its closure's names), as torch's guards read them."""
    try:
        bound = inspect.signature(fn, follow_wrapped=False).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return None
    bound.apply_defaults()  # defaults, and an empty ``*args`` / ``**kwargs``, are locals too
    found = dict(bound.arguments)
    code = getattr(fn, "__code__", None)
    closure = getattr(fn, "__closure__", None) or ()
    for name, cell in zip(getattr(code, "co_freevars", ()), closure, strict=False):
        try:
            found.setdefault(name, cell.cell_contents)
        except ValueError:  # an empty cell
            continue
    return found


def ran_eagerly(stance: str, target: Any, fn: Any, args: tuple[Any, ...],
                kwargs: dict[str, Any]) -> bool:
    """Whether a call starting now under ``stance`` runs eagerly (or, under
    ``fail_on_recompile``, is refused): every call under ``force_eager``; under the
    others one that no compiled entry of ``fn``'s code accepts (when torch cannot be
    asked: only while nothing is compiled), under ``eager_then_compile`` only the first
    such call of the code."""
    if stance == "force_eager":
        return True
    if stance not in EAGER_STANCES:
        return False
    code = getattr(fn, "__code__", None)
    passes = None
    f_locals = frame_locals(fn, args, kwargs) if code is not None else None
    if f_locals is not None:
        passes = torch_compat.guards_pass(code, f_locals)
    if passes is None:
        passes = bool(getattr(target, "compiles", None))
    if passes:
        return False
    if stance == "eager_then_compile":
        return code is not None and torch_compat.example_input_count(code) == 0
    return True


@dataclass
class RefusedCall:
    """The latest call ``fail_on_recompile`` refuses (heard as it starts): which
    globals hold each of its arguments, to name the cell that changed one."""

    code: Any
    holders: dict[str, list[str]]  # argument name -> the user's globals holding it


class EagerCounter:
    """While on, each target call that runs eagerly under torch's stance at that moment
    is told to ``on_eager(target, stance, cell)``.

    Calls are heard (``calls.CallTap``) only while torch's stance is one of
    ``EAGER_STANCES``: torch's stance setter is heard as it changes
    (``torch_compat.on_stance_change``), so under the default stance a compiled call runs
    nothing of nbcompile's. On a torch whose setter cannot be heard, every call reads the
    stance as it starts instead."""

    def __init__(self, on_eager: Callable[[Any, str, int | None], None]) -> None:
        self._on_eager = on_eager
        self._tap = calls.CallTap(self._heard)
        self._stop: Callable[[], None] | None = None
        self.refused: RefusedCall | None = None

    @property
    def on(self) -> bool:
        return self._stop is not None

    def start(self) -> None:
        if self._stop is not None:
            return
        unheard = torch_compat.on_stance_change(self._stance_set)
        if unheard is None:  # torch cannot say when: the stance is read on every call
            self._stop = calls.each_call(self._heard, when=counted)
            return
        self._tap.set(counted())  # the stance in force now (set before the extension)

        def stop() -> None:
            unheard()
            self._tap.set(False)
        self._stop = stop

    def stop(self) -> None:
        if self._stop is not None:
            stop, self._stop = self._stop, None
            stop()

    def _stance_set(self, stance: Any) -> None:
        self._tap.set(counts(stance))

    def _heard(self, target: Any, fn: Any, args: tuple[Any, ...],
               kwargs: dict[str, Any]) -> None:
        stance = current()
        if ran_eagerly(stance, target, fn, args, kwargs):
            if stance == "fail_on_recompile":
                self.refused = _refused_call(fn, args, kwargs)
            self._on_eager(target, stance, get_history().current())


def _refused_call(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> RefusedCall:
    bound = frame_locals(fn, args, kwargs) or {}
    if isinstance(bound.get("args"), tuple):  # torch's ``*args`` wrapper of a module call
        bound.update({f"args[{i}]": value for i, value in enumerate(bound.pop("args"))})
    return RefusedCall(getattr(fn, "__code__", None),
                       get_history().holders({k: v for k, v in bound.items()
                                              if not isinstance(v, (int, float, str))}))


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
    failures: list[str] = field(default_factory=list)  # every failed guard, torch's text
    newest: list[str] = field(default_factory=list)  # those of the newest compiled version


#: torch's text of a failed tensor guard (``TENSOR_MATCH``): shape, rank, stride, dtype,
#: device, requires_grad, dispatch keys
_TENSOR = re.compile(
    r"tensor '(?P<src>.+?)' (?P<what>[\w ]+?) mismatch(?: at index (?P<dim>-?\d+))?\.?"
    r"(?: expected (?P<exp>.+?)(?:, actual (?P<act>.+?))?)?(?:\. |\.?$)")
_PLAIN_NAME = re.compile(r"[A-Za-z_]\w*")
_GLOBAL_SOURCE = re.compile(r"G\[['\"](?P<name>[^'\"]+)['\"]\]")


def _tensor_owner(src: str) -> str:
    """Whose tensor a guard's source is: ``x`` -> ``argument x``, ``G['W']`` -> ``global
    W``, an attribute path as torch writes it."""
    if _PLAIN_NAME.fullmatch(src):
        return f"argument {src}"
    m = _GLOBAL_SOURCE.fullmatch(src)
    return f"global {m.group('name')}" if m else src


def explain_tensor_guard(guard: str) -> str | None:
    """A failed tensor guard in words (``argument x has 2 dimensions now; the compiled
    code expects 1``), torch's text after it; None when ``guard`` is not one."""
    m = _TENSOR.match(guard.strip())
    if m is None:
        return None
    who, what, dim = _tensor_owner(m.group("src")), m.group("what"), m.group("dim")
    expected, actual = m.group("exp"), m.group("act")
    if what == "rank" and actual is not None:
        words = (f"{who} has {actual} dimension{'s' if actual != '1' else ''} now; the "
                 f"compiled code expects {expected}")
    elif what in ("size", "stride") and dim is not None and actual is not None:
        words = (f"{who}'s {what} at dim {dim} is {actual} now; the compiled code "
                 f"expects {expected}")
    elif actual is not None:
        words = f"{who}'s {what} is {actual} now; the compiled code expects {expected}"
    elif expected is not None:
        words = f"{who}'s {what} changed; the compiled code expects {expected}"
    else:
        words = f"{who}'s {what} changed"
    return f"{words} (torch: {guard.strip()})"


def refusal_words(guards: list[str], newest: list[str], versions: int | None = None) -> str:
    """The failed guards of a refusal in words: tensor guards (shape, rank, stride, dtype,
    device...) here, the others (globals, attributes, numbers) as recompiles word them;
    only the newest compiled version's, the older ones counted (``versions``: how many
    torch tried, each listed even when failing the same guard)."""
    shown = newest or guards
    text = "; ".join(explain_tensor_guard(g) or explain_reasons([g]) for g in shown)
    older = (versions - 1 if versions is not None and newest
             else len([g for g in guards if g not in shown]))
    if older:
        text += (f" (and {older} older compiled version{'s' if older > 1 else ''} did not "
                 "match either)")
    return text


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
                   refusal_words(guards, newest, len(groups)), cell=get_history().current(),
                   failures=guards, newest=newest)


def _argument_roots(refusal: Refusal, refused: RefusedCall | None) -> set[str]:
    """The user's globals passed as the arguments the refusal's guards read (the refused
    call as heard when it started, if it is the same function's)."""
    code = refused.code if refused is not None else None
    if (refused is None or code is None or code.co_name != refusal.function
            or code.co_filename != refusal.filename):
        return set()
    guard = refusal.guard  # torch's text: ``x``, ``L['x']``, ``len(xs)``, ``args[1]``
    names = set(re.findall(r"[A-Za-z_]\w*", guard)) | set(re.findall(r"args\[\d+\]", guard))
    return {holder for name in names for holder in refused.holders.get(name, ())}


def explain_refusal(refusal: Refusal, target: Any,
                    refused: RefusedCall | None = None) -> Refusal:
    """``refusal`` with its guard in the target's words (a module's name, not ``self``)
    and the cells since the target's last compile that changed what it reads: the
    globals its guards name, and the globals that held the refused call's arguments
    (``refused``, heard as the call started)."""
    also = _argument_roots(refusal, refused)
    if target is not None and target.kind == "module":
        args = forward_arg_names(target.compiled_module)
        wrapped = getattr(target, "entry_code", None) is not None and any(
            refusal.filename == code.co_filename for code in (target.entry_code,))

        def words(guard: str) -> str:  # ``args[1]`` of torch's wrapper -> ``x`` of forward
            return module_text(wrapped_args_text(guard) if wrapped else guard,
                               target.name, args)

        if refusal.failures:
            refusal.reason = refusal_words([words(g) for g in refusal.failures],
                                           [words(g) for g in refusal.newest])
        else:
            refusal.reason = module_text(refusal.reason, target.name, args)
        refusal.guard = words(refusal.guard)
    compiles = getattr(target, "compiles", None) or []
    since = max((c.cell_run for c in compiles), default=-1)
    changes = get_history().changes_for(refusal.guard, refusal.reason, since, also=also)
    refusal.changes = list(dict.fromkeys(c.words() for c in changes))
    return refusal
