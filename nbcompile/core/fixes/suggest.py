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

import collections
import contextlib
import os
import re
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from .. import torch_compat
from ..frames import is_cell_file
from ..notebook.targets import eager_callable, fresh_copy
from ..perf.call_options import check_budget
from ..perf.counters import frames_compiled
from ..perf.numerics import drift, drift_note, numeric_diff, snapshot_outputs
from ..perf.sandbox import Sandbox
from ..perf.timing import WARMUP_CALLS
from ..records import SCHEMA_VERSION, GraphBreak, Record
from ..steps import Interrupted, Progress, ctrl_c_delivered, ctrl_c_watched, tell
from ..trace.listener import TraceEvent, TraceListener, suppressed
from ..trace.payloads import parse_graph_break, recompile_failed_versions
from ..trace.stacks import parse_user_stack
from .rewrites import Rewrite, RewriteError, branch_to_where, keep_as_tensor, numpy_to_torch

#: A fix that is this much slower than the baseline says so.
SLOWER = 1.10
TIMED_PASSES = 7
DEFAULT_BUDGET_S = 60.0
_ITEM = re.compile(r"\.item\(\)|Tensor\.item|capture_scalar_outputs|_local_scalar_dense")
_LOGGING = re.compile(r"\bprint\b|logging|reorderable_logging", re.IGNORECASE)
_SCALAR_CALL = re.compile(r"\.item\(\)|\b(float|int)\(")
_BRANCH = re.compile(r"data-dependent branching|generic_jump|dynamic control flow", re.IGNORECASE)
_NUMPY = re.compile(r"numpy function|\bnumpy\b", re.IGNORECASE)
_NUMPY_CALL = re.compile(r"\b(np|numpy)\.\w+\(")
_LOG_FUNCTIONS = (print,)


class SuggestError(ValueError):
    """Bad input to ``suggest``; the message says what is allowed."""


@dataclass
class Measured(Record):
    """Counts and run time of one setup (the baseline, or a trial on a copy)."""

    graphs: int = 0  # graphs compiled over the calls
    breaks: int = 0  # graph breaks
    recompiles: int = 0  # compiles after a guard of this setup's own versions failed
    time_s: float | None = None  # median steady-state time of one pass over the calls
    error: str = ""  # the trial failed: the exception
    timing_note: str = ""  # e.g. Dynamo frame compiles during the timed passes


@dataclass
class Problem(Record):
    """A graph break or recompile of the baseline: reason and where."""

    kind: str  # graph_break | recompile
    reason: str
    filename: str | None = None
    lineno: int | None = None
    line: str = ""
    in_library: bool = False  # the break is inside code the user cannot edit


@dataclass
class SameResult(Record):
    """The numeric check of a trial's outputs against the eager original's."""

    ok: bool | None = None  # within the dtype's tolerance (null: not run)
    max_abs_diff: float | None = None  # largest absolute difference to eager's output
    tolerance: str = ""
    notes: list[str] = field(default_factory=list)


@dataclass
class Suggestion(Record):
    """One proposed change and what trying it on a copy showed."""

    problem: Problem  # the break or recompile it addresses
    kind: str  # setting | option | rewrite
    change: str  # the exact thing to do, as code
    verified: bool = False  # fewer breaks (or recompiles) on the copy and the same result
    status: str = "not tried"  # verified | tried, did not help | not tried
    after: Measured | None = None  # the trial on a copy (null: not tried)
    same_result: SameResult = field(default_factory=SameResult)  # vs the eager original
    note: str = ""  # what it costs or risks, what happened


