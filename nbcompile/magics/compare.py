"""``%compare EXPR``: time a call eagerly and under each torch.compile mode."""

from __future__ import annotations

import ast
import re
import shlex
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from ..api import Comparison, compare
from ..core.timing import DEFAULT_MODES, CompareError
from .arguments import Once, check_repeats, join_comma_lists, unquoted
from .calls import evaluate_call

_LEADING = re.compile(r"^\s*(--?[A-Za-z][\w-]*)(?:=|\s+)(\S+)")
_OPTION = re.compile(r"^--?[A-Za-z][\w-]*(=.*)?$")


def split_line(line: str) -> tuple[str, list[str]]:
    """Split ``%compare`` input into the call expression and option tokens.

    Options go before or after the expression (``%compare f(x) --budget 2`` or
    ``%compare --budget 2 f(x)``); the expression keeps its own quoting and spaces.
    """
    rest = line.strip()
    options: list[str] = []
    while m := _LEADING.match(rest):
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


@magics_class
class CompareMagics(Magics):
    """The ``%compare`` line magic."""

    @magic_arguments()
    @argument("expr", nargs="*", help="A call, e.g. f(x) or model(x, y=2).")
    @argument("--modes", "-m", default=",".join(DEFAULT_MODES), metavar="MODE[,MODE...]",
              action=Once, type=unquoted,
              help="eager, Inductor modes (default, reduce-overhead, max-autotune, "
                   "max-autotune-no-cudagraphs) and/or Dynamo backend names "
                   f"(default: {','.join(DEFAULT_MODES)}). Eager is always measured: it "
                   "is the baseline.")
    @argument("--budget", "-b", type=float, default=10.0, metavar="S", action=Once,
              help="Seconds for the steady-state measurement of all modes together "
                   "(compiles come on top; default 10).")
    @line_magic("compare")
    def compare(self, line: str) -> Comparison:
        """Time EXPR (a call) eagerly and under each torch.compile mode.

        Each mode compiles a fresh copy of the function (your own compiled targets
        are untouched), reports its first call (compile) apart, then measures steady
        state with torch.utils.benchmark, interleaving every mode with eager in each
        repeat. A verdict needs 10 paired repeats and a narrow 95% interval of the
        median speedup; otherwise the row says "inconclusive on this machine now".
        The max difference to eager's output shows a fast but wrong mode. Calls run
        on copies of your inputs; module buffers and the RNG are restored; what the
        function prints is counted, not shown.

        Examples::

            %compare gelu_chain(x)
            %compare model(x) --modes eager,default,max-autotune-no-cudagraphs --budget 5
            r = %compare f(x)       # r is an nbcompile.Comparison
        """
        __tracebackhide__ = True  # noqa: F841 - IPython hides this frame in tracebacks
        expr, option_tokens = split_line(line)
        option_tokens = join_comma_lists(option_tokens)
        try:
            args = parse_argstring(self.compare, " ".join(shlex.quote(t) for t in option_tokens))
        except UsageError as e:
            raise UsageError(f"%compare: {e}") from None
        check_repeats(args, "%compare")
        if args.expr:
            raise UsageError(
                f"%compare: unexpected {' '.join(repr(t) for t in args.expr)} after the "
                "options; separate modes with commas (--modes eager,default) and put the "
                "call before or after the options. Nothing was run."
            )
        if not expr:
            raise UsageError("%compare needs a call expression, e.g. %compare f(x)")
        modes = [m.strip() for m in args.modes.split(",") if m.strip()]
        if not modes:
            raise UsageError("--modes is empty; give e.g. --modes eager,default")
        if not args.budget > 0:
            raise UsageError(f"--budget must be a positive number of seconds, not {args.budget}")
        fn, call_args, call_kwargs = self._evaluate(expr)
        try:
            return compare(fn, *call_args, modes=modes, budget_s=args.budget, **call_kwargs)
        except CompareError as e:
            raise UsageError(f"%compare: {e}") from None

    def _evaluate(self, expr: str) -> tuple[Any, list[Any], dict[str, Any]]:
        return evaluate_call(self.shell, expr, "%compare",
                             "it times the call eagerly and compiled.")
