"""Fresh processes: the user's call carried into a child Python (``child.py``) and one
variant measured there, with its own Inductor cache directory.

What is carried is read from the code that runs (``needs.py``): the callable and its calls
pickled (a module with its weights, tensors), the globals their code reads with the values
the kernel holds now, the notebook's own functions and classes by their own statements.
What cannot be carried (a lambda, a closure, an open file) is said in words: nothing is
measured then.
"""

from __future__ import annotations

import atexit
import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..notebook import cache
from .needs import Call, Needs, needs
from .record import FreshRun

_CHILD = "from nbcompile.core.compiletime import child; child.exit_now(child.main())"


@dataclass
class Shipment:
    """The call as a child process receives it."""

    needs: Needs = field(default_factory=Needs)  # what rebuilding it takes
    how: str = ""  # in words
    problem: str = ""  # why the call cannot be carried ("" when it can)


def ship(fn: Any, calls: Iterable[Call]) -> Shipment:
    """``fn`` and its ``calls`` as a child process can rebuild them: from the code that
    runs and the values the kernel holds now (``needs.py``)."""
    found = needs(fn, list(calls))
    return Shipment(found, how="" if found.problem else found.describe(),
                    problem=found.problem)


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


_PROBES: list[Path] = []
#: nbcompile's per-user directory of Inductor's CPU-ISA probes, beside its compile cache.
PROBES_NAME = "isa-probes"


def probes_dir() -> Path:
    """Where the fresh processes build Inductor's CPU-ISA probes (outside their measured
    calls: see child.py): nbcompile's per-user directory beside its compile cache (mode
    0700, checked as the cache is), kept as Inductor keeps its cache, so only the first
    measurement on this machine pays the ~4 s of building them; a private temporary
    directory, removed at exit, where that one cannot be used. They are shared libraries
    the children load: never a directory another user could write."""
    if not _PROBES or not _PROBES[0].is_dir():
        try:
            path = cache.ensure_dir(cache.user_dir(PROBES_NAME))
        except (cache.CacheDirError, OSError):
            path = private_dir("nbcompile-isa-")
            atexit.register(shutil.rmtree, path, True)
        _PROBES[:] = [path]
    return _PROBES[0]


def run_child(shipment: Shipment, label: str, variant: str, cache_dir: Path, work: Path,
              *, options: dict[str, Any] | None = None, blocks: Iterable[str] = (),
              artifact: Path | None = None, timeout_s: float | None = None,
              steady_budget_s: float = 1.0) -> Child:
    """Run ``variant`` of the shipped call in a fresh Python with ``cache_dir`` as its
    Inductor (and Triton) cache; a failed or timed-out child is a failed run, in words."""
    found = shipment.needs
    spec = {"imports": found.imports, "early": found.early, "late": found.late,
            "definitions": [asdict(d) for d in found.definitions],
            "variant": variant, "options": dict(options or {}), "blocks": list(blocks),
            "artifact": str(artifact) if artifact else "", "sys_path": list(sys.path),
            "steady_budget_s": steady_budget_s,
            "probes_dir": str(probes_dir())}
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