@dataclass
class Suggestions(Record):
    """What ``suggest()`` returns: ``baseline``, ``problems`` and ``items``."""

    name: str  # the function or module class
    baseline: Measured  # a fresh copy compiled as it is, the calls replayed
    problems: list[Problem] = field(default_factory=list)  # the baseline's breaks, recompiles
    items: list[Suggestion] = field(default_factory=list)  # one per proposed change
    calls: int = 1  # calls replayed per trial
    budget_s: float = DEFAULT_BUDGET_S  # seconds allowed for all trials
    elapsed_s: float = 0.0  # seconds the trials took
    notes: list[str] = field(default_factory=list)
    interrupted: bool = False  # Ctrl-C stopped it: the trials done so far (see notes[0])
    schema_version: int = SCHEMA_VERSION
    record: str = "suggestions"

    OPTIONAL_KEYS = frozenset({"interrupted"})

    @property
    def verified(self) -> list[Suggestion]:
        return [s for s in self.items if s.verified]



# --- one trial ---------------------------------------------------------------------------


@dataclass
class _Trial:
    """What to change for one run on a copy."""

    config: dict[str, Any] = field(default_factory=dict)
    dynamic: bool | None = None
    mark_dynamic: list[tuple[int, int]] = field(default_factory=list)  # (arg index, dim)
    function: Callable[..., Any] | None = None  # a rewritten function instead of the copy
    tensor_args: list[int] = field(default_factory=list)  # int arguments passed as tensors


class _PrivateCapture:
    """Counts graphs, breaks and recompiles of compiles made inside ``suppressed()``.

    Recompiles count when they come from this trial's calls: a guard failed on a version
    compiled during the trial, in code that is not torch's own. torch's shared code (e.g.
    ``Optimizer.step``, ``zero_grad``) keeps versions for every object it ran for in the
    session and for every earlier ``torch.compile`` call, so its recompiles depend on the
    session's past, not on the change tried.
    """

    def __init__(self) -> None:
        self.graphs = 0
        self.breaks: list[GraphBreak] = []
        self._own: set[tuple[int, int]] = set()  # compiled versions made while listening
        self._recompiled: list[int] = []  # frame ids of recompiles caused here
        self._torch_frames: set[int] = set()  # frame ids of code inside torch's package
        self._listener = TraceListener(self._on_event, private=True)

    @property
    def recompiles(self) -> int:
        return sum(1 for frame in self._recompiled if frame not in self._torch_frames)

    def _on_event(self, event: TraceEvent) -> None:
        if event.frame is not None:
            self._own.add(event.frame)
        if event.kind == "dynamo_start" and event.frame is not None:
            stack = event.data.get("stack") if isinstance(event.data, dict) else None
            if stack and isinstance(stack[-1], dict) and _in_torch(
                    self._listener.filename(stack[-1].get("filename"))):
                self._torch_frames.add(event.frame[0])
        if event.kind == "dynamo_output_graph":
            self.graphs += 1
        elif event.artifact_name == "dynamo_graph_break_reason":
            gb = parse_graph_break(event.payload)
            gb.stack = parse_user_stack(event.payload)
            self.breaks.append(gb)
        elif (event.artifact_name == "recompile_reasons" and event.frame is not None
              and self._caused_here(event.payload)):
            self._recompiled.append(event.frame[0])

    def _caused_here(self, payload: str) -> bool:
        """Whether a recompile failed guards of versions compiled in this trial."""
        failed = recompile_failed_versions(payload)
        return not failed or any(version in self._own for version in failed)

    @contextlib.contextmanager
    def listening(self) -> Iterator[_PrivateCapture]:
        with self._listener.listening():
            yield self


_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep


def _in_torch(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_TORCH_DIR) if filename else False


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


