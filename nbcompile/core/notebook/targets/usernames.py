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


_ARG = re.compile(r"(?<![\w.\]])(?:L\[['\"]args['\"]\]|args)\[(\d+)\]")
_KWARG = re.compile(r"(?<![\w.\]])(?:L\[['\"]kwargs['\"]\]|kwargs)\[['\"](\w+)['\"]\]")


def module_text(text: str, name: str, arg_names: list[str] | tuple[str, ...] = ()) -> str:
    """``text`` with the entry's ``self`` paths written as the user's ``name`` paths, and
    its ``args[0]`` / ``kwargs['k']`` as the names of ``forward``'s parameters."""
    if not text:
        return text
    text = _CHILD.sub(_child, _SELF.sub(name, text))

    def arg(m: re.Match[str]) -> str:
        i = int(m.group(1))
        return arg_names[i] if i < len(arg_names) else m.group(0)

    text = _KWARG.sub(lambda m: m.group(1), _ARG.sub(arg, text))

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


_WRAPPED_ARG = re.compile(r"(?<![\w.\]])(L\[['\"]args['\"]\]|args)\[(\d+)\]")
_WRAPPED_GRAPH_ARG = re.compile(r"\b([Ll])_args_(\d+)_")


def wrapped_args_text(text: str) -> str:
    """``text`` of a frame of torch's ``wrap_inline(Module._call_impl)`` (how torch.nn's
    own modules are compiled) written as for ``_call_impl(self, *args)``: its
    ``args[0]`` is the module (``self``), ``args[1]`` the call's first argument."""
    if not text or "args" not in text:
        return text

    def arg(m: re.Match[str]) -> str:
        i = int(m.group(2))
        if i == 0:
            return "L['self']" if m.group(1).startswith("L") else "self"
        return f"{m.group(1)}[{i - 1}]"

    def graph_arg(m: re.Match[str]) -> str:
        i = int(m.group(2))
        return f"{m.group(1)}_self_" if i == 0 else f"{m.group(1)}_args_{i - 1}_"

    return _WRAPPED_GRAPH_ARG.sub(graph_arg, _WRAPPED_ARG.sub(arg, text))


#: A guard's comment naming the entry's line: ``# return self._call_impl(*args, **kwargs)
#: # <nbcompile-entry-0:model>:3 in model``.
_ENTRY_GUARD_COMMENT = re.compile(
    r"# return self\._call_impl\(\*args, \*\*kwargs\)\s+# <nbcompile-entry-\d+:[^>]*>:\d+ "
    r"in \w+|<nbcompile-entry-\d+:[^>]*>:\d+ in \w+")
#: The entry's frame in a traceback text (Dynamo's "from user code:"), with the frame of
#: torch's ``Module._call_impl`` it calls: ``module.compile()`` has neither. Each frame's
#: source line may be followed by a marker line: ``^^^^`` (torch <= 2.13) or ``~~~~^^^^``
#: (2.15, Python's own traceback style).
_MARKERS = r"(?:[ \t]*[~^]+[ \t]*\n)?"
_ENTRY_FRAME = re.compile(
    r"[ \t]*File \"<nbcompile-entry-\d+:[^>]*>\", line \d+, in \w+\n"
    r"(?:[ \t]+(?!File \")\S.*\n)?" + _MARKERS +
    r"(?:[ \t]*File \"[^\"]*torch[/\\\\]nn[/\\\\]modules[/\\\\]module\.py\", line \d+, "
    r"in _call_impl\n(?:[ \t]+(?!File \")\S.*\n)?" + _MARKERS + ")?")


def guard_text(guards: str, name: str) -> str:
    """A module target's guard tree with the entry's line comments naming the user's call."""
    if not guards or "<nbcompile-entry-" not in guards:
        return guards
    return _ENTRY_GUARD_COMMENT.sub(f"# your call of {name}(...)", guards)


def without_entry_frames(text: str) -> str:
    """A traceback text without nbcompile's entry frame (and torch's ``_call_impl`` frame
    it calls): what ``module.compile()`` would have shown."""
    if not text or "<nbcompile-entry-" not in text:
        return text
    return _ENTRY_FRAME.sub("", text if text.endswith("\n") else text + "\n").rstrip("\n") + (
        "\n" if text.endswith("\n") else "")


