"""``%compare EXPR``: time a call eagerly and under each torch.compile mode."""

from __future__ import annotations

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments

from ..api import Comparison, compare
from ..core.perf.modes import DEFAULT_MODES, CompareError
from .arguments import Once, unquoted
from .calls import evaluate_call, parse_call_line


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
        args, expr = parse_call_line(
            self.compare, line, "%compare",
            "separate modes with commas (--modes eager,default) and put the call before "
            "or after the options")
        modes = [m.strip() for m in args.modes.split(",") if m.strip()]
        if not modes:
            raise UsageError("--modes is empty; give e.g. --modes eager,default")
        if not args.budget > 0:
            raise UsageError(f"--budget must be a positive number of seconds, not {args.budget}")
        fn, call_args, call_kwargs = evaluate_call(
            self.shell, expr, "%compare", "it times the call eagerly and compiled.")
        try:
            return compare(fn, *call_args, modes=modes, budget_s=args.budget, **call_kwargs)
        except CompareError as e:
            raise UsageError(f"%compare: {e}") from None
