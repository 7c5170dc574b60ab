"""``%suggest EXPR``: propose a fix per graph break and recompile of a call, proven on a copy."""

from __future__ import annotations

from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments

from ..api import Suggestions, suggest
from ..core.fixes.suggest import DEFAULT_BUDGET_S, SuggestError, SuggestInterrupted
from .arguments import Once
from .call_magic import CallCommand, budget_settings, run_call_magic

_COMMAND = CallCommand(
    magic="%suggest", run=suggest, settings=budget_settings("%suggest"),
    interrupted=SuggestInterrupted, error=SuggestError,
    purpose="it compiles and replays the call.")


@magics_class
class SuggestMagics(Magics):
    """The ``%suggest`` line magic."""

    @magic_arguments()
    @argument("expr", nargs="*", help="A call, e.g. f(x) or model(x, y=2).")
    @argument("--budget", "-b", type=float, default=DEFAULT_BUDGET_S, metavar="S",
              action=Once,
              help=f"Seconds for all trials together (default {DEFAULT_BUDGET_S:g}); "
                   "trials left when it runs out are listed as not tried.")
    @line_magic("suggest")
    def suggest(self, line: str) -> Suggestions:
        """Propose a change for each graph break and recompile of EXPR, and prove it.

        The call is compiled on a fresh copy (your compiled function, its caches and its
        report are untouched) for the baseline; each proposed change (a torch._dynamo
        setting, a %%compile option, or a rewrite of your line) is tried on another copy,
        and marked verified only with fewer breaks/recompiles and the same result.
        Ctrl-C stops it and keeps the baseline and the trials done (marked interrupted).
        For recompiles over several calls use nbcompile.suggest(fn, calls=[...]).

        Examples::

            %suggest step(x)
            %suggest model(x) --budget 30
            s = %suggest f(x)       # s is an nbcompile.Suggestions
        """
        __tracebackhide__ = True  # noqa: F841 - IPython hides this frame in tracebacks
        return run_call_magic(_COMMAND, self.suggest, self.shell, line)
