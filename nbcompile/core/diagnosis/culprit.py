"""Where the problem comes in: the compiler subsystem, the op or kernel, the user's line.

Three sources, best first:

* torch's ``CompilerBisector`` (for problems that need ``aot_eager_decomp_partition`` or
  ``inductor``): it recompiles fresh copies with one subsystem after another switched off
  (decompositions, graph passes, settings, and Inductor's lowerings: ops falling back to
  ATen one node at a time), then bisects over the applications of the one that matters.
  A lowering names a node of Inductor's post-grad graph, whose ``# File:`` comment gives
  the user's line;
* torch.library's ``opcheck`` on each custom op the call runs (recorded on copies): a
  wrong fake kernel or backward formula is named at the line that calls the op;
* the error itself: Dynamo's user stack (``real_stack``), the forward call autograd's
  anomaly mode names for a failing backward formula, the traceback's user frames.
"""

from __future__ import annotations

import contextlib
import io
import linecache
import os
import re
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import Any

import torch

from ..frames import Span, is_cell_file, is_entry_file, is_torch_file
from ..runs.wrappers import eager_callable
from ..steps import ctrl_c_delivered
from ..trace.fx_graph import FxNode, parse_graph
from ..trace.listener import suppressed
from .isolate import shown_error
from .record import Bisection
from .runs import Bench, Trial
from .torch_names import bisector, caches_off, dispatch_mode_type

_NBCOMPILE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_FORWARD_CALL = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<fn>\S+)\n'
                           r"(?P<code>[^\n]*)")
#: ATen's, torch's and Inductor's own op namespaces: not custom ops.
BUILTIN_NAMESPACES = frozenset({
    "aten", "prim", "prims", "quantized", "_quantized", "_c10d_functional",
    "_c10d_functional_autograd", "c10d", "profiler", "debugprims", "rngprims", "inductor",
    "higher_order", "_dtensor", "_nested_tensor",
})
#: Custom ops checked at most.
MAX_CUSTOM_OPS = 8
ERROR_DETAIL_CHARS = 4000


@dataclass
class Site:
    """A line of user code and how it was found."""

    filename: str | None = None
    lineno: int | None = None
    line: str = ""
    how: str = ""


@dataclass
class Found:
    """The culprit in words and its line."""

    culprit: str = ""
    site: Site | None = None
    note: str = ""


# --- user code ---------------------------------------------------------------------------


def own_files(fn: Any) -> set[str]:
    """The files of the user's function (or module's forward): frames there are theirs."""
    func = eager_callable(fn)
    if isinstance(fn, torch.nn.Module):
        func = type(fn).forward
    func = getattr(func, "__func__", func)
    code = getattr(func, "__code__", None)
    return {code.co_filename} if code is not None else set()


def is_user_file(filename: str | None, own: set[str]) -> bool:
    if not filename:
        return False
    if filename in own or is_cell_file(filename):
        return True
    return not (is_torch_file(filename) or is_entry_file(filename)
                or os.path.abspath(filename).startswith(_NBCOMPILE_DIR + os.sep)
                or filename.startswith("<") or "site-packages" in filename
                or filename.startswith(sys.prefix) or filename.startswith(sys.base_prefix))


def _site(filename: str, lineno: int | None, line: str | None, how: str) -> Site:
    text = (line or "").strip()
    if not text and lineno:
        text = linecache.getline(filename, lineno).strip()
    return Site(filename, lineno, text, how)


