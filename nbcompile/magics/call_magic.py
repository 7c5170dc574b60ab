"""The call magics' one template (``%compare``, ``%kprun``, ``%suggest``, ``%diagnose``): split
the line into the call expression and options, parse and check the options, evaluate the call
in the user's namespace, run the command under a progress line, and on Ctrl-C return what it
did so far."""

from __future__ import annotations

import argparse
import ast
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from IPython.core.error import UsageError
from IPython.core.magic_arguments import parse_argstring

from ..core.perf import call_options
from ..core.perf.call_options import CallOptionError
from ..core.steps import Interrupted
from ..display.progress import ProgressLine
from .arguments import check_repeats, join_comma_lists

R = TypeVar("R")

#: Where the options go, said when words are left after them.
PLACEMENT = "put the call before or after the options"

_LEADING = re.compile(r"^\s*(--?[A-Za-z][\w-]*)(?:=|\s+)(\S+)")
_LEADING_FLAG = re.compile(r"^\s*(--?[A-Za-z][\w-]*)(?=\s|$)")
_OPTION = re.compile(r"^--?[A-Za-z][\w-]*(=.*)?$")


def split_line(line: str, flags: frozenset[str] = frozenset()) -> tuple[str, list[str]]:
    """Split ``%compare`` input into the call expression and option tokens.

    Options go before or after the expression (``%compare f(x) --budget 2`` or
    ``%compare --budget 2 f(x)``); the expression keeps its own quoting and spaces.
    ``flags``: options that take no value (``--no-memory f(x)``: ``f(x)`` is the call).
    """
    rest = line.strip()
    options: list[str] = []
    while True:
        flag = _LEADING_FLAG.match(rest)
        if flag and flag.group(1) in flags:
            options.append(flag.group(1))
            rest = rest[flag.end():].strip()
            continue
        m = _LEADING.match(rest)
        if not m:
            break
        options += [m.group(1), m.group(2)]
        rest = rest[m.end():].strip()
        while rest and (options[-1].endswith(",") or rest.startswith(",")):  # --modes a, b
            word, _, rest = rest.partition(" ")
            options[-1] += word
            rest = rest.strip()
    for m in re.finditer(r"\s(?=-)", rest):
        head, tail = rest[: m.start()], rest[m.end():]
        try:
            tokens = shlex.split(tail)
        except ValueError:
            continue
        if tokens and _OPTION.match(tokens[0]) and _is_expression_end(head):
            return head.strip(), options + tokens
    return rest, options


def _is_expression_end(text: str) -> bool:
    """Whether ``text`` parses on its own (so what follows it is an option, not code)."""
    if not text.strip():
        return False
    try:
        ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return False
    return True


def parse_call_line(magic_fn: Callable[..., Any], line: str, magic: str,
                    placement: str = PLACEMENT) -> tuple[argparse.Namespace, str]:
    """``(options, call expression)`` of a call magic's ``line``, options parsed with the
    magic's own ``magic_arguments``; a ``UsageError`` naming ``magic`` (nothing run) for a
    bad option, a repeated one, words left after the options, or no call."""
    parser = getattr(magic_fn, "parser", None)
    flags = frozenset(o for a in getattr(parser, "_actions", ()) if a.nargs == 0
                      for o in a.option_strings)
    expr, option_tokens = split_line(line, flags)
    option_tokens = join_comma_lists(option_tokens)
    try:
        args = parse_argstring(magic_fn, " ".join(shlex.quote(t) for t in option_tokens))
    except UsageError as e:
        raise UsageError(f"{magic}: {e}") from None
    check_repeats(args, magic)
    if args.expr:
        raise UsageError(f"{magic}: unexpected {' '.join(repr(t) for t in args.expr)} after "
                         f"the options; {placement}. Nothing was run.")
    if not expr:
        raise UsageError(f"{magic} needs a call expression, e.g. {magic} f(x)")
    return args, expr


def checked(magic: str, check: Callable[..., Any], value: Any, flag: str) -> Any:
    """``check(value, flag)``: core's one rule for a command option (the Python API
    applies the same), its refusal a ``UsageError`` naming ``magic`` (nothing run)."""
    try:
        return check(value, flag)
    except CallOptionError as e:
        raise UsageError(f"{magic}: {e}") from None


