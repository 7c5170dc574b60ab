"""``%kprun EXPR [--repeat N]``: where the time of a call goes, per kernel and per line."""

from __future__ import annotations

import argparse
from typing import Any

from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments

from ..api import Profile, profile
from ..core.perf.call_options import check_repeat
from ..core.perf.profile.run import DEFAULT_REPEAT, ProfileError, ProfileInterrupted
from .arguments import Once, OnceFlag
from .call_magic import CallCommand, checked, run_call_magic


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    """``profile``'s keyword arguments from ``%kprun``'s options, checked."""
    return {"repeat": checked("%kprun", check_repeat, args.repeat, "--repeat"),
            "memory": not args.no_memory}


_COMMAND = CallCommand(
    magic="%kprun", run=profile, settings=_settings, interrupted=ProfileInterrupted,
    error=ProfileError, placement="put the call before or after them")


@magics_class
class ProfileMagics(Magics):
    """The ``%kprun`` line magic (after IPython's ``%prun`` and line_profiler's ``%lprun``)."""

    @magic_arguments()
    @argument("expr", nargs="*", help="A call, e.g. f(x) or model(x).")
    @argument("--repeat", "-r", type=int, default=DEFAULT_REPEAT, metavar="N", action=Once,
              help=f"Profiled calls, after the warm-up (default {DEFAULT_REPEAT}).")
    @argument("--no-memory", dest="no_memory", action=OnceFlag,
              help="Do not measure memory (by default one more compiled call and one more "
                   "eager call measure the peak, bytes per kernel and per line, and the "
                   "timeline of bytes in use).")
    @line_magic("kprun")
    def kprun(self, line: str) -> Profile:
        """Profile EXPR (a call) compiled and eagerly: time per kernel and per source line.

        A fresh copy of the function is compiled with Inductor's kernel profiling (your
        own compiled target is untouched), warmed up, then run N times under
        torch.profiler; the eager call runs N times under a line timer. Shows the source
        coloured by measured time, the kernel table, and the time per call split into
        kernels, overhead (guards, launches) and Python between graphs (graph breaks).
        Memory too: the peak and allocated bytes of one call, compiled and eager, bytes
        per kernel and per line, and the timeline of bytes in use (p.memory).
        Ctrl-C stops it and keeps what was measured (marked interrupted).

        Examples::

            %kprun gelu_chain(x)
            %kprun model(x) --repeat 50
            p = %kprun train_step(x, y)     # p is an nbcompile.Profile
        """
        __tracebackhide__ = True  # noqa: F841 - IPython hides this frame in tracebacks
        return run_call_magic(_COMMAND, self.kprun, self.shell, line)