def scrub_exception(error: BaseException | None) -> None:
    """Take nbcompile's entry frame out of an exception's text in place (torch writes the
    user stack into its errors' messages: "from user code: ...")."""
    if error is None:
        return
    args = getattr(error, "args", ())
    if any(isinstance(a, str) and "<nbcompile-entry-" in a for a in args):
        error.args = tuple(without_entry_frames(a) if isinstance(a, str) else a for a in args)
    msg = getattr(error, "msg", None)
    if isinstance(msg, str) and "<nbcompile-entry-" in msg:
        try:
            error.msg = without_entry_frames(msg)  # type: ignore[attr-defined]
        except AttributeError:  # a read-only attribute: the text stays as torch wrote it
            pass


_SELF_OR_NAME = r"(?:L\[['\"]self['\"]\]|self|G\[['\"](?P<g>\w+)['\"]\]|(?P<n>[A-Za-z_]\w*))"
#: A guard on an optimizer's state being empty (or not): ``not G['opt'].state``,
#: ``len(self.state[list(dict.keys(self.state))[0]]) != 0`` (``self``: torch's optimizer).
_OPTIMIZER_STATE = re.compile(
    r"^\s*(?:not " + _SELF_OR_NAME + r"\.state|len\(" + _SELF_OR_NAME.replace("g>", "g2>")
    .replace("n>", "n2>") + r"\.state\[list\(dict\.keys\([^)]*\.state\)\)\[\d+\]\]\)"
    r"\s*(?:!=|==|>)\s*0)\s*$")


def optimizer_state_text(reason: str, optimizers: dict[str, str]) -> str:
    """A recompile reason that is an optimizer's state guard, in words: the state was
    empty at the first call and the optimizer created it at its first ``step()``.

    ``optimizers``: the user's optimizer names -> class names (the target's globals).
    """
    if not reason or ".state" not in reason:
        return reason

    def one(part: str) -> str:
        m = _OPTIMIZER_STATE.match(part)
        if m is None:
            return part
        name = next((g for g in (m.group("g"), m.group("n"), m.group("g2"), m.group("n2"))
                     if g and g != "self"), None)
        if name is None:  # ``self``: the optimizer's own method, compiled as a frame
            if not optimizers:
                return part
            name = next(iter(optimizers)) if len(optimizers) == 1 else None
        elif name not in optimizers:  # some other object's ``state``
            return part
        cls = optimizers.get(name or "", "the optimizer")
        who = f"{name}'s" if name else "the optimizer's"
        return (f"{who} state was empty at the first call: {cls} creates it at its first "
                "step(), so this call recompiled once (expected: the state stays, this "
                "does not recompile again)")

    return "; ".join(one(r) for r in reason.split("; "))


_LENGTH = r"len\((?:L\[['\"](?P<{0}>\w+)['\"]\]|(?P<{1}>\w+))\)\s*==\s*(?P<{2}>\d+)"
_VARARGS_LEN = re.compile(r"^\s*" + _LENGTH.format("a", "b", "n")
                          + r"(?P<rest> \(and \d+ older compiled versions? did not match "
                            r"either\))?\s*$")
_GUARD_LEN = re.compile(r"LENGTH_CHECK: " + _LENGTH.format("a", "b", "n"))


def varargs_text(reason: str, who: str, varargs: str, guards: str = "") -> str:
    """A recompile reason that is the length guard on a ``*varargs`` parameter, in words:
    how many positional arguments the compiled version was for and (from the new
    compile's own ``guards``) how many this call passed. ``who``: the target's name."""
    if not reason or "len(" not in reason:
        return reason
    now = next((m.group("n") for m in _GUARD_LEN.finditer(guards or "")
                if varargs in (m.group("a"), m.group("b"))), None)

    def one(part: str) -> str:
        m = _VARARGS_LEN.match(part)
        if m is None or varargs not in (m.group("a"), m.group("b")):
            return part
        n = int(m.group("n"))
        words = (f"{who} was compiled for a call with {n} positional argument"
                 f"{'' if n == 1 else 's'} (*{varargs})")
        if now is not None and int(now) != n:
            words += f"; this call passed {now}, so it recompiled"
        else:
            words += "; this call passed another number, so it recompiled"
        return (f"{words} (the compiled code assumed len({varargs}) == {n})"
                + (m.group("rest") or ""))

    return "; ".join(one(r) for r in reason.split("; "))