def check_budget(args: argparse.Namespace, magic: str) -> float:
    """``--budget`` checked as ``budget_s`` is (a positive, finite number of seconds)."""
    return checked(magic, call_options.check_budget, args.budget, "--budget")


def budget_settings(magic: str) -> Callable[[argparse.Namespace], dict[str, Any]]:
    """The settings of a magic whose one option is ``--budget``: ``budget_s``, checked."""
    def settings(args: argparse.Namespace) -> dict[str, Any]:
        return {"budget_s": check_budget(args, magic)}
    return settings


@dataclass(frozen=True)
class CallCommand(Generic[R]):
    """What one call magic adds to the template: its name, the command it runs, and how
    its parsed options become the command's keyword arguments."""

    magic: str  #: "%compare": named in every message
    run: Callable[..., R]  #: ``run(fn, *args, progress=..., **settings, **kwargs)``
    settings: Callable[[argparse.Namespace], dict[str, Any]]  #: checked options -> kwargs
    interrupted: type[Interrupted]  #: Ctrl-C: its ``partial`` is the result
    error: type[Exception]  #: the command's refusal, shown as a ``UsageError``
    purpose: str = ""  #: why a call is needed, said when the expression is not one
    placement: str = PLACEMENT  #: said when words are left after the options


def run_call_magic(command: CallCommand[R], magic_fn: Callable[..., Any], shell: Any,
                   line: str) -> R:
    """Run ``command`` on the call in ``line``: options parsed with ``magic_fn``'s
    ``magic_arguments`` and checked (a ``UsageError``, nothing run), the call evaluated in
    ``shell``'s namespace, the command run under a progress line; Ctrl-C returns what it
    did so far (marked interrupted)."""
    __tracebackhide__ = True  # noqa: F841 - IPython hides this frame in tracebacks
    magic = command.magic
    args, expr = parse_call_line(magic_fn, line, magic, command.placement)
    settings = command.settings(args)
    fn, call_args, call_kwargs = evaluate_call(shell, expr, magic, command.purpose)
    try:
        with ProgressLine(magic) as progress:
            return command.run(fn, *call_args, progress=progress, **settings, **call_kwargs)
    except command.interrupted as e:  # Ctrl-C: what was done, marked interrupted
        return e.partial
    except (command.error, CallOptionError) as e:  # an option core refused, in its words
        raise UsageError(f"{magic}: {e}") from None


def evaluate_call(shell: Any, expr: str, magic: str, purpose: str = ""
                  ) -> tuple[Any, list[Any], dict[str, Any]]:
    """``(callable, args, kwargs)`` of ``expr``; a ``UsageError`` naming ``magic`` if bad."""
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError as e:
        raise UsageError(f"{magic}: not a Python expression: {expr!r} ({e.msg})") from None
    call = tree.body
    if not isinstance(call, ast.Call):
        raise UsageError(f"{magic} needs a call such as f(x), not {expr!r}"
                         + (f": {purpose}" if purpose else ""))
    fn = _eval(shell, call.func, expr, magic)
    if not callable(fn):
        raise UsageError(f"{magic}: {ast.unparse(call.func)} is a "
                         f"{type(fn).__name__}, not a function or module")
    args: list[Any] = []
    for node in call.args:
        if isinstance(node, ast.Starred):
            args.extend(_eval(shell, node.value, expr, magic))
        else:
            args.append(_eval(shell, node, expr, magic))
    kwargs: dict[str, Any] = {}
    for kw in call.keywords:
        if kw.arg is None:
            kwargs.update(_eval(shell, kw.value, expr, magic))
        else:
            kwargs[kw.arg] = _eval(shell, kw.value, expr, magic)
    return fn, args, kwargs


def _eval(shell: Any, node: ast.expr, expr: str, magic: str) -> Any:
    code = compile(ast.Expression(node), f"<{magic}>", "eval")
    try:
        return eval(code, shell.user_global_ns, shell.user_ns)  # noqa: S307
    except Exception as e:
        raise UsageError(
            f"{magic}: could not evaluate {ast.unparse(node)} in {expr!r}: "
            f"{type(e).__name__}: {e}"
        ) from None
