"""The fact a repro reports, read from the target's record (graph breaks, a recompile) or
from the call (a crash): what the script asserts (``expected``), the state before a
recompile rebuilt from torch's failed guard, and a fresh run's record judged against it."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from ..records import TargetRecord

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


def recompile_fact(record: TargetRecord, arg_names: list[str]) -> Fact:
    """The target's latest recompile, with the state before it rebuilt from the guard
    torch wrote (a global's value, an argument's size or dtype)."""
    if not record.recompiles:
        raise NoFact(f"{record.name} has no recompile in nbcompile's record")
    recompile = record.recompiles[-1]
    guard = (recompile.guard or "").strip()
    fact = Fact("recompile", f"a recompile: {recompile.reason}", {"guard": _guard_key(guard)})
    if m := _GLOBAL.match(guard):
        try:
            fact.before_globals[m["name"]] = ast.literal_eval(m["value"])
        except (ValueError, SyntaxError):
            raise NoFact(f"the value {m['name']} held before the recompile ({m['value']}) "
                         "is not a literal a script can set") from None
    elif (m := _SIZE.search(guard)) and m["arg"] in arg_names:
        fact.before_args[m["arg"]] = ("size", (int(m["index"]), int(m["expected"])))
    elif (m := _DTYPE.search(guard)) and m["arg"] in arg_names and m["expected"] in _DTYPES:
        fact.before_args[m["arg"]] = ("dtype", _DTYPES[m["expected"]])
    else:
        raise NoFact("the state before the recompile cannot be rebuilt from torch's failed "
                     f"guard ({guard or recompile.reason}): a repro covers a global's value, "
                     "an argument's size or dtype")
    return fact


def crash_fact(error: BaseException) -> Fact:
    """The call's exception: its type and the head of its message."""
    head = message_head(error)
    name = type(error).__name__
    return Fact("crash", f"a crash: {name}: {head}", {"type": name, "message": head})


def message_head(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [""])[0][:MESSAGE_HEAD]


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
    if raised.get("type") != expected["type"]:
        differs.append(f"it raised {raised.get('type')}, not {expected['type']}")
    if not str(raised.get("message", "")).startswith(expected["message"][:MESSAGE_HEAD // 2]):
        differs.append(f"its message begins {raised.get('message')!r}, not "
                       f"{expected['message']!r}")
    return differs
