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


_GRAPH_SELF = re.compile(r"\b[Ll]_self_(?P<path>\w*?)_(?!\w)")
_GRAPH_ARG = re.compile(r"\b[Ll]_args_(?P<index>\d+)_(?!\w)")
_GRAPH_KWARG = re.compile(r"\b[Ll]_kwargs_(?P<key>\w+?)_(?!\w)")
_CONTAINERS = re.compile(r"(^|_)(?:modules|parameters|buffers)_")
_ENTRY_COMMENT = re.compile(r"# File: <nbcompile-entry-\d+:[^>]*>:\d+ in \w+, code: .*")
_SELF_ASSIGN = re.compile(r"^\s*(\w+) = \1\s*$")


def graph_text(graph: str, name: str, arg_names: list[str] | tuple[str, ...] = ()) -> str:
    """A readable FX graph of a module target with the user's names: the entry's
    ``L_self_modules_0_parameters_weight_`` reads ``model_0_weight``, its ``L_args_0_``
    the ``forward`` argument's name, and its ``# File:`` comment the user's call."""
    if not graph:
        return graph
    ident = re.sub(r"\W", "_", name) or "module"

    def self_path(m: re.Match[str]) -> str:
        path = _CONTAINERS.sub(r"\1", m.group("path"))
        return f"{ident}_{path}" if path else ident

    def arg(m: re.Match[str]) -> str:
        i = int(m.group("index"))
        return arg_names[i] if i < len(arg_names) else f"input{i}"

    text = _GRAPH_SELF.sub(self_path, graph)
    text = _GRAPH_ARG.sub(arg, text)
    text = _GRAPH_KWARG.sub(lambda m: m.group("key"), text)
    text = _ENTRY_COMMENT.sub(f"# File: your call of {name}(...)", text)
    return "\n".join(line for line in text.split("\n") if not _SELF_ASSIGN.match(line))
