"""``%kprun EXPR [--repeat N]``: where the time of a call goes, per kernel and per line."""

from __future__ import annotations

import ast
import shlex
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from ..api import Profile, profile
from ..core.profile import DEFAULT_REPEAT, ProfileError
from .arguments import Once, check_repeats
from .compare import split_line


@magics_class
class ProfileMagics(Magics):
    """The ``%kprun`` line magic (after IPython's ``%prun`` and line_profiler's ``%lprun``)."""

    @magic_arguments()
    @argument("expr", nargs="*", help="A call, e.g. f(x) or model(x).")
    @argument("--repeat", "-r", type=int, default=DEFAULT_REPEAT, metavar="N", action=Once,
              help=f"Profiled calls, after the warm-up (default {DEFAULT_REPEAT}).")
    @line_magic("kprun")
    def kprun(self, line: str) -> Profile:
        """Profile EXPR (a call) compiled and eagerly: time per kernel and per source line.

        A fresh copy of the function is compiled with Inductor's kernel profiling (your
        own compiled target is untouched), warmed up, then run N times under
        torch.profiler; the eager call runs N times under a line timer. Shows the source
        coloured by measured time, the kernel table, and the time per call split into
        kernels, overhead (guards, launches) and Python between graphs (graph breaks).

        Examples::

            %kprun gelu_chain(x)
            %kprun model(x) --repeat 50
            p = %kprun train_step(x, y)     # p is an nbcompile.Profile
        """
        __tracebackhide__ = True  # noqa: F841 - IPython hides this frame in tracebacks
        expr, option_tokens = split_line(line)
        try:
            args = parse_argstring(self.kprun, " ".join(shlex.quote(t) for t in option_tokens))
        except UsageError as e:
            raise UsageError(f"%kprun: {e}") from None
        check_repeats(args, "%kprun")
        if args.expr:
            raise UsageError(f"%kprun: unexpected {' '.join(repr(t) for t in args.expr)} after "
                             "the options; put the call before or after them. Nothing was run.")
        if not expr:
            raise UsageError("%kprun needs a call expression, e.g. %kprun f(x)")
        if args.repeat < 1:
            raise UsageError(f"%kprun: --repeat must be a whole number >= 1, not {args.repeat}")
        fn, call_args, call_kwargs = self._evaluate(expr)
        try:
            return profile(fn, *call_args, repeat=args.repeat, **call_kwargs)
        except ProfileError as e:
            raise UsageError(f"%kprun: {e}") from None

    def _evaluate(self, expr: str) -> tuple[Any, list[Any], dict[str, Any]]:
        try:
            call = ast.parse(expr.strip(), mode="eval").body
        except SyntaxError as e:
            raise UsageError(f"%kprun: not a Python expression: {expr!r} ({e.msg})") from None
        if not isinstance(call, ast.Call):
            raise UsageError(f"%kprun needs a call such as f(x), not {expr!r}")
        fn = self._eval(call.func, expr)
        if not callable(fn):
            raise UsageError(f"%kprun: {ast.unparse(call.func)} is a {type(fn).__name__}, "
                             "not a function or module")
        args: list[Any] = []
        for node in call.args:
            value = self._eval(node.value if isinstance(node, ast.Starred) else node, expr)
            args.extend(value) if isinstance(node, ast.Starred) else args.append(value)
        kwargs: dict[str, Any] = {}
        for kw in call.keywords:
            value = self._eval(kw.value, expr)
            kwargs.update(value) if kw.arg is None else kwargs.__setitem__(kw.arg, value)
        return fn, args, kwargs

    def _eval(self, node: ast.expr, expr: str) -> Any:
        code = compile(ast.Expression(node), "<%kprun>", "eval")
        try:
            return eval(code, self.shell.user_global_ns, self.shell.user_ns)  # noqa: S307
        except Exception as e:
            raise UsageError(f"%kprun: could not evaluate {ast.unparse(node)} in {expr!r}: "
                             f"{type(e).__name__}: {e}") from None