def _reference(fn: Any, calls: list[tuple[tuple, dict]],
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


def _run(fn: Any, calls: list[tuple[tuple, dict]], reference: list[list[Any]],
         trial: _Trial, deadline: float) -> tuple[Measured, SameResult, list[GraphBreak]]:
    """Compile a fresh copy with ``trial``'s change, replay the calls, check and time."""
    measured, same = Measured(), SameResult(ok=True, max_abs_diff=0.0)
    capture = _PrivateCapture()
    target = trial.function if trial.function is not None else fresh_copy(fn)
    tolerances: set[str] = set()
    with (torch_compat.dynamo_config().patch(trial.config), capture.listening(), suppressed(),
          _own_automatic_dynamic()):
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
            measured.error = f"{type(e).__name__}: {_first_line(str(e))}"
            same.ok = None
        finally:
            for box in boxes:
                box.restore()
    same.tolerance = "; ".join(sorted(t for t in tolerances if t)) or "exact"
    return measured, same, capture.breaks


@contextlib.contextmanager
def _own_automatic_dynamic() -> Iterator[None]:
    """An empty automatic-dynamic memory for one trial, the session's put back after.

    Dynamo remembers per code location (file, line, name) which sizes and ints changed,
    and compiles them dynamic from then on; a copy has the user's function's location, so
    without this a copy made after the user's own calls would start dynamic and show
    no recompiles, and a trial's calls would leak into the user's next compile. On a
    torch without that memory (``torch_compat.pgo_state()`` None) trials share it.
    """
    pgo = torch_compat.pgo_state()
    if pgo is None:
        yield
        return
    saved = pgo._CODE_STATE, pgo._INIT_CODE_STATE
    pgo._CODE_STATE = collections.defaultdict(pgo.CodeState)
    pgo._INIT_CODE_STATE = collections.defaultdict(pgo.CodeState)
    try:
        yield
    finally:
        pgo._CODE_STATE, pgo._INIT_CODE_STATE = saved


def _target_dynamic(fn: Any) -> bool | None:
    """The ``dynamic`` option ``fn`` was compiled with by ``%%compile`` (None: automatic),
    so the copies recompile as the user's target does (e.g. ``--no-dynamic`` storms)."""
    from ..notebook.session import get_session

    target = get_session().find(fn)
    return target.options.dynamic if target is not None else None


def _time(compiled: Callable[..., Any], boxes: list[Sandbox], deadline: float) -> float | None:
    """Median time of one steady-state pass over the calls (their compiles are done),
    after ``WARMUP_CALLS`` untimed passes (as ``compare()``: first passes still load code)."""
    for _ in range(WARMUP_CALLS):
        for box in boxes:
            with box.captured_output():
                compiled(*box.args, **box.kwargs)
    times: list[float] = []
    for _ in range(TIMED_PASSES):
        if times and time.perf_counter() + times[-1] > deadline:
            break
        start = time.perf_counter()
        for box in boxes:
            with box.captured_output():
                compiled(*box.args, **box.kwargs)
        times.append(time.perf_counter() - start)
    return statistics.median(times) if times else None


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= 300 else line[:297] + "..."


# --- problems and proposals ----------------------------------------------------------------


def _own_files(fn: Any) -> set[str]:
    code = getattr(eager_callable(fn), "__code__", None)
    if isinstance(fn, torch.nn.Module):
        code = getattr(type(fn).forward, "__code__", None)
    return {code.co_filename} if code is not None else set()


def _problems(fn: Any, breaks: list[GraphBreak], baseline: Measured) -> list[Problem]:
    own = _own_files(fn)
    seen: set[tuple[str, str | None, int | None]] = set()
    problems: list[Problem] = []
    for gb in breaks:
        mine = [f for f in gb.stack if f.filename in own or is_cell_file(f.filename)]
        where = mine[-1] if mine else None
        innermost = gb.stack[-1] if gb.stack else None
        in_library = innermost is not None and where is not innermost
        key = (gb.reason, where.filename if where else None, where.lineno if where else None)
        if key in seen:
            continue
        seen.add(key)
        problems.append(Problem(
            "graph_break", gb.reason, where.filename if where else gb.filename,
            where.lineno if where else gb.lineno, (where.line if where else gb.line).strip(),
            in_library))
    if baseline.recompiles:
        problems.append(Problem(
            "recompile", f"{baseline.recompiles} recompile(s) over the replayed calls"))
    return problems


def _changing_dims(calls: list[tuple[tuple, dict]]) -> list[tuple[int, int]]:
    """(argument index, dim) of tensor sizes that change between calls."""
    dims: list[tuple[int, int]] = []
    first = calls[0][0]
    for i, a in enumerate(first):
        if not isinstance(a, torch.Tensor):
            continue
        shapes = [c[0][i].shape for c in calls
                  if len(c[0]) > i and isinstance(c[0][i], torch.Tensor)]
        if any(len(s) != a.dim() for s in shapes):
            continue
        dims += [(i, d) for d in range(a.dim()) if len({s[d] for s in shapes}) > 1]
    return dims


def _rank_changes(calls: list[tuple[tuple, dict]]) -> bool:
    """Whether a tensor argument's number of dimensions changes between calls."""
    first = calls[0][0]
    return any(
        isinstance(a, torch.Tensor)
        and any(len(c[0]) > i and isinstance(c[0][i], torch.Tensor) and c[0][i].dim() != a.dim()
                for c in calls)
        for i, a in enumerate(first))


def _proposals(fn: Any, problem: Problem, calls: list[tuple[tuple, dict]]
               ) -> list[tuple[Suggestion, _Trial | None]]:
    out: list[tuple[Suggestion, _Trial | None]] = []
    if problem.kind == "recompile":
        if not _rank_changes(calls):  # dynamic shapes cannot make the number of dims symbolic
            out.append((Suggestion(
                problem, "option", "%%compile --dynamic   # torch.compile(fn, dynamic=True)",
                note="dynamic shapes give up kernels specialised to each size"),
                _Trial(dynamic=True)))
        dims = _changing_dims(calls)
        if dims and torch_compat.MARK_DYNAMIC.present():
            change = "\n".join(f"torch._dynamo.mark_dynamic(arg{i}, {d})  # argument {i}"
                               for i, d in dims)
            out.append((Suggestion(
                problem, "setting", change,
                note="marks only the sizes that change; on every call's input"),
                _Trial(mark_dynamic=dims)))
        ints = _changing_ints(calls)
        if ints:
            names = _param_names(fn)
            shown = ", ".join(names[i] if i < len(names) else f"arg{i}" for i in ints)
            out.append((Suggestion(
                problem, "rewrite",
                f"# pass {shown} as a 0-d tensor, e.g. torch.tensor({shown.split(', ')[0]})",
                note="a Python int is specialised on its value (a recompile per new value); "
                     "a tensor's value is data, so one compiled version serves them all"),
                _Trial(tensor_args=ints)))
        limit, key = torch_compat.recompile_limit(), torch_compat.recompile_limit_key()
        if problem.reason and _recompiles_of(problem) >= limit:
            out.append((Suggestion(
                problem, "setting", f"torch._dynamo.config.{key} = {limit * 4}",
                note="more compiled versions kept; each costs a compile and memory"),
                _Trial(config={key: limit * 4})))
        return out
    reason = problem.reason
    if _ITEM.search(reason) and torch_compat.has_dynamo_config("capture_scalar_outputs"):
        out.append((Suggestion(
            problem, "setting", "torch._dynamo.config.capture_scalar_outputs = True",
            note="the scalar stays a symbolic value in the graph"),
            _Trial(config={"capture_scalar_outputs": True})))
    logging_funcs = torch_compat.reorderable_logging_functions()
    if logging_funcs is not None and (_LOGGING.search(reason)
                                      or re.search(r"\bprint\(", problem.line)):
        funcs = logging_funcs | set(_LOG_FUNCTIONS)
        out.append((Suggestion(
            problem, "setting",
            "torch._dynamo.config.reorderable_logging_functions.add(print)",
            note="print runs after the graph, with the final values of its arguments"),
            _Trial(config={"reorderable_logging_functions": funcs})))
    if problem.in_library:
        out.append((Suggestion(
            problem, "option",
            f"torch.compiler.disable(...) around the library call on line {problem.lineno}: "
            f"{problem.line}",
            note="the library call then always runs in Python (the graph is still split "
                 "there); never a rewrite of library code. Not tried: it changes your code "
                 "and removes no break."), None))
    elif problem.lineno is not None:
        for pattern, line_pattern, rewrite, what, note in _REWRITES:
            if pattern.search(reason) and (line_pattern is None
                                           or line_pattern.search(problem.line)):
                out.append(_rewrite_proposal(fn, problem, rewrite, what, note))
                break
    return out


#: Rewrites of the user's own line: (reason pattern, line pattern or None, rewrite,
#: what it does when it cannot be tried, what it costs).
_REWRITES: list[tuple[re.Pattern[str], re.Pattern[str] | None, Callable[[Any, int], Rewrite],
                      str, str]] = [
    (_ITEM, _SCALAR_CALL, keep_as_tensor, "keep the value as a tensor",
     "the value stays a tensor (no Python number), so tracing goes on"),
    (_BRANCH, None, branch_to_where, "select with torch.where instead of branching",
     "torch.where computes both sides and selects elementwise: one graph, no branch"),
    (_NUMPY, _NUMPY_CALL, numpy_to_torch, "the torch function instead of the NumPy call",
     "the same computation on the tensor, which Dynamo traces"),
]


def _rewrite_proposal(fn: Any, problem: Problem, rewrite: Callable[[Any, int], Rewrite],
                      what: str, note: str) -> tuple[Suggestion, _Trial | None]:
    assert problem.lineno is not None
    try:
        done = rewrite(fn, problem.lineno)
    except RewriteError as e:
        return Suggestion(problem, "rewrite", what, note=f"not tried: {e}"), None
    return Suggestion(problem, "rewrite", done.diff(), note=note), _Trial(function=done.fn)


def _param_names(fn: Any) -> list[str]:
    code = getattr(eager_callable(fn), "__code__", None)
    if isinstance(fn, torch.nn.Module):
        code = getattr(type(fn).forward, "__code__", None)
        names = list(code.co_varnames[1:code.co_argcount]) if code else []
        return names
    return list(code.co_varnames[:code.co_argcount]) if code else []


def _changing_ints(calls: list[tuple[tuple, dict]]) -> list[int]:
    """Indexes of positional arguments that are Python ints whose value changes."""
    first = calls[0][0]
    out = []
    for i, a in enumerate(first):
        if type(a) is not int:
            continue
        values = {c[0][i] for c in calls if len(c[0]) > i and type(c[0][i]) is int}
        if len(values) > 1:
            out.append(i)
    return out


def _recompiles_of(problem: Problem) -> int:
    m = re.match(r"(\d+)", problem.reason)
    return int(m.group(1)) if m else 0


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
        reference = _reference(fn, replay, result.notes)
        where = "the baseline compile"
        tell(progress, "suggest", "compiling a copy as it is (the baseline)",
             remaining_s=deadline - time.perf_counter())
        result.baseline, _, breaks = _run(fn, replay, reference, _Trial(), deadline)
        if result.baseline.error:
            result.notes.append(f"the baseline compile failed: {result.baseline.error}")
        where = "the proposals"
        result.problems = _problems(fn, breaks, result.baseline)
        proposals = [p for problem in result.problems for p in _proposals(fn, problem, replay)]
        _try_all(fn, replay, reference, proposals, result, deadline, progress)
    except _Stopped as stop:  # Ctrl-C during a trial: the items so far, the rest not tried
        result.interrupted = True
        where = stop.where
    except KeyboardInterrupt:
        ctrl_c_delivered()
        result.interrupted = True
    if not result.problems and not result.interrupted:
        result.notes.append("no graph breaks or recompiles: nothing to fix")
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


def _try_all(fn: Any, replay: list[tuple[tuple, dict]], reference: list[list[Any]],
             proposals: list[tuple[Suggestion, _Trial | None]], result: Suggestions,
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
                 index, trials, _first_line(item.change), deadline - time.perf_counter())
            after, same, after_breaks = _run(fn, replay, reference, trial, deadline)
        except KeyboardInterrupt:
            ctrl_c_delivered()
            for left, left_trial in proposals[position:]:
                if left is not item:
                    result.items.append(left)
                if left_trial is not None:
                    left.note += "; not tried: interrupted (Ctrl-C)"
            raise _Stopped(f"trial {index} of {trials} ({_first_line(item.change)})") from None
        item.after, item.same_result = after, same
        _judge(item, baseline=result.baseline, breaks=after_breaks)
