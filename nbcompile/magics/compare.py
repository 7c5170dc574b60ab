"""``%compare EXPR``: time a call eagerly and under each torch.compile mode."""

from __future__ import annotations

import argparse
from typing import Any

from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments

from ..api import Comparison, compare
from ..core.perf.call_options import check_modes
from ..core.perf.modes import DEFAULT_MODES, CompareError
from ..core.perf.timing import ComparisonInterrupted
from .arguments import Once, OnceFlag, unquoted
from .call_magic import CallCommand, check_budget, checked, run_call_magic


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    """``compare``'s keyword arguments from ``%compare``'s options, checked."""
    modes = checked("%compare", check_modes,
                    [m.strip() for m in args.modes.split(",") if m.strip()], "--modes")
    return {"modes": modes, "budget_s": check_budget(args, "%compare"),
            "memory": not args.no_memory}


_COMMAND = CallCommand(
    magic="%compare", run=compare, settings=_settings, interrupted=ComparisonInterrupted,
    error=CompareError, purpose="it times the call eagerly and compiled.",
    placement="separate modes with commas (--modes eager,default) and put the call before "
              "or after the options")


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
                   "(default 10). First calls (compiles), the memory measurement and the "
                   "profile explaining a slow mode come on top: the output says up front "
                   "how long each took.")
    @argument("--no-memory", dest="no_memory", action=OnceFlag,
              help="Do not measure memory (by default every row's peak and allocated bytes "
                   "of one call are measured: one more call per row).")
    @line_magic("compare")
    def compare(self, line: str) -> Comparison:
        """Time EXPR (a call) eagerly and under each torch.compile mode.

        Each mode compiles a fresh copy of the function (your own compiled targets
        are untouched), reports its first call (compile) apart, then measures steady
        state with torch.utils.benchmark, interleaving every mode with eager in each
        repeat. A verdict needs 10 paired repeats and a 95% interval of the median
        speedup entirely above (faster) or below (slower) 1.0x, or narrow around it (no
        significant difference); otherwise the row says "inconclusive on this machine
        now". The interval is shown beside the verdict. Each row also gets the peak
        and allocated memory of one call ("0.25x eager's peak" beside the time
        verdict) and, for a training step, the bytes saved for backward.
        The max difference to eager's output shows a fast but wrong mode. Calls run
        on copies of your inputs; module buffers and the RNG are restored; what the
        function prints is counted, not shown. While it runs, one line says which
        mode is compiling, warming up or being timed; Ctrl-C stops it and keeps what
        was measured (marked interrupted).

        Examples::

            %compare gelu_chain(x)
            %compare model(x) --modes eager,default,max-autotune-no-cudagraphs --budget 5
            %compare f(x) --no-memory
            r = %compare f(x)       # r is an nbcompile.Comparison
        """
        __tracebackhide__ = True  # noqa: F841 - IPython hides this frame in tracebacks
        return run_call_magic(_COMMAND, self.compare, self.shell, line)
