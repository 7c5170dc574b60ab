"""Fresh processes: the user's call carried into a child Python (``child.py``) and one
variant measured there, with its own Inductor cache directory.

What is carried: the callable and its calls, pickled (a module with its weights, tensors);
classes and functions defined in notebook cells travel as their cells' definitions (the
imports, ``class``/``def`` statements and plain constants of each defining cell, run in the
child's ``__main__`` before unpickling, on the cell's own line numbers). What cannot be
carried (a lambda, a closure, an open file) is said in words: nothing is measured then.
"""

from __future__ import annotations

import ast
import inspect
import json
import linecache
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .child import ByName
from .record import FreshRun

Call = tuple[tuple[Any, ...], dict[str, Any]]
_CHILD = "from nbcompile.core.compiletime import child; raise SystemExit(child.main())"


@dataclass
class Shipment:
    """The call as a child process receives it."""

    payload: bytes = b""  # pickle of ``(fn, calls)``
    definitions: list[str] = field(default_factory=list)  # cell sources run first
    filenames: list[str] = field(default_factory=list)  # the cells they come from
    how: str = ""  # in words
    problem: str = ""  # why the call cannot be carried ("" when it can)


def _is_cell(filename: str) -> bool:
    return filename.startswith("<") or "ipykernel_" in filename or "/ipython-input" in filename


def _main_objects(fn: Any) -> list[Any]:
    """The classes and functions of ``__main__`` (notebook cells) the call needs."""
    import torch

    found: list[Any] = []
    roots: list[Any] = [fn]
    if isinstance(fn, torch.nn.Module):
        roots = [type(m) for m in fn.modules()]
    for obj in roots:
        for item in (obj.__mro__ if isinstance(obj, type) else (obj,)):
            if getattr(item, "__module__", None) == "__main__" and item not in found:
                found.append(item)
    return found


def _source_file(obj: Any) -> str | None:
    code = getattr(obj, "__code__", None)
    if code is None and isinstance(obj, type):
        for value in vars(obj).values():
            code = getattr(value, "__code__", None)
            if code is not None:
                break
    return code.co_filename if code is not None else None


def cell_definitions(filename: str) -> str | None:
    """A cell's imports, ``class``/``def`` statements and assignments without calls, on
    their own line numbers (other statements blanked: nothing the cell runs is re-run)."""
    lines = linecache.getlines(filename)
    if not lines:
        return None
    source = "".join(lines)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    keep = [False] * (len(lines) + 1)
    for node in tree.body:
        ok = isinstance(node, (ast.Import, ast.ImportFrom, ast.ClassDef, ast.FunctionDef,
                               ast.AsyncFunctionDef))
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            ok = not any(isinstance(n, (ast.Call, ast.Await, ast.Lambda))
                         for n in ast.walk(node.value))
        if ok:
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            for i in range(first, (node.end_lineno or node.lineno) + 1):
                keep[i] = True
            for d in getattr(node, "decorator_list", []):
                if "compile" in ast.unparse(d) and "nested_compile_region" not in ast.unparse(d):
                    for i in range(d.lineno, (d.end_lineno or d.lineno) + 1):
                        keep[i] = False  # @torch.compile: the child compiles it itself
    return "".join(line if keep[i] else "\n" for i, line in enumerate(lines, start=1))


def _code_names(obj: Any) -> set[str]:
    """The global names the code of a function or class's methods reads."""
    codes = []
    if isinstance(obj, type):
        for value in vars(obj).values():
            value = getattr(value, "__func__", value)
            if hasattr(value, "__code__"):
                codes.append(value.__code__)
    elif hasattr(obj, "__code__"):
        codes.append(obj.__code__)
    names: set[str] = set()
    while codes:
        code = codes.pop()
        names.update(code.co_names)
        codes.extend(c for c in code.co_consts if hasattr(c, "co_names"))
    return names


def _defined(sources: Iterable[str]) -> set[str]:
    names: set[str] = set()
    for source in sources:
        for node in ast.parse(source).body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(n.id for t in targets for n in ast.walk(t)
                             if isinstance(n, ast.Name))
    return names


def _preamble(objects: list[Any], sources: list[str]) -> str:
    """Imports (and plain constants) for the names the shipped code reads from the
    notebook's namespace that its own cells do not define: a module becomes ``import``, a
    class or function of an importable module ``from ... import``, a literal its value."""
    main = sys.modules.get("__main__")
    namespace = getattr(main, "__dict__", {})
    wanted = set().union(*(_code_names(o) for o in objects)) - _defined(sources)
    lines = []
    for name in sorted(wanted):
        if name not in namespace:
            continue
        value = namespace[name]
        module = getattr(value, "__module__", None)
        if isinstance(value, types.ModuleType):
            lines.append(f"import {value.__name__} as {name}")
        elif module and module != "__main__" and getattr(value, "__qualname__", "") \
                and "." not in value.__qualname__ and "<" not in value.__qualname__:
            lines.append(f"from {module} import {value.__qualname__} as {name}")
        elif isinstance(value, (int, float, str, bool, type(None))):
            lines.append(f"{name} = {value!r}")
    return "\n".join(lines) + ("\n" if lines else "")


