"""``%diagnose EXPR``: when a compiled call crashes or changes the numbers, find the layer, the
op and the line, and prove the workarounds on copies."""

from __future__ import annotations

from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments

from ..api import Diagnosis, diagnose
from ..core.diagnosis.diagnose import DEFAULT_BUDGET_S, DiagnoseError, DiagnosisInterrupted
from .arguments import Once
from .call_magic import CallCommand, budget_settings, run_call_magic

_COMMAND = CallCommand(
    magic="%diagnose", run=diagnose, settings=budget_settings("%diagnose"),
    interrupted=DiagnosisInterrupted, error=DiagnoseError,
    purpose="it runs the call eagerly and compiled.")


@magics_class
class DiagnoseMagics(Magics):
    """The ``%diagnose`` line magic."""

    @magic_arguments()
    @argument("expr", nargs="*", help="A call, e.g. f(x) or model(x, y=2).")
    @argument("--budget", "-b", type=float, default=DEFAULT_BUDGET_S, metavar="S",
              action=Once,
              help=f"Seconds for the ladder, the bisection, the float64 reference and the "
                   f"workarounds together (default {DEFAULT_BUDGET_S:g}); the eager run and "
                   "the first compiled run always happen. Steps cut are listed.")
    @line_magic("diagnose")
    def diagnose(self, line: str) -> Diagnosis:
        """Find why the compiled EXPR crashes or differs from eager, and what helps.

        EXPR runs eagerly and as a compiled fresh copy (your compiled function, its caches,
        your inputs and settings are untouched; settings you patched before the call, such
        as torch._inductor.config values, apply to the copies). The verdict is crash,
        accuracy (outside torch.testing.assert_close's default tolerance for the dtype)
        or ok. Then the ladder backend="eager" (Dynamo), "aot_eager" and
        "aot_eager_decomp_partition" (AOTAutograd), "inductor" gives the layer; torch's
        CompilerBisector, custom-op checks and the error's stack give the op and your
        line; a float64 run says whether eager or compiled is closer to the truth; and
        workarounds (emulate_precision_casts, fallback_random, a lower backend,
        torch.compiler.disable) are tried on copies, with their measured effect and cost.
        Ctrl-C stops it and keeps what was established so far (marked interrupted).

        Examples::

            %diagnose f(x)
            %diagnose model(x) --budget 30
            d = %diagnose f(x)       # d is an nbcompile.Diagnosis
        """
        __tracebackhide__ = True  # noqa: F841 - IPython hides this frame in tracebacks
        return run_call_magic(_COMMAND, self.diagnose, self.shell, line)
