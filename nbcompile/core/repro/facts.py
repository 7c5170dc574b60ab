"""The fact a repro reports, read from the target's record (graph breaks, a recompile) or
from the call (a crash, measured by ``crash.py``): what the script asserts
(``expected``), the state before a recompile rebuilt from torch's failed guard, and a
fresh run's record judged against it."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from ..records import Recompile, TargetRecord

KINDS = ("graph_breaks", "recompile", "crash", "accuracy")
#: torch's dtype names in a guard's words -> ``torch.<name>``.
_DTYPES = {"Float": "float32", "Double": "float64", "Half": "float16", "BFloat16": "bfloat16",
           "Int": "int32", "Long": "int64", "Short": "int16", "Char": "int8", "Byte": "uint8",
           "Bool": "bool", "ComplexFloat": "complex64", "ComplexDouble": "complex128"}
_GLOBAL = re.compile(r"^G\['(?P<name>\w+)'\] == (?P<value>.+?)\s*(?:#.*)?$")
_SIZE = re.compile(r"tensor '(?P<arg>\w+)' size mismatch at index (?P<index>\d+)\. "
                   r"expected (?P<expected>\d+), actual \d+")
_DTYPE = re.compile(r"tensor '(?P<arg>\w+)' dtype mismatch\. expected (?P<expected>\w+), "
                    r"actual \w+")
#: How much of a crash's first line must match (paths and addresses come later in it).
MESSAGE_HEAD = 80
#: How a crash by a signal is told (``diagnosis/isolate.py``'s words for a child's death).
KILLED = "the process was killed by "


class NoFact(ValueError):
    """Nothing to reproduce, or a fact that cannot be rebuilt (in words)."""


@dataclass
class Fact:
    """What the script asserts, and the state before the call (a recompile's)."""

    kind: str
    words: str  # as the notebook saw it
    expected: dict[str, Any] = field(default_factory=dict)
    before_globals: dict[str, Any] = field(default_factory=dict)  # name -> value
    before_args: dict[str, tuple[str, Any]] = field(default_factory=dict)  # arg -> change
    #: the crash was seen in a forked one-thread child (``diagnosis/isolate.py``): the
    #: script runs with one thread too
    one_thread: bool = False
    notes: list[str] = field(default_factory=list)  # how it was chosen or seen, in words


def break_fact(record: TargetRecord) -> Fact:
    """The target's graph breaks: their types and the lines they broke at."""
    breaks = record.graph_breaks
    if not breaks:
        raise NoFact(f"{record.name} has no graph break in nbcompile's record")
    types = sorted({b.gb_type or b.reason.split(":")[0] for b in breaks})
    lines = sorted({b.line.strip() for b in breaks if b.line.strip()})
    words = "; ".join(f"{b.gb_type or b.reason.split(':')[0]} at `{b.line.strip()}`"
                      for b in breaks)
    return Fact("graph_breaks", f"{len(breaks)} graph break(s): {words}",
                {"types": types, "lines": lines, "count": len(breaks)})


def recompile_fact(record: TargetRecord, arg_names: list[str], code_name: str) -> Fact:
    """The target's latest recompile whose state before can be rebuilt from the guard
    torch wrote (a global's value; an argument's size or dtype, in the target's own
    frame ``code_name``), newest first; ``NoFact`` says why none can."""
    if not record.recompiles:
        raise NoFact(f"{record.name} has no recompile in nbcompile's record")
    why: list[str] = []
    for recompile in reversed(record.recompiles):
        try:
            fact = _recompile_fact(recompile, arg_names, code_name)
        except NoFact as e:
            why.append(str(e))
            continue
        if why:
            fact.notes.append(f"the newer recompile(s) of {record.name} are not reproduced: "
                              + "; ".join(why))
        return fact
    count = len(record.recompiles)
    raise NoFact(f"the state before {'its' if count == 1 else f'any of its {count}'} "
                 f"recompile(s) cannot be rebuilt from torch's failed guards: "
                 + "; ".join(dict.fromkeys(why))
                 + " (a repro rebuilds a global's value, an argument's size or dtype)")


def _recompile_fact(recompile: Recompile, arg_names: list[str], code_name: str) -> Fact:
    guard = (recompile.guard or "").strip()
    frame = recompile.frame or ""
    own = frame in ("", code_name)
    shown = f"`{_guard_key(guard) or recompile.reason}`"
    if m := _GLOBAL.match(guard):
        fact = Fact("recompile", f"a recompile: {recompile.reason}", {"guard": _guard_key(guard)})
        try:
            fact.before_globals[m["name"]] = ast.literal_eval(m["value"])
        except (ValueError, SyntaxError):
            raise NoFact(f"{shown}: the value {m['name']} held before ({m['value']}) is not a "
                         "literal a script can set") from None
        return fact
    m = _SIZE.search(guard) or _DTYPE.search(guard)
    if m is None:
        raise NoFact(f"{shown}: not a guard on a global's value, an argument's size or dtype")
    if not own:
        part = (f"the part of the code after a graph break ({frame})"
                if frame.startswith("torch_dynamo_resume_in_") else f"the frame {frame}")
        held = ("a value on its stack, made by the compiled code before the break"
                if m["arg"].startswith("___stack") else "a local there")
        raise NoFact(f"{shown} is in {part}: {m['arg']} is {held}, not an argument a script "
                     "passes")
    if m["arg"] not in arg_names:
        raise NoFact(f"{shown}: {m['arg']} is not an argument of this call")
    fact = Fact("recompile", f"a recompile: {recompile.reason}",
                {"guard": guard[:m.end("expected")]})  # "actual" is this call's
    if m.re is _SIZE:
        fact.before_args[m["arg"]] = ("size", (int(m["index"]), int(m["expected"])))
    elif m["expected"] in _DTYPES:
        fact.before_args[m["arg"]] = ("dtype", _DTYPES[m["expected"]])
    else:
        raise NoFact(f"{shown}: the dtype {m['expected']} has no torch name nbcompile knows")
    return fact


def crash_fact(type_name: str, message: str) -> Fact:
    """A crash told by its type and the head of its message (a process killed by a
    signal: those words, without what it printed)."""
    head = message_head(message)
    if head.startswith(KILLED):
        head = head.split(":", 1)[0]
    return Fact("crash", f"a crash: {type_name}: {head}", {"type": type_name, "message": head})


def message_head(message: str) -> str:
    return (message.strip().splitlines() or [""])[0][:MESSAGE_HEAD]


def _guard_key(guard: str) -> str:
    """A guard as torch's failure text holds it, without its comment."""
    return guard.split("#", 1)[0].strip()


def judge(fact: Fact, seen: dict[str, Any]) -> list[str]:
    """What the fresh run did not show of ``fact`` (empty: it reproduced), from what torch
    recorded there (``seen``: its counters, guard failures, the exception raised, and the
    break lines its trace holds)."""
    if "error" in seen:
        return [f"the script failed before showing the fact: {seen['error']}"]
    expected = fact.expected
    if fact.kind == "graph_breaks":
        differs = [f"no graph break of type {t!r}" for t in expected["types"]
                   if t not in seen.get("types", [])]
        if "lines" in seen:
            differs += [f"no graph break at `{line}`" for line in expected["lines"]
                        if line not in seen["lines"]]
        return differs
    if fact.kind == "recompile":
        guards = seen.get("guards", [])
        return [] if any(expected["guard"] in g for g in guards) else [
            f"no recompile on `{expected['guard']}` (torch's failed guards there: "
            + ("; ".join(g.split('#', 1)[0].strip() for g in guards) or "none") + ")"]
    raised = seen.get("raised")
    if not raised:
        return ["the call did not raise"]
    differs = []
    if str(raised.get("message", "")).startswith(KILLED) and raised.get("type") != expected[
            "type"]:
        return [f"{raised['message']} (what it printed last: {raised.get('printed') or 'nothing'})"
                f", where nbcompile saw {expected['type']}: {expected['message']}"]
    if raised.get("type") != expected["type"]:
        differs.append(f"it raised {raised.get('type')}, not {expected['type']}")
    if not str(raised.get("message", "")).startswith(expected["message"][:MESSAGE_HEAD // 2]):
        differs.append(f"its message begins {raised.get('message')!r}, not "
                       f"{expected['message']!r}")
    return differs
