"""Calls of a diagnosis, each on copies: eager, a compiled fresh copy, a float64 run.

``Bench(fn, args, kwargs)`` holds one ``Sandbox`` (copies of the tensor inputs; the state
tensors, optimizer state and RNG the call can reach saved): every run starts from the
same inputs, state and RNG (``reset``), and ``close()`` gives the user back their state
and RNG. A compiled run compiles ``fresh_copy(fn)`` (own code object, own Dynamo cache:
the user's compiled target is never touched) under ``suppressed()`` (the capture session
does not see it), with Inductor settings patched for that run only, what it prints and
warns captured, and optionally the graphs it compiled (Dynamo's and Inductor's post-grad
graph, with their ``# File:`` lines) heard on a private trace listener.
"""

from __future__ import annotations

import contextlib
import copy
import pickle
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from .. import torch_compat
from ..perf.environment import device_of, sync
from ..perf.numerics import drift, snapshot_outputs
from ..runs.capture import GraphCapture
from ..runs.copies import fresh_copy, own_automatic_dynamic
from ..runs.sandbox import Sandbox
from ..runs.timed import first_line, median_time
from ..runs.wrappers import eager_callable, unwrap
from ..torch_compat import tree_leaves, tree_map
from ..trace.listener import suppressed
from .isolate import GRACE_S, ChildError, abort_risk, in_child, needs_child, shown_error
from .judge import Judged, judge
from .torch_names import adopt_bisect_debug_info, bisect_debug_info, inductor_patch

#: Calls timed after the first one (their median is a run's time).
TIMED_CALLS = 5


@dataclass
class Trial:
    """How to run a copy: backend, ``torch.compile`` options, Inductor settings."""

    backend: Any = "inductor"
    options: dict[str, Any] = field(default_factory=dict)  # mode, options, dynamic, fullgraph
    config: dict[str, Any] = field(default_factory=dict)  # torch._inductor.config changes
    function: Callable[..., Any] | None = None  # run this instead of a compiled fresh copy
    compile: bool = True  # False: call ``function`` as it is
    capture: bool = False  # keep the graphs the compile produced
    timed: int = TIMED_CALLS


@dataclass
class Run:
    """One run: the output's leaves or the error, times, warnings, graphs."""

    leaves: list[Any] | None = None
    error: BaseException | None = None
    first_call_s: float | None = None
    time_s: float | None = None
    warnings: list[str] = field(default_factory=list)
    post_grad_graphs: list[str] = field(default_factory=list)
    dynamo_graphs: list[str] = field(default_factory=list)
    judged: Judged | None = None
    note: str = ""  # why it did not finish (a child out of time)

    @property
    def outcome(self) -> str:
        """crash, accuracy or ok; "not run" when it did not finish or nothing it produced
        could be compared (``judged.comparable``)."""
        if self.error is not None:
            return "crash"
        if self.judged is None or not self.judged.comparable:
            return "not run"
        return "ok" if self.judged.ok else "accuracy"


