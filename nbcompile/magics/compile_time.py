"""``%compile_time EXPR``: where a call's compile time goes and which remedies cut it,
measured on fresh processes."""

from __future__ import annotations

import argparse
from typing import Any

from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments

from ..api import CompileTime, compile_time
from ..core.compiletime.compile_time import CompileTimeInterrupted
from ..core.compiletime.record import REMEDY_KINDS
from ..core.compiletime.rounds import MIN_ROUNDS, ROUNDS
from ..core.perf.call_options import CallOptionError, check_repeat
from .arguments import Once, unquoted
from .call_magic import CallCommand, check_budget, checked, run_call_magic


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    """``compile_time``'s keyword arguments from the magic's options, checked."""
    settings: dict[str, Any] = {
        "remedies": tuple(k.strip() for k in args.remedies.split(",") if k.strip())}
    if args.budget is not None:
        settings["budget_s"] = check_budget(args, "%compile_time")
    settings["rounds"] = checked("%compile_time", check_repeat, args.rounds, "--rounds")
    return settings


_COMMAND = CallCommand(
    magic="%compile_time", run=compile_time, settings=_settings,
    interrupted=CompileTimeInterrupted, error=CallOptionError,
    purpose="it compiles the call in fresh processes.")


@magics_class
class CompileTimeMagics(Magics):
    """The ``%compile_time`` line magic."""

    @magic_arguments()
    @argument("expr", nargs="*", help="A call, e.g. model(x).")
    @argument("--budget", "-b", type=float, default=None, metavar="S", action=Once,
              help="Wall-time limit in seconds for all the fresh processes (default: none); "
                   "what is left untried says so.")
    @argument("--remedies", "-r", default=",".join(REMEDY_KINDS), type=unquoted,
              metavar="KIND[,KIND...]", action=Once,
              help=f"Remedies to try (default: {','.join(REMEDY_KINDS)}).")
    @argument("--rounds", type=int, default=ROUNDS, metavar="N", action=Once,
              help="The most alternated rounds (a baseline cold run, a remedy run) per "
                   f"remedy; a verdict needs at least {MIN_ROUNDS} and the rounds stop at "
                   f"the first one (default {ROUNDS}).")
    @line_magic("compile_time")
    def compile_time(self, line: str) -> CompileTime:
        """Where EXPR's compile time goes, and what cuts it.

        The call is copied into fresh Python processes (cell-defined classes travel as
        their cells' definitions): a cold first call with empty caches, a restart with
        the warm cache it left, and each remedy (regional compilation of repeated blocks,
        a nested compile region, dynamic shapes, the portable cache, a precompiled
        function) in processes of its own, outputs checked against eager. Each remedy is
        judged from alternated rounds of a baseline run and a remedy run: verified only
        with a median cut of at least 10 % beyond the spread of the rounds and the same
        outputs, inconclusive when the rounds or the budget end first. Your objects,
        caches and settings are untouched. Ctrl-C keeps what was measured.

        Examples::

            %compile_time model(x)
            %compile_time model(x) --budget 300 --remedies regional,portable_cache
            %compile_time model(x) --remedies regional --rounds 9
            r = %compile_time model(x)     # r is an nbcompile.CompileTime
        """
        __tracebackhide__ = True  # noqa: F841 - IPython hides this frame in tracebacks
        return run_call_magic(_COMMAND, self.compile_time, self.shell, line)
