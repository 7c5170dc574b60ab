"""The user's names in place of nbcompile's plumbing in what Dynamo says.

A module target is compiled through an entry function that receives the module as its
argument ``self`` (see ``targets.make_module_entry``); Dynamo's guards therefore read
``L['self']._modules['1'].training``. Users wrote ``model[1].training``.
"""

from __future__ import annotations

import re

_SELF = re.compile(r"(?:\bargument self\b|\bL\[['\"]self['\"]\]|(?<![\w.'\"])self(?=[.\[]))")
_CHILD = re.compile(r"\._(?:modules|parameters|buffers)\[['\"]([^'\"]+)['\"]\]")
_TRAINING = re.compile(r"(?P<path>[\w.\[\]]+)\.training changed(?P<rest> \(the compiled code "
                       r"assumed [^)]*== (?P<was>True|False)\))")
_BARE_TRAINING = re.compile(r"(?P<path>[\w.\[\]]+)\.training == (?P<was>True|False)")


def _child(m: re.Match[str]) -> str:
    key = m.group(1)
    return f"[{key}]" if key.isdigit() else f".{key}"


def module_text(text: str, name: str) -> str:
    """``text`` with the entry's ``self`` paths written as the user's ``name`` paths."""
    if not text:
        return text
    text = _CHILD.sub(_child, _SELF.sub(name, text))

    def training(m: re.Match[str]) -> str:
        call = "eval()" if m.group("was") == "True" else "train()"
        return f"{m.group('path')}.training changed: {name}.{call} was called{m.group('rest')}"

    def bare(m: re.Match[str]) -> str:
        rest = f" (the compiled code assumed {m.group(0)})"
        call = "eval()" if m.group("was") == "True" else "train()"
        return f"{m.group('path')}.training changed: {name}.{call} was called{rest}"

    def one(reason: str) -> str:  # reasons are joined by "; "
        if _BARE_TRAINING.fullmatch(reason.strip()):
            return _BARE_TRAINING.sub(bare, reason)
        return _TRAINING.sub(training, reason)

    return "; ".join(one(r) for r in text.split("; "))