def ship(fn: Any, calls: Iterable[Call]) -> Shipment:
    """``fn`` and its ``calls`` as a child process can rebuild them."""
    calls = list(calls)
    shipment = Shipment()
    names = []
    for obj in _main_objects(fn):
        filename = _source_file(obj)
        if filename is None or not _is_cell(filename):
            continue
        names.append(getattr(obj, "__qualname__", repr(obj)))
        if filename in shipment.filenames:
            continue
        source = cell_definitions(filename)
        if source is None:
            shipment.problem = (f"the cell defining {names[-1]} is not in Python's line "
                                "cache, so a fresh process cannot define it")
            return shipment
        shipment.filenames.append(filename)
        shipment.definitions.append(source)
    if shipment.definitions:
        preamble = _preamble(_main_objects(fn), shipment.definitions)
        if preamble:  # names the cells use but other cells defined (``import torch``)
            shipment.definitions.insert(0, preamble)
            shipment.filenames.insert(0, "<nbcompile imports>")
    carried = fn
    if (inspect.isfunction(fn) and fn.__module__ == "__main__" and shipment.filenames
            and "." not in fn.__qualname__ and "<" not in fn.__qualname__):
        carried = ByName(fn.__qualname__)  # the cell defines it again in the child
    try:
        shipment.payload = pickle.dumps((carried, calls))
    except Exception as e:  # noqa: BLE001 - said in words, nothing measured
        shipment.problem = (f"the call cannot be copied into a fresh process "
                            f"({type(e).__name__}: {str(e).splitlines()[0][:200]}); define "
                            "it at a cell's top level (no lambda or closure) or in a module")
        return shipment
    shipment.how = ("pickled" + (f", with the definitions of {', '.join(names)} from "
                                 f"{len(shipment.filenames)} cell(s)" if names else ""))
    return shipment


@dataclass
class Child:
    """What one child process measured (``FreshRun``) and the trace events it heard."""

    run: FreshRun
    events: list[tuple[dict[str, Any], str]] = field(default_factory=list)
    steady: list[float] = field(default_factory=list)
    traceback: str = ""


def private_dir(prefix: str = "nbcompile-ct-") -> Path:
    """A new directory only this user can read (caches and specs live there)."""
    return Path(tempfile.mkdtemp(prefix=prefix))


def run_child(shipment: Shipment, label: str, variant: str, cache_dir: Path, work: Path,
              *, options: dict[str, Any] | None = None, blocks: Iterable[str] = (),
              artifact: Path | None = None, timeout_s: float | None = None,
              steady_budget_s: float = 1.0) -> Child:
    """Run ``variant`` of the shipped call in a fresh Python with ``cache_dir`` as its
    Inductor (and Triton) cache; a failed or timed-out child is a failed run, in words."""
    spec = {"definitions": shipment.definitions, "filenames": shipment.filenames,
            "payload": shipment.payload,
            "variant": variant, "options": dict(options or {}), "blocks": list(blocks),
            "artifact": str(artifact) if artifact else "", "sys_path": list(sys.path),
            "steady_budget_s": steady_budget_s}
    spec_path = work / f"{label.replace(' ', '_')}.spec"
    out_path = work / f"{label.replace(' ', '_')}.json"
    with open(spec_path, "wb") as f:
        pickle.dump(spec, f)
    env = dict(os.environ)
    env["TORCHINDUCTOR_CACHE_DIR"] = str(cache_dir)
    env["TRITON_CACHE_DIR"] = str(cache_dir / "triton")
    for name in ("TORCH_TRACE", "TORCH_COMPILE_DEBUG"):
        env.pop(name, None)
    start = time.perf_counter()
    # its own session: the child and Inductor's compile workers are stopped together
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(spec_path), str(out_path)],
                            env=env, cwd=os.getcwd(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        proc.wait(timeout=timeout_s)
    except BaseException as e:  # the budget ran out, or Ctrl-C: no process left behind
        _stop(proc)
        if not isinstance(e, subprocess.TimeoutExpired):
            raise
        wall = time.perf_counter() - start
        return Child(FreshRun(label, status="failed", wall_s=round(wall, 3),
                              error=f"ran past the budget ({timeout_s:.0f} s left) and was "
                                    "stopped"))
    wall = time.perf_counter() - start
    _stop(proc)  # compile workers the child left behind, if any
    try:
        out = json.loads(out_path.read_text())
    except (OSError, ValueError):
        return Child(FreshRun(label, status="failed", wall_s=round(wall, 3),
                              error="the fresh process ended without a result (it crashed "
                                    "or was killed)"))
    events = [(m, p) for m, p in out.get("events", [])]
    counts = out.get("counts") or {}
    run = FreshRun(
        label, status="ok" if out.get("ok") else "failed",
        error=("" if out.get("ok") else f"{out.get('error', '')} (while {out.get('stage')})"),
        first_call_s=_round(out.get("first_call_s")), steady_s=_round(out.get("steady_s"), 6),
        wall_s=round(wall, 3),
        frames_compiled=sum(1 for m, _ in events if "compilation_metrics" in m),
        graph_ops=sum(int(m["compilation_metrics"].get("graph_op_count") or 0)
                      for m, _ in events if isinstance(m.get("compilation_metrics"), dict)),
        caches={k.split(" ", 1)[1]: v for k, v in counts.items() if v},
        same_result=out.get("same_result"), max_abs_diff=out.get("max_abs_diff"))
    return Child(run, events, traceback=out.get("traceback", ""))


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill a child's whole process group (it started its own session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError):
        proc.kill()
    proc.wait()


def _round(value: Any, digits: int = 4) -> float | None:
    return round(float(value), digits) if isinstance(value, (int, float)) else None
