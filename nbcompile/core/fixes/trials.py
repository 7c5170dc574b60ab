"""One trial of ``suggest()``: a fresh copy compiled with one change, the calls replayed
on copies (``runs.sandbox``), its graphs, breaks and recompiles heard on a private capture
(``runs.capture``), its outputs checked against the eager reference, its passes timed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from .. import torch_compat
from ..notebook.cells.cell_names import name_cells
from ..perf.counters import frames_compiled
from ..perf.numerics import drift, drift_note, numeric_diff
from ..perf.timing import WARMUP_CALLS
from ..records import GraphBreak
from ..runs.capture import GraphCapture
from ..runs.copies import fresh_copy, own_automatic_dynamic
from ..runs.produced import FALLBACK_RANDOM, FALLBACK_RANDOM_CODE, Produced, can_draw_like_eager
from ..runs.sandbox import Sandbox
from ..runs.timed import first_line, median_time
from ..runs.wrappers import eager_callable
from ..trace.listener import suppressed
from .record import Measured, SameResult

TIMED_PASSES = 7


@dataclass
class Trial:
    """What to change for one run on a copy."""

    config: dict[str, Any] = field(default_factory=dict)
    dynamic: bool | None = None
    mark_dynamic: list[tuple[int, int]] = field(default_factory=list)  # (arg index, dim)
    function: Callable[..., Any] | None = None  # a rewritten function instead of the copy
    tensor_args: list[int] = field(default_factory=list)  # int arguments passed as tensors


def reference_outputs(fn: Any, calls: list[tuple[tuple, dict]],
                      notes: list[str]) -> list[Produced]:
    """What each call produced eagerly (its output, the inputs and state it changed,
    whether it drew random numbers): a second call from the same start (a first call can
    differ: ``numerics.drift``, told in ``notes``)."""
    eager = eager_callable(fn)
    outs: list[Produced] = []
    worst: float | None = None
    for args, kwargs in calls:
        box = Sandbox(fn, args, kwargs)
        try:
            with box.captured_output(), suppressed():
                out = eager(*box.args, **box.kwargs)
                mutated, state = box.mutated_inputs(), box.changed_state()
                first = box.produced(out, mutated, state)
                del out
                box.reset()
                outs.append(box.produced(eager(*box.args, **box.kwargs), mutated, state))
        finally:
            box.restore()
        gap = drift(first.leaves, outs[-1].leaves)
        if gap is not None:
            worst = max(worst or 0.0, gap)
    if worst is not None:
        notes.append(drift_note(worst))
    return outs


def run_trial(fn: Any, calls: list[tuple[tuple, dict]], reference: list[Produced],
              trial: Trial, deadline: float) -> tuple[Measured, SameResult, list[GraphBreak]]:
    """Compile a fresh copy with ``trial``'s change, replay the calls, check what they
    produced against eager's and time them. A call that draws random numbers runs with
    ``fallback_random`` (the copy draws eager's numbers), so its result is comparable."""
    measured, same = Measured(), SameResult(ok=True, max_abs_diff=0.0)
    capture = GraphCapture()
    target = trial.function if trial.function is not None else fresh_copy(fn)
    tolerances: set[str] = set()
    random = any(ref.random for ref in reference) and can_draw_like_eager()
    compared = 0  # calls with something to compare
    with (torch_compat.dynamo_config().patch(trial.config), capture.listening(), suppressed(),
          torch_compat.inductor_patch(FALLBACK_RANDOM if random else {}),
          own_automatic_dynamic()):
        compiled = torch.compile(target, dynamic=trial.dynamic if trial.dynamic is not None
                                 else _target_dynamic(fn))
        boxes = [Sandbox(fn, args, kwargs) for args, kwargs in calls]
        try:
            for box in boxes:
                if trial.tensor_args:
                    box.args = tuple(torch.tensor(a) if i in trial.tensor_args else a
                                     for i, a in enumerate(box.args))
            for box, ref in zip(boxes, reference, strict=True):
                for index, dim in trial.mark_dynamic:
                    torch_compat.mark_dynamic(box.args[index], dim)
                with box.captured_output():
                    out = compiled(*box.args, **box.kwargs)
                produced = box.produced(out, ref.mutated, ref.state)
                del out
                diff, ok, tol, notes = numeric_diff(ref.leaves, produced.leaves, ref.labels)
                extra = [label for label in box.changed_state() if label not in ref.state]
                if extra:
                    ok = False
                    notes.append(f"changes {', '.join(extra)}, which eager leaves as it was")
                if diff is not None:
                    same.max_abs_diff = max(same.max_abs_diff or 0.0, diff)
                if ok is not None:
                    same.ok = bool(same.ok and ok)
                    compared += 1
                same.notes.extend(n for n in notes if n not in same.notes)
                tolerances.add(tol)
                box.reset()
            if not compared:  # e.g. a generator: no verdict
                same.ok, same.max_abs_diff = None, None
            if random:
                same.notes.append(
                    f"the call draws random numbers: the copy ran with {FALLBACK_RANDOM_CODE}"
                    ", so it draws eager's numbers from the same RNG state"
                    + (" and matches eager: randomness is no difference here" if same.ok
                       else ""))
            measured.graphs = capture.graphs
            measured.breaks = len(capture.breaks)
            measured.recompiles = capture.recompiles
            frames = frames_compiled()
            measured.time_s = _time(compiled, boxes, deadline)
            if frames_during := frames_compiled() - frames:
                measured.timing_note = (
                    f"{frames_during} Dynamo frame compile(s) during the timed passes: "
                    "the time includes that work")
        except Exception as e:  # a trial that fails says so; the others go on
            measured.error = f"{type(e).__name__}: {name_cells(first_line(str(e)))}"
            same.ok = None
        finally:
            for box in boxes:
                box.restore()
    same.tolerance = "; ".join(sorted(t for t in tolerances if t)) or "exact"
    return measured, same, capture.breaks


def _target_dynamic(fn: Any) -> bool | None:
    """The ``dynamic`` option ``fn`` was compiled with by ``%%compile`` (None: automatic),
    so the copies recompile as the user's target does (e.g. ``--no-dynamic`` storms)."""
    from ..notebook.capture.session import get_session

    target = get_session().find(fn)
    return target.options.dynamic if target is not None else None


def _time(compiled: Callable[..., Any], boxes: list[Sandbox], deadline: float) -> float | None:
    """Median time of one steady-state pass over the calls (their compiles are done),
    after ``WARMUP_CALLS`` untimed passes (as ``compare()``: first passes still load code)."""

    def one_pass() -> None:
        for box in boxes:
            with box.captured_output():
                compiled(*box.args, **box.kwargs)

    for _ in range(WARMUP_CALLS):
        one_pass()
    return median_time(one_pass, TIMED_PASSES, deadline)
