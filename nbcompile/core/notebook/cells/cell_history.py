"""Which cell run made each call, and which cell runs changed what a failed guard reads.

The kernel's own history, as IPython's cell events tell it (``magics/`` calls ``begin``
before each cell runs and ``end`` after; core knows nothing of IPython): the execution
count of the running cell, and per cell run what it changed in the user's namespace,
from a cheap snapshot before and after: a global's value (numbers, strings, ``None``:
the value; anything else: which object the name holds) and, for an ``nn.Module`` a
global holds, the ``training`` flag of each of its submodules (``model.eval()``); and
torch's global state Dynamo guards on (deterministic algorithms, thread count, grad
mode...), compared by torch's own ``GlobalStateGuard`` at the cell's end.

A recompile's failed guard names what it reads (``G['SCALE']``; a module target's guard
in words, ``model[1].training``; ``GLOBAL_STATE changed: num_threads``); ``changes_for``
gives the cell runs since the previous compile of that frame that changed it. Nothing is
guessed: a guard reading something no cell run changed (an argument, a tensor's shape)
has no changes, and says so.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import Any

import torch

from ...trace.payloads import GLOBAL_STATE_WORDS, global_state_names
from ...units import clip

#: Names of the user's namespace never snapshotted (IPython's own).
_SKIP = frozenset({"In", "Out", "exit", "quit", "get_ipython"})
#: Most globals and submodules looked at per snapshot (keeps a cell's cost bounded).
MAX_NAMES = 5000
MAX_SUBMODULES = 2000
#: Characters of a value's ``repr`` in a change's words.
VALUE_CAP = 60

_SCALARS = (bool, int, float, complex, str, bytes, type(None))
_GLOBAL = re.compile(r"G\['([A-Za-z_]\w*)'\]")
_ROOT = re.compile(r"(?<![\w.'\"])([A-Za-z_]\w*)(?=\.[A-Za-z_]|\[)")
_NOT_ROOTS = frozenset({"L", "G", "torch", "self"})
#: The ``root`` of a change to torch's global state (its ``attr``: torch's name of the
#: part, ``deterministic_algorithms``), which a failed ``GLOBAL_STATE`` guard reads.
GLOBAL_STATE = "GLOBAL_STATE"


@dataclass(frozen=True)
class Change:
    """What one cell run changed: the global ``root``, its ``attr`` (``""``: the value
    the name holds; ``training``: a module's mode), in words (``set SCALE = 0.5``)."""

    run: int  # the cell run's sequence number in this kernel (0, 1, ...)
    cell: int | None  # its execution count
    root: str
    attr: str
    text: str

    def words(self) -> str:
        return f"cell [{self.cell}] {self.text}" if self.cell is not None else self.text


def _short(value: Any) -> str:
    text = repr(value)
    return clip(text, VALUE_CAP)


def _modes(module: torch.nn.Module) -> tuple[tuple[str, bool], ...]:
    out = []
    for i, (path, sub) in enumerate(module.named_modules()):
        if i >= MAX_SUBMODULES:
            break
        out.append((path, bool(sub.training)))
    return tuple(out)


def _state(value: Any) -> tuple[Any, ...]:
    if isinstance(value, _SCALARS):
        return ("v", type(value), repr(value) if isinstance(value, float) else value)
    if isinstance(value, torch.nn.Module):
        return ("m", id(value), _modes(value))
    return ("o", id(value))


def _path_text(root: str, path: str) -> str:
    """``model`` + ``1.attn`` -> ``model[1].attn`` (as nbcompile words module paths)."""
    out = root
    for part in path.split(".") if path else ():
        out += f"[{part}]" if part.isdigit() else f".{part}"
    return out


def _diff(name: str, before: tuple[Any, ...] | None, after: tuple[Any, ...] | None,
          value: Any) -> tuple[str, str] | None:
    """``(attr, words)`` of what changed in global ``name``, or None."""
    if before == after:
        return None
    if after is None:
        return "", f"deleted {name}"
    if after[0] == "v":
        return "", f"set {name} = {_short(value)}"
    if before is not None and before[0] == "m" == after[0] and before[1] == after[1]:
        was, now = dict(before[2]), dict(after[2])
        flipped = [p for p, mode in now.items() if was.get(p, mode) != mode]
        if not flipped:
            return None
        mode = now[flipped[0]]
        if len(flipped) == len(now) and len(now) > 1:
            return "training", (f"put {name} in {'training' if mode else 'eval'} mode "
                                f"(every submodule's .training = {mode})")
        more = f" and {len(flipped) - 1} more" if len(flipped) > 1 else ""
        return "training", f"set {_path_text(name, flipped[0])}.training = {mode}{more}"
    what = type(value).__name__
    return "", (f"set {name} = a new {what}" if before is not None else f"defined {name} "
                f"(a {what})")


def _global_state() -> Any:
    """torch's own snapshot of the global state Dynamo guards on (None: this torch has
    none); its ``reason()`` later names the parts that changed since."""
    try:
        return importlib.import_module("torch._C._dynamo.guards").GlobalStateGuard()
    except (ImportError, AttributeError, RuntimeError, TypeError):
        return None


def _global_changes(before: Any) -> list[tuple[str, str]]:
    """``(torch's name, words)`` of each part of the global state changed since the
    snapshot ``before`` (read now, from torch's own guard)."""
    try:
        names = str(before.reason()).split() if before is not None else []
    except (AttributeError, RuntimeError, TypeError):
        return []
    out = []
    for name in names:
        what = GLOBAL_STATE_WORDS.get(name, name)
        now = _global_value(name)
        out.append((name, f"changed {what}" + (f" (now {now})" if now else "")))
    return out


def _global_value(name: str) -> str:
    """A part of the global state as it is now, in words ("" when not read here)."""
    try:
        if name == "grad_mode":
            return "on" if torch.is_grad_enabled() else "off"
        if name == "deterministic_algorithms":
            return "on" if torch.are_deterministic_algorithms_enabled() else "off"
        if name == "deterministic_algorithms_warn_only":
            return "on" if torch.is_deterministic_algorithms_warn_only_enabled() else "off"
        if name == "num_threads":
            return str(torch.get_num_threads())
        if name == "default_dtype":
            return str(torch.get_default_dtype())
    except (AttributeError, RuntimeError):
        return ""
    return ""


class CellHistory:
    """The cell runs of one kernel and what each changed."""

    def __init__(self) -> None:
        self.changes: list[Change] = []
        self.run = -1  # the sequence number of the latest cell run
        self._cell: int | None = None  # execution count of the running cell
        self._running = False
        self._before: dict[str, tuple[Any, ...]] = {}
        self._held: dict[str, Any] = {}  # the user's namespace, while a cell runs
        self._global: Any = None  # torch's global state at the running cell's start

    # --- cell events (told by magics/) ---
    def begin(self, cell: int | None, namespace: dict[str, Any]) -> None:
        """A cell run starts: its execution count and the user's namespace."""
        self.run += 1
        self._cell = cell
        self._running = True
        self._held = namespace
        self._before = self._snapshot(namespace)
        self._global = _global_state()

    def end(self) -> None:
        """The running cell finished: note what it changed."""
        if not self._running:
            return
        namespace = self._held
        after = self._snapshot(namespace)
        for name in (*self._before, *(n for n in after if n not in self._before)):
            found = _diff(name, self._before.get(name), after.get(name), namespace.get(name))
            if found is not None:
                self.changes.append(Change(self.run, self._cell, name, *found))
        for found in _global_changes(self._global):
            self.changes.append(Change(self.run, self._cell, GLOBAL_STATE, *found))
        del self.changes[:-MAX_NAMES]  # bounded: the oldest changes go first
        self._running = False
        self._before = {}
        self._held = {}
        self._global = None

    def current(self) -> int | None:
        """The execution count of the running cell (None: no cell is running)."""
        return self._cell if self._running else None

    @staticmethod
    def _snapshot(namespace: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
        out: dict[str, tuple[Any, ...]] = {}
        for name, value in list(namespace.items()):
            if name.startswith("_") or name in _SKIP or isinstance(value, type):
                continue
            if len(out) >= MAX_NAMES:
                break
            try:
                out[name] = _state(value)
            except Exception:  # an object whose attributes raise: skipped
                continue
        return out

    # --- attribution ---
    def holders(self, values: dict[str, Any]) -> dict[str, list[str]]:
        """For each of ``values`` (a call's arguments by name), the user's globals that hold
        that very object while a cell runs (numbers and strings left out: equal values
        are not the same variable)."""
        if not self._running:
            return {}
        namespace = self._held
        found: dict[str, list[str]] = {}
        for arg, value in values.items():
            if isinstance(value, _SCALARS):
                continue
            names = [n for n, v in list(namespace.items())[:MAX_NAMES]
                     if v is value and not n.startswith("_") and n not in _SKIP]
            if names:
                found[arg] = names
        return found

    def changes_for(self, guard: str, reason: str, since: int,
                    also: set[str] | frozenset[str] = frozenset()) -> list[Change]:
        """The changes after cell run ``since`` (the previous compile's; -1: all) to what
        ``guard`` (or its words, ``reason``) reads, and to the globals ``also`` names
        (e.g. those passed as the arguments a tensor guard reads), the running cell's so
        far included. Run ``since`` itself counts only when no later run changed it: its
        change may have come before that compile's call (its diff cannot say), but with no
        later change the guard failing says it came after."""
        roots = reads(guard, reason) | set(also)
        if not roots:
            return []
        text = f"{guard} {reason}"
        named = set(global_state_names(guard))  # none named: any part may be the one

        def reads_attr(c: Change) -> bool:
            if c.root == GLOBAL_STATE:
                return not named or c.attr in named
            return not c.attr or c.attr in text

        relevant = [c for c in self.changes if c.run >= since and c.root in roots
                    and reads_attr(c)]
        found = [c for c in relevant if c.run > since]
        if self._running and GLOBAL_STATE in roots:  # the running cell's, so far
            found += [c for c in (Change(self.run, self._cell, GLOBAL_STATE, *g)
                                  for g in _global_changes(self._global)) if reads_attr(c)]
        if self._running:
            namespace = self._held
            for root in sorted(roots):
                if root not in namespace or root not in self._before:
                    continue
                try:
                    now = _state(namespace[root])
                except Exception:
                    continue
                diff = _diff(root, self._before[root], now, namespace[root])
                if diff is not None and (not diff[0] or diff[0] in text):
                    found.append(Change(self.run, self._cell, root, *diff))
        return found or relevant


def reads(guard: str, reason: str) -> set[str]:
    """The globals a failed guard reads: ``G['X']`` in torch's text, and the names a
    worded guard starts from (``model[1].training`` -> ``model``)."""
    roots = set(_GLOBAL.findall(guard)) | set(_GLOBAL.findall(reason))
    if "GLOBAL_STATE" in guard or "___check_global_state" in guard:
        roots.add(GLOBAL_STATE)
    for text in (guard, reason):
        roots |= {m for m in _ROOT.findall(_GLOBAL.sub("", text)) if m not in _NOT_ROOTS}
    return roots


_history: CellHistory | None = None


def get_history() -> CellHistory:
    """The kernel's cell history (empty until IPython's cell events are heard)."""
    global _history
    if _history is None:
        _history = CellHistory()
    return _history
