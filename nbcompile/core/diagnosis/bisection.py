"""torch's ``CompilerBisector`` on fresh copies, and what it names in words: the compiler
subsystem, the setting, the lowering of one post-grad node or the decomposition of one op,
tied to the user's line by the node's ``# File:`` comment.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import time
from types import FrameType
from typing import Any

from ..steps import ctrl_c_delivered
from ..trace.fx_graph import FxNode, parse_graph
from ..trace.listener import suppressed
from .record import Bisection
from .runs import Bench, Trial
from .sites import Found, Site, make_site
from .torch_names import bisector, caches_off


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
    return make_site(node.filename, node.lineno, node.code,
                 "the # File: line of the node in the compiled graph")
