"""The accuracy fact: a compiled call's numbers against eager's (``assert_close``'s default
tolerance) and against a float64 run (who is closer), measured in the notebook as
``%diagnose`` measures them (fresh copies on ``diagnosis.runs.Bench``), and the script's
lines that measure them again in the fresh process, whose numbers decide."""

from __future__ import annotations

from typing import Any

from ..diagnosis.diagnose import user_options
from ..diagnosis.precision import casts_inside
from ..diagnosis.reference import CLOSER, errors
from ..diagnosis.runs import Bench, Trial
from ..diagnosis.sites import error_text
from .facts import Fact, NoFact


def accuracy_fact(target: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Fact:
    """Eager and a fresh compiled copy (the target's options) on copies of the inputs,
    judged with ``assert_close``'s default tolerance; eager with float64 inputs (and
    parameters) as the reference. ``NoFact`` (in words) where they agree or cannot be
    judged."""
    backend, options, _ = user_options(target)
    bench = Bench(target, tuple(args), dict(kwargs))
    try:
        eager = bench.eager(timed=0)
        if eager.error is not None:
            raise NoFact(f"the call raises eagerly ({error_text(eager.error)[0]})")
        if bench.random:
            raise NoFact("the call draws random numbers: compiled code draws others, so its "
                         "numbers are no accuracy fact (%diagnose tells randomness apart)")
        top = bench.run(Trial(backend=backend, options=dict(options), capture=True, timed=0))
        if top.error is not None:
            raise NoFact(f"the compiled call raises ({error_text(top.error)[0]}): "
                         "fact='crash' reproduces that")
        judged = top.judged
        if judged is None or not judged.comparable:
            raise NoFact("nothing the call returns can be compared with eager's")
        if judged.ok:
            raise NoFact("the compiled result matches eager within assert_close's default "
                         f"tolerance (max abs difference {judged.max_abs_diff:.3g})")
        expected: dict[str, Any] = {"max_abs_diff": judged.max_abs_diff,
                                    "mismatched": judged.mismatched, "numel": judged.numel,
                                    "closer": "unknown"}
        if casts_inside(top.dynamo_graphs):
            expected["reference"] = ("the function casts inside: float64 inputs are no "
                                     "reference (%diagnose makes one through its graph)")
        else:
            ref, note = bench.float64()
            errs = (errors(ref, bench.expected), errors(ref, top.leaves or [])) if ref else None
            if errs and errs[0] is not None and errs[1] is not None:
                expected.update(eager_error=errs[0][0], compiled_error=errs[1][0],
                                closer=closer(errs[0][0], errs[1][0]))
            else:
                expected["reference"] = note if ref is None else "the outputs do not line up"
    finally:
        bench.close()
    diff = judged.max_abs_diff
    words = (f"compiled differs from eager by up to "
             f"{'an unmeasurable amount' if diff is None else f'{diff:.3g}'}, "
             f"{judged.mismatched} of {judged.numel} elements out of tolerance")
    if expected["closer"] != "unknown":
        words += (f"; against float64, {expected['closer']} is closer (eager "
                  f"{expected['eager_error']:.3g}, compiled {expected['compiled_error']:.3g})")
    return Fact("accuracy", words, expected)


def closer(eager_error: float, compiled_error: float) -> str:
    """Who is closer to float64, as ``%diagnose`` says it."""
    if compiled_error <= CLOSER * eager_error:
        return "compiled"
    if eager_error <= CLOSER * compiled_error:
        return "eager"
    return "neither"


def judge(expected: dict[str, Any], seen: dict[str, Any]) -> list[str]:
    """What the fresh run's numbers did not show of the accuracy fact."""
    if seen.get("within_tolerance", True):
        return ["compiled matched eager within assert_close's default tolerance there "
                f"(max abs difference {seen.get('max_abs_diff')})"]
    if expected["closer"] in ("eager", "compiled") and seen.get("closer") != expected["closer"]:
        return [f"against float64, {seen.get('closer')} was closer there, not "
                f"{expected['closer']} ({seen.get('reference') or 'its errors: eager '}"
                f"{seen.get('eager_error')}, compiled {seen.get('compiled_error')})"]
    return []


#: The script's helpers: outputs' tensors, fresh copies of the inputs (float64 for the
#: reference), the largest difference, who is closer. Standalone: torch and the stdlib.
HELPERS = f'''
def leaves(value):
    """The tensors of an output, in order."""
    if isinstance(value, torch.Tensor):
        return [value.detach()]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in leaves(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in leaves(v)]
    return []


def fresh(value, dtype=None):
    """A copy of an input (its floating tensors in ``dtype`` when given)."""
    if isinstance(value, torch.Tensor):
        copy = value.detach().clone()
        if copy.is_floating_point():
            copy = copy.to(dtype or copy.dtype).requires_grad_(value.requires_grad)
        return copy
    if isinstance(value, (list, tuple)):
        return type(value)(fresh(v, dtype) for v in value)
    if isinstance(value, dict):
        return {{k: fresh(v, dtype) for k, v in value.items()}}
    return value


def largest_gap(reference, got):
    """The largest abs difference between matching floating tensors (float64)."""
    gaps = [float(torch.nan_to_num((a.double() - b.double()).abs(), nan=0.0).max())
            for a, b in zip(reference, got) if a.is_floating_point() and a.shape == b.shape
            and a.numel()]
    return max(gaps) if gaps else None


def closer(eager_error, compiled_error):
    """Who is closer to float64 (the closer one's error at most {CLOSER} of the other's)."""
    if compiled_error <= {CLOSER} * eager_error:
        return "compiled"
    if eager_error <= {CLOSER} * compiled_error:
        return "eager"
    return "neither"
'''


def check_lines(fact: Fact, eager: str, eager64: str, call: str, call64: str,
                mark: str) -> list[str]:
    """The script's check: eager, compiled and float64 runs on fresh copies of the
    inputs; its numbers printed as JSON after ``mark``; exit 1 in words when compiled
    matches eager (or the other side is closer to float64)."""
    return [
        "# --- the fact: compiled numbers differ from eager's (and float64: who is closer) ---",
        f"EXPECTED = {fact.expected!r}", *HELPERS.splitlines(), "",
        f"eager_out = leaves({eager}({call}))",
        f"compiled_out = leaves(compiled({call}))",
        "try:",
        "    torch.testing.assert_close(compiled_out, eager_out, equal_nan=True)",
        "    within = True",
        "except AssertionError:",
        "    within = False",
        "seen = {\"within_tolerance\": within, \"max_abs_diff\": largest_gap(eager_out, "
        "compiled_out)}",
        "try:",
        f"    reference = leaves({eager64}({call64}))",
        "except Exception as e:",
        "    reference, seen[\"reference\"] = None, f\"the float64 run failed: {e}\"[:200]",
        "if reference and all(t.dtype == torch.float64 for t in reference "
        "if t.is_floating_point()):",
        "    seen[\"eager_error\"] = largest_gap(reference, eager_out)",
        "    seen[\"compiled_error\"] = largest_gap(reference, compiled_out)",
        "    if None not in (seen[\"eager_error\"], seen[\"compiled_error\"]):",
        "        seen[\"closer\"] = closer(seen[\"eager_error\"], seen[\"compiled_error\"])",
        "elif reference is not None:",
        "    seen[\"reference\"] = \"the float64 run returned no float64 tensors\"",
        f"print({mark!r}, json.dumps(seen))",
        "if within:",
        "    sys.exit(f\"did not reproduce: compiled matches eager within assert_close's \"",
        "             f\"default tolerance (max abs difference {seen['max_abs_diff']})\")",
        "if EXPECTED[\"closer\"] in (\"eager\", \"compiled\") and "
        "seen.get(\"closer\") != EXPECTED[\"closer\"]:",
        "    sys.exit(f\"did not reproduce: against float64, {seen.get('closer')} is closer, \"",
        "             f\"not {EXPECTED['closer']} ({seen})\")",
        "print(f\"reproduced: compiled differs from eager by up to {seen['max_abs_diff']:.3g}\"",
        "      + (f\"; against float64, {seen['closer']} is closer\" if 'closer' in seen "
        "else \"\"))"]