class Bench:
    """The runs of one diagnosis, all on the same copies of the inputs."""

    def __init__(self, fn: Any, args: tuple, kwargs: dict) -> None:
        self.fn = fn
        self.eager_fn = eager_callable(fn)
        self.box = Sandbox(fn, args, kwargs)
        self.device = device_of(tuple(args), dict(kwargs))
        self.mutated: list[str] = []  # inputs eager changes in place
        self.state: list[str] = []  # state tensors (parameters, buffers...) eager changes
        self.random = False
        self.expected: list[Any] = []  # what eager produced (``Produced.leaves``)
        self.labels: list[str] = []  # what each of them is (``Produced.labels``)
        #: Inductor settings every compiled run gets (fallback_random, once the call is
        #: known to differ only by its random numbers without it)
        self.config: dict[str, Any] = {}
        #: how far eager's first call was from its second on the same inputs (None: equal)
        self.first_call_drift: float | None = None
        self.compiles = 0  # copies compiled
        #: why runs that generate code must happen in a child process ("": they need not)
        self.isolate = abort_risk(self.device)

    def close(self) -> None:
        self.box.restore()

    def eager(self, timed: int = TIMED_CALLS) -> Run:
        """The reference: ``fn``'s eager behaviour on the copies (what compiled runs are
        judged against); notes which inputs it changes in place and whether it draws
        random numbers. The reference is a second call from the same start: a first call
        can differ (``numerics.drift``; ``first_call_drift`` says by how much)."""
        run = self._run(self.eager_fn, timed, contextlib.nullcontext(), compare=False)
        if run.error is None:
            self.expected = run.leaves or []
            again = self._run(self.eager_fn, 0, contextlib.nullcontext(), compare=False)
            if again.error is None and again.leaves is not None:
                self.first_call_drift = drift(self.expected, again.leaves)
                self.expected = again.leaves
        return run

    def run(self, trial: Trial, deadline: float | None = None) -> Run:
        """A fresh copy compiled as ``trial`` says (or ``trial.function`` called), judged
        against eager; in a forked child when its code could kill the process
        (``isolate``)."""
        if self.isolate and trial.compile and needs_child(trial.backend):
            self.compiles += 1
            torch_compat.warm_inductor_for_forks()  # inherited by the child, not repeated there
            left = (deadline - time.perf_counter()) if deadline is not None else GRACE_S
            # what a bisection step noted comes back too (torch 2.9 keeps it in memory)
            result, error, why = in_child(
                lambda: (_portable(self._run_here(trial, deadline)), bisect_debug_info()),
                max(left, 0.0) + GRACE_S)
            if isinstance(result, tuple) and isinstance(result[0], Run):
                adopt_bisect_debug_info(result[1])
                return result[0]
            return Run(error=error, note=why)
        return self._run_here(trial, deadline)

    def _run_here(self, trial: Trial, deadline: float | None) -> Run:
        if trial.compile:
            target = trial.function if trial.function is not None else fresh_copy(self.fn)
            try:
                call = torch.compile(target, backend=trial.backend, **trial.options)
            except Exception as e:  # e.g. an option this backend refuses
                return Run(error=e)
            self.compiles += 1
        else:
            assert trial.function is not None
            call = trial.function
        capture = GraphCapture()
        scope = contextlib.ExitStack()
        scope.enter_context(own_automatic_dynamic())
        scope.enter_context(inductor_patch({**self.config, **trial.config}))
        if trial.capture:
            scope.enter_context(capture.listening())
        run = self._run(call, trial.timed, scope, deadline=deadline)
        run.post_grad_graphs, run.dynamo_graphs = capture.post_grad, capture.dynamo
        return run

    def _run(self, call: Callable[..., Any], timed: int,
             scope: contextlib.AbstractContextManager[Any], compare: bool = True,
             deadline: float | None = None) -> Run:
        box, run = self.box, Run()
        extra: list[str] = []  # state the call changed that eager's did not
        box.reset()
        with (suppressed(), box.captured_output(), warnings.catch_warnings(record=True) as caught,
              scope):
            warnings.simplefilter("always")
            try:
                sync(self.device)
                start = time.perf_counter()
                out = call(*box.args, **box.kwargs)
                sync(self.device)
                run.first_call_s = time.perf_counter() - start
                if not compare:  # the eager reference: what it changed, whether it drew
                    self.mutated = box.mutated_inputs()
                    self.state = box.changed_state()
                    self.random = box.rng_used()
                produced = box.produced(out, self.mutated, self.state)
                run.leaves = produced.leaves
                if not compare:
                    self.labels = produced.labels
                extra = [label for label in box.changed_state() if label not in self.state]
                del out
                run.time_s = self._time(call, timed, deadline)
            except Exception as e:  # the crash is the finding
                run.error = e
            finally:
                run.warnings = [str(w.message) for w in caught]
        box.reset()
        if compare and run.error is None and run.leaves is not None:
            run.judged = judge(self.expected, run.leaves, self.labels)
            if extra:
                run.judged.ok = False
                run.judged.notes.append(f"changes {', '.join(extra)}, which eager leaves "
                                        "as it was")
        return run

    def _time(self, call: Callable[..., Any], timed: int, deadline: float | None) -> float | None:
        box = self.box
        return median_time(lambda: call(*box.args, **box.kwargs), timed, deadline,
                           lambda: sync(self.device))

    # --- the float64 reference ---------------------------------------------------------

    def float64(self) -> tuple[list[Any] | None, str]:
        """``fn`` run eagerly with floating inputs (and a module's parameters and buffers)
        in float64: its output leaves, or None and why not."""
        if self.random:
            return None, ("the call draws random numbers: a float64 run draws different "
                          "ones, so it is no reference")
        fn = self.fn
        if isinstance(fn, torch.nn.Module):
            inner, wrapper = unwrap(fn)
            if wrapper is not None:
                return None, f"not made for a {wrapper} wrapper"
            try:
                module = copy.deepcopy(fn)
            except Exception as e:
                return None, f"the module could not be copied to float64: {type(e).__name__}"
            module.to(torch.float64)
            call = eager_callable(module)
        else:
            call = self.eager_fn
        box = self.box
        box.reset()
        args = tree_map(_upcast, list(box.args))
        kwargs = tree_map(_upcast, dict(box.kwargs))
        with suppressed(), box.captured_output(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out = call(*args, **kwargs)
                leaves = snapshot_outputs(out)
            except Exception as e:
                return None, (f"the float64 run failed ({type(e).__name__}: "
                              f"{first_line(str(e))}): e.g. a tensor or module the "
                              "function uses is not an argument, so it stayed in its dtype")
            finally:
                box.reset()
        return float64_only(
            leaves, "the same function, eager, with floating inputs and parameters in float64",
            lambda narrow: (f"the float64 run still returned {narrow}: the function casts "
                            "inside (or uses tensors that are not arguments), so it is no "
                            "higher-precision reference"))


def _portable(run: Run) -> Run:
    """``run`` as a child process sends it back: the error by type name and message, the
    output's leaves dropped if they cannot be pickled."""
    if run.error is not None:
        run.error = ChildError(*shown_error(run.error))
    try:
        pickle.dumps(run.leaves)
    except Exception:  # e.g. an output object pickle cannot take: judged already
        run.leaves = None
    return run


def _upcast(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        if value.is_floating_point():
            return value.detach().to(torch.float64).requires_grad_(value.requires_grad)
        if value.is_complex():
            return value.detach().to(torch.complex128).requires_grad_(value.requires_grad)
    return value


def float64_only(got: list[Any], how: str, narrow_words: Callable[[str], str]
                 ) -> tuple[list[Any] | None, str]:
    """A float64 run's output leaves as a reference (``how`` it was made), or None and why
    not: no floating tensor, or some still narrower than float64 (``narrow_words`` says
    what that means for the run)."""
    floating = [v for v in tree_leaves(got) if isinstance(v, torch.Tensor)
                and (v.is_floating_point() or v.is_complex())]
    narrow = sorted({str(v.dtype) for v in floating
                     if v.dtype not in (torch.float64, torch.complex128)})
    if not floating:
        return None, "the output has no floating-point tensors"
    if narrow:
        return None, narrow_words(", ".join(narrow))
    return got, how