def error_site(exc: BaseException, caught: list[str], own: set[str]) -> Site | None:
    """The user line an error points at: the forward call whose backward formula failed
    (autograd's anomaly mode names it in a warning), Dynamo's user stack, or the
    innermost user frame of the traceback."""
    for message in caught:
        if "Traceback of forward call that caused the error" in message:
            frames = [m for m in _FORWARD_CALL.finditer(message) if is_user_file(m["file"], own)]
            if frames:
                m = frames[-1]
                return _site(m["file"], int(m["line"]), m["code"],
                             "the forward call whose backward formula failed (autograd)")
    for error in _chain(exc):
        stack = getattr(error, "real_stack", None) or []
        user = [f for f in stack if is_user_file(getattr(f, "filename", None), own)]
        if user:
            return _site(user[-1].filename, user[-1].lineno, user[-1].line,
                         "Dynamo's user stack at the error")
    for error in _chain(exc):
        tb = error.__traceback__
        frames = []
        while tb is not None:
            frames.append(tb.tb_frame)
            tb = tb.tb_next
        user = [f for f in frames if is_user_file(f.f_code.co_filename, own)
                and f.f_code.co_name != "<module>"]
        if user:
            frame = user[-1]
            return _site(frame.f_code.co_filename, frame.f_lineno, None,
                         "the innermost user frame of the traceback")
    return None


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop(0)
        if e is None or any(e is s for s in seen) or len(seen) > 10:
            continue
        seen.append(e)
        todo += [getattr(e, "inner_exception", None), e.__cause__, e.__context__]
    return seen


def error_text(exc: BaseException) -> tuple[str, str]:
    """``(type: first line, the message capped)`` of a crash. The telling part goes into
    the first line: the error Dynamo's fake tensors hit (``got RuntimeError('...')``), or
    a compiler's own ``error:`` line (paths cut to the file name)."""
    name, message = shown_error(exc)
    message = message.strip()
    lines = message.splitlines()
    first = lines[0] if lines else ""
    short = f"{name}: {first}" if first else name
    key = [_short_paths(ln.strip()) for ln in lines[1:] if re.search(r"\berror\b:", ln)][:6]
    got = re.search(r"got (\w+(?:Error|Exception))\((['\"])(.+?)\2\)", message, re.S)
    if got:
        short = f"{short}: {got[1]}: {got[3]}"
    elif key:
        short = f"{short}: {key[0]}"
    detail = "\n".join([*key, "", *lines]) if key else message
    if isinstance(getattr(exc, "inner_exception", None), BaseException):
        detail = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0]}\n{detail}"
    if len(detail) > ERROR_DETAIL_CHARS:
        detail = (detail[:ERROR_DETAIL_CHARS]
                  + f"\n... ({len(detail) - ERROR_DETAIL_CHARS} more characters)")
    return _cut(short, 400), detail


def _short_paths(text: str) -> str:
    """``/tmp/torchinductor_x/ab/abc.main.cpp:31:45: error`` -> ``abc.main.cpp:31:45: error``."""
    return re.sub(r"(?:/[^\s/:]+)+/([^\s/:]+:\d+)", r"\1", text)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + " ..."


# --- custom ops --------------------------------------------------------------------------


@dataclass
class OpCall:
    op: Any
    args: tuple
    kwargs: dict
    site: Site | None


