"""One trial of ``suggest()``: a fresh copy compiled with one change, the calls replayed
on copies (``runs.sandbox``), its graphs, breaks and recompiles heard on a private capture
(``runs.capture``), its outputs checked against the eager reference, its passes timed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from .. import torch_compat
from ..perf.counters import frames_compiled
from ..perf.numerics import drift, drift_note, numeric_diff, snapshot_outputs
from ..perf.timing import WARMUP_CALLS
from ..records import GraphBreak
from ..runs.capture import GraphCapture
from ..runs.copies import fresh_copy, own_automatic_dynamic
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
                      notes: list[str]) -> list[list[Any]]:
    """Each call's eager outputs: a second call from the same start (a first call can
    differ: ``numerics.drift``, told in ``notes``)."""
    eager = eager_callable(fn)
    outs = []
    worst: float | None = None
    for args, kwargs in calls:
        box = Sandbox(fn, args, kwargs)
        try:
            with box.captured_output(), suppressed():
                first = snapshot_outputs(eager(*box.args, **box.kwargs))
                box.reset()
                outs.append(snapshot_outputs(eager(*box.args, **box.kwargs)))
        finally:
            box.restore()
        gap = drift(first, outs[-1])
        if gap is not None:
            worst = max(worst or 0.0, gap)
    if worst is not None:
        notes.append(drift_note(worst))
    return outs


def run_trial(fn: Any, calls: list[tuple[tuple, dict]], reference: list[list[Any]],
              trial: Trial, deadline: float) -> tuple[Measured, SameResult, list[GraphBreak]]:
    """Compile a fresh copy with ``trial``'s change, replay the calls, check and time."""
    measured, same = Measured(), SameResult(ok=True, max_abs_diff=0.0)
    capture = GraphCapture()
    target = trial.function if trial.function is not None else fresh_copy(fn)
    tolerances: set[str] = set()
    with (torch_compat.dynamo_config().patch(trial.config), capture.listening(), suppressed(),
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
                diff, ok, tol, notes = numeric_diff(ref, out)
                same.max_abs_diff = max(same.max_abs_diff or 0.0, diff)
                same.ok = bool(same.ok and ok)
                same.notes.extend(notes)
                tolerances.add(tol)
                box.reset()
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
            measured.error = f"{type(e).__name__}: {first_line(str(e))}"
            same.ok = None
        finally:
            for box in boxes:
                box.restore()
    same.tolerance = "; ".join(sorted(t for t in tolerances if t)) or "exact"
    return measured, same, capture.breaks


def _target_dynamic(fn: Any) -> bool | None:
    """The ``dynamic`` option ``fn`` was compiled with by ``%%compile`` (None: automatic),
    so the copies recompile as the user's target does (e.g. ``--no-dynamic`` storms)."""
    from ..notebook.session import get_session

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
