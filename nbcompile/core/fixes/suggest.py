"""Fixes that prove themselves: propose a change per graph break or recompile, try it.

``suggest(fn, *args, calls=None, **kwargs)`` compiles a fresh copy of ``fn`` (as
``compare()`` does: ``fresh_copy``, calls in a ``Sandbox``, under ``suppressed()`` so the
session does not see it) and replays the calls: that is the baseline (graphs, breaks,
recompiles, run time). For each break and recompile it proposes changes (a
``torch._dynamo.config`` setting, a ``%%compile`` option, or a rewrite of the user's own
line) and tries each one on another fresh copy, under ``torch._dynamo.config.patch`` (so
every global setting comes back). A change is ``verified`` only when the copy has fewer
breaks (or recompiles) *and* gives the same result within the dtype's tolerance; the
user's compiled callable, its Dynamo caches and its report are never touched.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from ..perf.call_options import check_budget
from ..records import GraphBreak
from ..runs.produced import Produced
from ..runs.timed import first_line
from ..steps import Interrupted, Progress, ctrl_c_delivered, ctrl_c_watched, tell
from .proposals import find_problems, propose
from .record import DEFAULT_BUDGET_S, Measured, Problem, SameResult, Suggestion, Suggestions
from .repro_offer import offer
from .trials import Trial, reference_outputs, run_trial

__all__ = ["DEFAULT_BUDGET_S", "Measured", "Problem", "SameResult", "SuggestError",
           "Suggestion", "SuggestInterrupted", "Suggestions", "suggest"]

#: A fix that is this much slower than the baseline says so.
SLOWER = 1.10


class SuggestError(ValueError):
    """Bad input to ``suggest``; the message says what is allowed."""


def _calls(args: tuple, kwargs: dict, calls: Sequence[Any] | None) -> list[tuple[tuple, dict]]:
    if calls is None:
        return [(tuple(args), dict(kwargs))]
    if args or kwargs:
        raise SuggestError("give either calls=[...] or the arguments of one call, not both")
    out: list[tuple[tuple, dict]] = []
    for i, call in enumerate(calls):
        if isinstance(call, dict):
            out.append(((), dict(call)))
        elif isinstance(call, tuple):
            out.append((call, {}))
        else:
            raise SuggestError(
                f"calls[{i}] is a {type(call).__name__}: each call is a tuple of positional "
                "arguments, e.g. calls=[(x1,), (x2,)]")
    if not out:
        raise SuggestError("calls is empty: give at least one tuple of arguments")
    return out


def _judge(item: Suggestion, baseline: Measured, breaks: list[GraphBreak]) -> None:
    after = item.after
    assert after is not None
    if after.error:
        item.status = "tried, did not help"
        item.note = f"{item.note}; the copy failed: {after.error}"
        return
    if item.problem.kind == "recompile":  # ... without trading them for graph breaks
        better = (after.recompiles < baseline.recompiles
                  and after.breaks <= baseline.breaks)
        what = f"recompiles {baseline.recompiles} -> {after.recompiles}"
        if after.breaks != baseline.breaks:
            what += f", breaks {baseline.breaks} -> {after.breaks}"
    else:
        better = after.breaks < baseline.breaks
        what = f"breaks {baseline.breaks} -> {after.breaks}"
    same = item.same_result
    if same.ok is False:
        item.status = "tried, did not help"
        item.note = (f"{item.note}; changes the result: max abs difference "
                     f"{same.max_abs_diff:.3g} (tolerance {same.tolerance}); {what}")
        return
    if not better:
        left = "; ".join(sorted({b.reason.splitlines()[0] for b in breaks}))[:300]
        item.status = "tried, did not help"
        item.note = f"{item.note}; {what}" + (f" (still: {left})" if left else "")
        return
    item.verified, item.status = True, "verified"
    item.note = f"{item.note}; {what}, same result"
    if baseline.time_s and after.time_s and after.time_s > baseline.time_s * SLOWER:
        item.note += (f"; slower: {after.time_s * 1e3:.3g} ms vs {baseline.time_s * 1e3:.3g} "
                      "ms per pass")
    if after.timing_note:
        item.note += f"; {after.timing_note}"


# --- entry point ------------------------------------------------------------------------


@ctrl_c_watched()
def suggest(fn: Any, *args: Any, calls: Sequence[Any] | None = None,
            budget_s: float = DEFAULT_BUDGET_S, progress: Progress | None = None,
            **kwargs: Any) -> Suggestions:
    """Propose a change for each graph break and recompile of ``fn`` and try each one.

    ``fn`` is a function or module (compiled by ``%%compile`` or not); it is never
    touched. With ``calls=[args_tuple, ...]`` the calls are replayed in order (needed for
    recompiles from changing sizes); otherwise one call with ``*args, **kwargs``.
    ``budget_s`` bounds the trials: those left when it runs out are listed as not tried.
    ``progress`` hears each step as it starts (the baseline, trial i of n with the budget
    left; ``core/steps.py``). Ctrl-C stops it: the user's objects and torch's settings
    are put back and a ``SuggestInterrupted`` (a ``KeyboardInterrupt``) carries the
    baseline and the trials done so far (``partial``, marked ``interrupted``).
    """
    if not callable(fn):
        raise SuggestError(f"suggest needs a function or module, not {type(fn).__name__}")
    budget_s = check_budget(budget_s)
    replay = _calls(args, kwargs, calls)
    started = time.perf_counter()
    deadline = started + float(budget_s)
    name = getattr(fn, "__name__", None) or type(fn).__name__
    result = Suggestions(name, Measured(error=_INTERRUPTED), calls=len(replay),
                         budget_s=float(budget_s))
    where = "the eager reference run"
    try:
        tell(progress, "suggest", "running eagerly (the reference)")
        reference = reference_outputs(fn, replay, result.notes)
        where = "the baseline compile"
        tell(progress, "suggest", "compiling a copy as it is (the baseline)",
             remaining_s=deadline - time.perf_counter())
        result.baseline, _, breaks = run_trial(fn, replay, reference, Trial(), deadline)
        if result.baseline.error:
            result.notes.append(f"the baseline compile failed: {result.baseline.error}")
        where = "the proposals"
        result.problems = find_problems(fn, breaks, result.baseline)
        proposals = [p for problem in result.problems for p in propose(fn, problem, replay)]
        _try_all(fn, replay, reference, proposals, result, deadline, progress)
    except _Stopped as stop:  # Ctrl-C during a trial: the items so far, the rest not tried
        result.interrupted = True
        where = stop.where
    except KeyboardInterrupt:
        ctrl_c_delivered()
        result.interrupted = True
    if not result.problems and not result.interrupted:
        result.notes.append("no graph breaks or recompiles: nothing to fix")
    elif not result.interrupted and not result.verified and all(
            item.after is not None for item in result.items):  # each change tried, none helped
        fact = ("recompile" if any(p.kind == "recompile" for p in result.problems)
                else "graph_breaks")
        result.notes.append(offer(fn, fact, "No change proposed here removed a "
                                  + ("recompile" if fact == "recompile" else "graph break")))
    result.elapsed_s = round(time.perf_counter() - started, 3)
    if result.interrupted:
        tried = sum(1 for item in result.items if item.after is not None)
        result.notes.insert(0, (
            f"interrupted (Ctrl-C) during {where} after {result.elapsed_s:.1f}s: "
            + ("the baseline was not measured. " if result.baseline.error == _INTERRUPTED
               else f"the baseline and {tried} trial(s) done are kept"
               + ("; the changes not tried say so. " if result.items else ". "))
            + "Your objects, torch's settings and RNG state are as before."))
        raise SuggestInterrupted(result)
    return result


#: The baseline's ``error`` when Ctrl-C came before it was measured.
_INTERRUPTED = "KeyboardInterrupt: interrupted (Ctrl-C) before it was measured"


class SuggestInterrupted(Interrupted):
    """Ctrl-C during ``suggest()``: ``partial`` holds the baseline and the trials done so
    far (``interrupted``)."""

    def __init__(self, partial: Suggestions) -> None:
        super().__init__("suggest", partial)


class _Stopped(KeyboardInterrupt):
    """Ctrl-C inside ``_try_all``: ``where`` says which trial it cut."""

    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where


def _try_all(fn: Any, replay: list[tuple[tuple, dict]], reference: list[Produced],
             proposals: list[tuple[Suggestion, Trial | None]], result: Suggestions,
             deadline: float, progress: Progress | None) -> None:
    """Try each proposal on a copy, in order; after Ctrl-C every proposal is still listed
    (those not tried say so) and ``_Stopped`` names the trial it cut."""
    trials = sum(1 for _, trial in proposals if trial is not None)
    index = 0
    for position, (item, trial) in enumerate(proposals):
        result.items.append(item)
        if trial is None:
            continue
        index += 1
        if time.perf_counter() > deadline:
            item.note += f"; not tried: the {result.budget_s:g} s budget was used up"
            continue
        try:
            tell(progress, "suggest", "compiling a changed copy and replaying the calls",
                 index, trials, first_line(item.change), deadline - time.perf_counter())
            after, same, after_breaks = run_trial(fn, replay, reference, trial, deadline)
        except KeyboardInterrupt:
            ctrl_c_delivered()
            for left, left_trial in proposals[position:]:
                if left is not item:
                    result.items.append(left)
                if left_trial is not None:
                    left.note += "; not tried: interrupted (Ctrl-C)"
            raise _Stopped(f"trial {index} of {trials} ({first_line(item.change)})") from None
        item.after, item.same_result = after, same
        _judge(item, baseline=result.baseline, breaks=after_breaks)
