"""Where the problem comes in: the compiler subsystem, the op or kernel, the user's line.

Three sources, best first:

* torch's ``CompilerBisector`` (``bisection``, for problems that need
  ``aot_eager_decomp_partition`` or ``inductor``): it recompiles fresh copies with one
  subsystem after another switched off, then bisects over the applications of the one
  that matters; a lowering names a node of Inductor's post-grad graph, whose ``# File:``
  comment gives the user's line;
* torch.library's ``opcheck`` on each custom op the call runs (``custom_ops``): a wrong
  fake kernel or backward formula is named at the line that calls the op;
* the error itself (``sites``): Dynamo's user stack (``real_stack``), the forward call
  autograd's anomaly mode names for a failing backward formula, the traceback's user
  frames.
"""

from __future__ import annotations

import time
from typing import Any

from .bisection import Step, bisect, bisection_culprit
from .custom_ops import check_custom_ops
from .ladder import BISECTABLE, LAYER_NAMES
from .record import Diagnosis, Rung
from .runs import Bench, Run
from .sites import Found, error_site


def find_culprit(result: Diagnosis, bench: Bench, first: Rung, runs: dict[str, Run], top: Run,
                 options: dict[str, Any], own: set[str], deadline: float) -> Found:
    """The culprit of the problem ``first`` (the lowest rung showing it) brings in: the
    bisection's answer, else (a crash) a custom op's check or the error's stack."""
    found = Found()
    if first.backend in BISECTABLE:
        if time.perf_counter() > deadline:
            result.skipped.append("bisection (torch's CompilerBisector): the time budget "
                                  "was used up")
        else:
            steps: list[Step] = []
            result.bisection = bisect(bench, options, result.kind == "crash", deadline, steps)
            if result.bisection.note.startswith("stopped"):
                result.skipped.append(f"bisection: {result.bisection.note}")
            found = bisection_culprit(result.bisection, steps)
    if result.kind != "crash":
        if not found.culprit:
            found.note = ("no culprit found: " + (result.bisection.note if result.bisection
                          else "the bisection did not run"))
        return found
    failing = runs.get(first.backend) or top
    if first.layer in ("dynamo", "aot_autograd") and not found.culprit:
        if time.perf_counter() > deadline:
            result.skipped.append("custom op checks: the time budget was used up")
        else:
            checked = check_custom_ops(bench, own, deadline)
            if checked is not None:
                found = checked
    if failing.error is not None and found.site is None:
        site = error_site(failing.error, failing.warnings, own)
        if site is not None:
            found.site = site
            if not found.culprit:
                found.culprit = f"the error in {LAYER_NAMES[first.layer]} at this line ({site.how})"
    if not found.culprit and failing.error is not None:
        found.culprit = f"the error in {LAYER_NAMES[first.layer]} (no user line in its stack)"
    return found