def record_custom_ops(bench: Bench, own: set[str]) -> list[OpCall]:
    """The custom ops (not ATen's or torch's own) an eager call of the function runs, once
    each, with copies of their arguments and the user line that called them."""
    mode_type = dispatch_mode_type()
    if mode_type is None:
        return []
    calls: dict[str, OpCall] = {}

    class Recorder(mode_type):  # type: ignore[misc, valid-type]
        def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (),
                               kwargs: dict | None = None) -> Any:
            kwargs = kwargs or {}
            namespace = getattr(func, "namespace", "aten")
            if (namespace not in BUILTIN_NAMESPACES and str(func) not in calls
                    and len(calls) < MAX_CUSTOM_OPS):
                calls[str(func)] = OpCall(func, _copies(args), _copies(kwargs),
                                          _calling_site(own))
            return func(*args, **kwargs)

    box = bench.box
    box.reset()
    with suppressed(), box.captured_output(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with Recorder():
                bench.eager_fn(*box.args, **box.kwargs)
        except Exception:  # eager ran before; a mode it cannot run under records nothing
            pass
        finally:
            box.reset()
    return list(calls.values())


def _copies(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        copy = value.detach().clone()
        return copy.requires_grad_(value.requires_grad) if copy.is_floating_point() else copy
    if isinstance(value, (list, tuple)):
        return type(value)(_copies(v) for v in value)
    if isinstance(value, dict):
        return {k: _copies(v) for k, v in value.items()}
    return value


def _calling_site(own: set[str]) -> Site | None:
    frame = sys._getframe(2)
    while frame is not None:
        if is_user_file(frame.f_code.co_filename, own):
            return _site(frame.f_code.co_filename, frame.f_lineno, None,
                         "the line that calls the custom op")
        frame = frame.f_back
    return None


#: torch's words when an op has no fake kernel: a ``custom_op`` ("There was no fake impl
#: registered for ...") or a ``torch.library`` op ("... there was no fake impl or Meta
#: kernel registered").
_NO_FAKE = re.compile(r"\bno fake impl\b", re.IGNORECASE)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else ""


def _no_fake_kernel(error: Any) -> BaseException | None:
    """The exception in ``error``'s chain that says the op has no fake kernel (torch's
    ``UnsupportedOperatorException`` names only the op; its cause says why), or None."""
    seen: set[int] = set()
    while isinstance(error, BaseException) and id(error) not in seen:
        seen.add(id(error))
        if _NO_FAKE.search(str(error)):
            return error
        error = error.__cause__ or error.__context__
    return None


def check_custom_ops(bench: Bench, own: set[str], deadline: float) -> Found | None:
    """The first custom op whose registration ``torch.library.opcheck`` finds wrong (its
    fake kernel, schema, autograd or backward formula disagree with the real kernel)."""
    opcheck = getattr(torch.library, "opcheck", None)
    if opcheck is None:
        return None
    for call in record_custom_ops(bench, own):
        if time.perf_counter() > deadline:
            return None
        with (suppressed(), bench.box.captured_output(), warnings.catch_warnings()):
            warnings.simplefilter("ignore")
            try:
                results = opcheck(call.op, call.args, call.kwargs, raise_exception=False)
            except Exception:  # opcheck itself could not run: nothing learnt
                continue
        failed = [(test, r) for test, r in results.items() if r != "SUCCESS"]
        if failed:
            test, error = failed[0]
            message = _first_line(error)
            missing = next(((t, m) for t, e in failed if (m := _no_fake_kernel(e))), None)
            if missing is not None:  # nothing to disagree with: torch found none registered
                return Found(f"custom op {call.op}: it has no fake (meta) kernel registered, "
                             "which torch.compile needs to trace it; add one with "
                             "torch.library.register_fake (torch.library.opcheck "
                             f"{missing[0]}: {_first_line(missing[1])[:300]})", call.site)
            what = {"test_faketensor": "its fake (meta) kernel disagrees with the real one",
                    "test_aot_dispatch_dynamic": "its backward formula or fake kernel fails "
                                                 "under AOTAutograd",
                    "test_autograd_registration": "its autograd registration is wrong",
                    "test_schema": "its schema does not match what it does"}.get(test, test)
            return Found(f"custom op {call.op}: {what} (torch.library.opcheck {test}: "
                         f"{message[:300]})", call.site)
    return None


# --- torch's CompilerBisector --------------------------------------------------------------


class _OutOfTime(Exception):
    pass


#: (backend, subsystem, post-grad graphs, Dynamo graphs) of one bisection step.
Step = tuple[str, str, list[str], list[str]]


def bisect(bench: Bench, options: dict[str, Any], crash: bool, deadline: float,
           graphs: list[Step], config: dict[str, Any] | None = None) -> Bisection:
    """Run torch's ``CompilerBisector`` on fresh copies: a copy passes when it does not
    crash (``crash``) or when it is within tolerance of eager. Inductor's and
    AOTAutograd's caches are off meanwhile (a cached graph would skip what is switched
    off, and carry the line numbers of the code it was first compiled from); each step's
    graphs go to ``graphs``. The bisector's state is its own temporary directory,
    removed by it after."""
    found = bisector()
    if found is None:
        return Bisection("", note="this torch has no CompilerBisector")
    steps = 0
    started = time.perf_counter()
    bisecting: list[FrameType] = []  # do_bisect's frame, cleared once it has returned

    def passes() -> bool:
        nonlocal steps
        if not bisecting:
            bisecting.extend(_caller_frames(found.do_bisect))
        if time.perf_counter() > deadline:
            raise _OutOfTime
        steps += 1
        backend = found.get_backend() or "inductor"
        kwargs = dict(options) if backend == "inductor" else {
            k: v for k, v in options.items() if k in ("dynamic", "fullgraph")}
        run = bench.run(Trial(backend=backend, options=kwargs, config=dict(config or {}),
                              capture=True, timed=0))
        graphs.append((backend, found.get_subsystem() or "", run.post_grad_graphs,
                       run.dynamo_graphs))
        if run.note:  # a child process out of time: the step says nothing
            raise _OutOfTime
        if run.error is not None:
            return False
        return crash or bool(run.judged and run.judged.ok)

    result: Any = None
    note = ""
    interrupted = False
    # the bisector prints its steps, and cleans up (printing, switching itself off) when
    # its frame goes: both inside the redirect, so the exception (and the frame it holds)
    # must go there too; Ctrl-C included, raised again once the bisector is off. That
    # frame outlives the call when a failed step's error keeps it (the tracebacks' frames
    # lead up to it; Inductor's code cache keeps a failed C++ build's error): till it went
    # every torch.compile took the bisector's backend (torch 2.8, 2.9), and when it went,
    # at some later collection, it switched off whatever bisection was running then. So
    # its locals are cleared here, and the state is put back.
    before = (found.bisection_enabled, found.in_process_cache)
    with caches_off(), contextlib.redirect_stdout(io.StringIO()), suppressed():
        try:
            result = found.do_bisect(passes)
        except _OutOfTime:
            note = "stopped: the time budget ran out before the bisection finished"
        except Exception as e:  # the bisection is a help, never the diagnosis's failure
            note = f"the bisection failed: {type(e).__name__}: {str(e).strip()[:200]}"
        except KeyboardInterrupt:
            ctrl_c_delivered()
            interrupted = True
        finally:
            for frame in bisecting:
                with contextlib.suppress(RuntimeError):  # (still running: not ours to clear)
                    frame.clear()
            bisecting.clear()
            found.bisection_enabled, found.in_process_cache = before
    if interrupted:
        raise KeyboardInterrupt
    elapsed = round(time.perf_counter() - started, 3)
    if result is None:
        return Bisection("", steps=steps, elapsed_s=elapsed, note=note or (
            "every backend passed under the bisector: the problem did not reproduce"))
    return Bisection(result.backend, result.subsystem or "", result.bisect_number,
                     str(result.debug_info or ""), steps, elapsed, note)


def _caller_frames(method: Any) -> list[FrameType]:
    """The running frames of ``method`` (a bound method) on this thread's stack."""
    code = getattr(getattr(method, "__func__", method), "__code__", None)
    frames, frame = [], sys._getframe(1)
    while frame is not None:
        if frame.f_code is code:
            frames.append(frame)
        frame = frame.f_back
    return frames


def _config_change(backend: str, subsystem: str) -> tuple[str, Any] | None:
    """The (setting, value) of a bisector subsystem that is a setting change."""
    found = bisector()
    module = sys.modules.get(getattr(found, "__module__", "")) if found is not None else None
    for sub in getattr(module, "BACKENDS", {}).get(backend, []):
        if sub.name == subsystem and hasattr(sub, "config_field"):
            return sub.config_field, sub.config_value
    return None


def bisection_culprit(bis: Bisection, steps: list[Step]) -> Found:
    """The culprit in words, and the user line of the node the bisection named (from the
    graphs of the last step that bisected the same subsystem: the graphs it counted)."""
    same = [s for s in steps if s[0] == bis.backend and s[1] == bis.subsystem]
    post_grad = (same or steps or [("", "", [], [])])[-1][2]
    dynamo = next((s[3] for s in reversed(steps) if s[3]), [])
    if not bis.subsystem:
        if not bis.backend:
            return Found()
        return Found(f"the {bis.backend} backend as a whole: no single subsystem the "
                     "bisector can switch off removes the problem")
    change = _config_change(bis.backend, bis.subsystem)
    if change is not None:
        name, value = change
        owner = "Inductor" if bis.backend == "inductor" else "AOTAutograd"
        return Found(f"{owner}'s setting {name}: with {name}={value!r} the problem goes away")
    if bis.subsystem == "lowerings":
        node = _lowered_node(bis, post_grad)
        if node is None:
            return Found(f"Inductor's lowering of node {bis.debug_info} (not found in the "
                         "post-grad graphs heard)")
        op = node.qualified or node.op
        return Found(f"Inductor's lowering of {op} (post-grad graph node {node.name}): the "
                     "first op whose lowering brings the problem in (with it and every later "
                     "op falling back to ATen, the problem is gone)", _node_site(node))
    if bis.subsystem == "decomposition":
        op = _op_name(bis.debug_info)
        node = _decomposed_node(op, dynamo)
        return Found(f"AOTAutograd's decomposition of {op}: the first decomposition that "
                     "brings the problem in", _node_site(node) if node is not None else None)
    what = bis.subsystem.replace("_", " ")
    detail = f": {bis.debug_info}" if bis.debug_info else ""
    return Found(f"{'Inductor' if bis.backend == 'inductor' else bis.backend}'s {what} "
                 f"(application {bis.bisect_number}{detail})")


def _graph_nodes(graphs: list[str]) -> list[FxNode]:
    nodes: list[FxNode] = []
    for text in graphs:
        nodes += parse_graph(text)
    return nodes


def _lowered_node(bis: Bisection, post_grad: list[str]) -> FxNode | None:
    """The post-grad node the bisector's lowering counter stopped at: the node of that
    name; among several, the one at that position among the ATen calls."""
    nodes = _graph_nodes(post_grad)
    named = [n for n in nodes if n.name == bis.debug_info]
    if len(named) > 1 and bis.bisect_number is not None:
        calls = [n for n in nodes if n.qualified.startswith(("aten.", "prims."))]
        if bis.bisect_number < len(calls) and calls[bis.bisect_number].name == bis.debug_info:
            return calls[bis.bisect_number]
    return named[0] if named else None


def _op_name(debug_info: str) -> str:
    """``aten.native_dropout.default`` from an OpOverload's repr (or the name itself)."""
    m = re.search(r"op='([\w.]+)', overload='(\w+)'", debug_info)
    return f"{m[1]}.{m[2]}" if m else debug_info


def _decomposed_node(op: str, dynamo: list[str]) -> FxNode | None:
    """The Dynamo graph node that calls the decomposed ATen op (``aten.native_dropout``
    comes from ``dropout``): the same name, without ``native_`` or leading underscores."""
    packet = op.split(".")[1] if op.count(".") >= 1 else op
    names = {packet, packet.lstrip("_"), packet.removeprefix("native_"),
             packet.lstrip("_").removeprefix("native_")}
    return next((n for n in _graph_nodes(dynamo) if n.op in names or n.qualified.endswith(
        f".{packet}")), None)


def _node_site(node: FxNode) -> Site | None:
    if node.filename is None or node.lineno is None:
        return None
    return _site(node.filename, node.lineno, node.code,
                 "the # File: line of the node in the compiled graph")


def culprit_function(site: Site, fn: Any, own: set[str]) -> tuple[str, Callable[..., Any]] | None:
    """The user function whose code holds the culprit's line: ``fn`` itself (name
    ``""``) or a function ``fn``'s globals name (its name)."""
    if site.filename is None or site.lineno is None:
        return None
    func = eager_callable(fn)
    if isinstance(fn, torch.nn.Module):
        func = type(fn).forward
    code = getattr(getattr(func, "__func__", func), "__code__", None)
    if code is not None and _holds(code, site):
        return "", func
    for name, value in getattr(getattr(func, "__func__", func), "__globals__", {}).items():
        inner = getattr(value, "__code__", None)
        if callable(value) and inner is not None and _holds(inner, site):
            return name, value
    return None


def _holds(code: Any, site: Site) -> bool:
    return Span.of(code).contains(site.filename or "", site.lineno or 0)
