"""Argument helpers for the magics: nothing the user typed is dropped silently.

IPython's ``magic_arguments`` splits a line without removing quotes and, like argparse,
keeps the last of repeated flags. ``unquoted`` strips a pair of quotes around a value;
the ``Once``, ``OnceFlag`` and ``OnceBoolean`` actions note a flag given twice (with a
value or without: ``--fullgraph --fullgraph`` is refused like ``--mode a --mode b``), and
``check_repeats`` turns those notes into one ``UsageError`` after parsing (so a bad value
still gets argparse's own message first).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from IPython.core.error import UsageError

_SEEN = "_nbcompile_seen"
_CONFLICTS = "_nbcompile_conflicts"


def unquoted(text: str) -> str:
    """``"a3"`` or ``'a3'`` -> ``a3``; anything else unchanged."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1].strip()
    return text


_REPEATED = "{flag} is given twice; give it once"


def _note(namespace: argparse.Namespace, key: str, flag: str, value: Any,
          conflict: str) -> None:
    seen: dict[str, Any] = getattr(namespace, _SEEN, None) or {}
    if key in seen:
        conflicts: list[str] = getattr(namespace, _CONFLICTS, None) or []
        text = conflict if seen[key] != value else _REPEATED
        message = text.format(flag=flag, before=seen[key], after=value)
        if message not in conflicts:
            conflicts.append(message)
        setattr(namespace, _CONFLICTS, conflicts)
    seen[key] = value
    setattr(namespace, _SEEN, seen)


class Once(argparse.Action):
    """Store a value; a second, different value of the same flag is a conflict."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        flag = max(self.option_strings, key=len)
        _note(namespace, self.dest, flag, values,
              "{flag} is given twice ({before!r}, then {after!r}); give it once")
        setattr(namespace, self.dest, values)


class OnceFlag(argparse.Action):
    """An on/off flag without a value (``store_true``); given twice is refused."""

    def __init__(self, option_strings: Sequence[str], dest: str, default: Any = False,
                 required: bool = False, help: str | None = None) -> None:  # noqa: A002
        super().__init__(option_strings, dest, nargs=0, const=True, default=default,
                         required=required, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        _note(namespace, self.dest, option_string or max(self.option_strings, key=len),
              True, _REPEATED)
        setattr(namespace, self.dest, True)


class OnceBoolean(argparse.BooleanOptionalAction):
    """``--x`` / ``--no-x``; giving both is a conflict, either one twice a repeat."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        value = not (option_string or "").startswith("--no-")
        seen = (getattr(namespace, _SEEN, None) or {}).get(self.dest, value)
        names = (" and ".join(self.option_strings) if seen != value
                 else option_string or self.option_strings[0])
        _note(namespace, self.dest, names, value,
              "{flag} contradict each other; give one of them")
        super().__call__(parser, namespace, values, option_string)


def check_repeats(args: argparse.Namespace, magic: str) -> None:
    """Raise one ``UsageError`` naming every flag given twice."""
    conflicts: Sequence[str] = getattr(args, _CONFLICTS, None) or ()
    if conflicts:
        raise UsageError(f"{magic}: " + "; ".join(conflicts) + ". Nothing was run.")


def join_comma_lists(tokens: list[str]) -> list[str]:
    """Re-join a comma list split by spaces: ``["a,", "b"]`` / ``["a", ",b"]`` -> ``["a,b"]``."""
    out: list[str] = []
    for token in tokens:
        joins = out and (out[-1].endswith(",") or token.startswith(","))
        bare_flag = out and out[-1].startswith("-") and "=" not in out[-1]
        if joins and not bare_flag and not token.startswith("-"):
            out[-1] += token
        else:
            out.append(token)
    return out
