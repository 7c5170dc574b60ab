"""``%repro EXPR``: a standalone script showing a target's graph breaks, recompile, crash
or numbers that differ from eager's, proven in a fresh process, with a report beside it."""

from __future__ import annotations

import argparse
from typing import Any

from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments

from ..api import Repro, repro
from ..core.repro.facts import KINDS
from ..core.repro.repro import DEFAULT_TIMEOUT_S, ReproError
from ..core.steps import Interrupted
from .arguments import Once, unquoted
from .call_magic import CallCommand, run_call_magic


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    found: dict[str, Any] = {"fact": args.fact, "timeout_s": args.timeout}
    if args.dir is not None:
        found["folder"] = unquoted(args.dir)
    if args.no_env:
        found["collect_env"] = False
    if args.save_inputs:
        found["save_inputs"] = True
    return found


_COMMAND = CallCommand(
    magic="%repro", run=repro, settings=_settings, interrupted=Interrupted, error=ReproError,
    purpose="it writes the call into a script and runs it in a fresh process.")


@magics_class
class ReproMagics(Magics):
    """The ``%repro`` line magic."""

    @magic_arguments()
    @argument("expr", nargs="*", help="A call of a %%%%compile target, e.g. f(x).")
    @argument("--fact", choices=["auto", *KINDS], default="auto", action=Once,
              help="What to reproduce (default auto: the latest recompile a script can "
                   "rebuild, else the graph breaks, else the crash a fresh compiled copy "
                   "raises, else compiled numbers out of tolerance of eager's).")
    @argument("--dir", default=None, metavar="D", action=Once,
              help="A new or empty folder for the files (default: a fresh "
                   "nbcompile-repro-<name>-* folder in the current directory).")
    @argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, metavar="S", action=Once,
              help=f"Seconds the fresh run may take (default {DEFAULT_TIMEOUT_S:g}).")
    @argument("--no-env", action="store_true",
              help="Leave torch's collect_env summary out of the report.")
    @argument("--save-inputs", action="store_true",
              help="Save the call's tensors beside the script (torch.save; it loads them "
                   "with weights_only=True) instead of seeded random values.")
    @line_magic("repro")
    def repro(self, line: str) -> Repro:
        """Write a standalone script (torch and the standard library only) that shows what
        torch.compile did to EXPR (its graph breaks, its recompile, its crash, its numbers
        against eager's and float64's), run it in a fresh process, and say whether it
        reproduced; report.md and the fresh run's TORCH_TRACE go beside it, ready for an
        issue on PyTorch's tracker.

        Examples::

            %repro f(x)
            %repro f(x) --fact crash --dir ./bug
            %repro model(x) --fact accuracy --save-inputs
            r = %repro f(x)      # r is an nbcompile.Repro
        """
        __tracebackhide__ = True  # noqa: F841 - IPython hides this frame in tracebacks
        return run_call_magic(_COMMAND, self.repro, self.shell, line)
