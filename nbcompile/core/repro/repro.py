"""``repro()``: a target's fact (its graph breaks, its latest recompile, the call's crash,
or its numbers against eager's) written as a standalone script in a fresh folder, run
once in a fresh Python with ``TORCH_TRACE`` set to the folder's ``trace/``, judged from
what torch (or the script's own numbers) recorded there, and a ``report.md`` beside it.
Files go only into that folder, never over an existing file."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

from .. import torch_compat
from ..logs.run import read_trace
from ..notebook.capture.session import get_session
from ..notebook.capture.snapshot import target_record
from ..steps import Progress, tell
from . import accuracy, crash, facts, modules, report, script
from .record import Repro

#: Characters of what a script killed by a signal printed last, kept in ``seen``.
PRINTED_CHARS = 600

DEFAULT_TIMEOUT_S = 180.0
#: Environment variables of torch's logging a fresh run must not inherit (its trace is
#: its own; the user's TORCH_LOGS would fill its output).
_TORCH_LOG_VARS = ("TORCH_TRACE", "TORCH_LOGS", "TORCH_COMPILE_DEBUG", "TORCH_LOGS_OUT",
                   "TORCH_DTRACE")
#: Settings nbcompile itself changes in the kernel: not the user's, not carried.
_OWN_SETTINGS = re.compile(r"provenance_tracking_level|fx_graph_cache|autograd_cache")


class ReproError(ValueError):
    """Why no repro can be written (in words)."""


def repro(target: Any, *args: Any, fact: str = "auto", folder: str | os.PathLike[str] | None
          = None, timeout_s: float = DEFAULT_TIMEOUT_S, collect_env: bool = True,
          save_inputs: bool = False, progress: Progress | None = None, **kwargs: Any
          ) -> Repro:
    """Write a standalone script that shows ``target``'s fact for this call, run it in a
    fresh process, and say whether it reproduced.

    ``target`` is a function or module compiled by ``%%compile`` (a module whose class
    the notebook defines: its ``state_dict`` is saved beside the script). ``fact``:
    ``auto`` (the latest recompile a script can rebuild, else the graph breaks in
    nbcompile's record, else the crash a fresh compiled copy raises on copies of the
    inputs, else compiled numbers out of tolerance of eager's), or one of
    ``graph_breaks``, ``recompile``, ``crash``, ``accuracy``. The stance in force is
    carried into the script. ``folder``: where the files
    go (made; refused unless new or empty); by default a fresh ``nbcompile-repro-<name>-*``
    folder in the current directory. ``timeout_s`` bounds the fresh run;
    ``collect_env`` adds torch's environment summary to the report; ``save_inputs``
    saves the call's tensors beside the script (``torch.save``; the script loads them
    with ``weights_only=True``) in place of seeded random values.
    """
    if fact not in ("auto", *facts.KINDS):
        raise ReproError(f"fact {fact!r} is not one of auto, {', '.join(facts.KINDS)}")
    if not (isinstance(timeout_s, (int, float)) and 0 < timeout_s < float("inf")):
        raise ReproError(f"timeout_s must be a positive number of seconds, not {timeout_s!r}")
    found = get_session().find(target)
    if found is None:
        name = getattr(target, "__name__", type(target).__name__)
        raise ReproError(f"nbcompile has no record of {name}: compile it in a %%compile cell "
                         "first (after %load_ext nbcompile)")
    record = target_record(found)
    fn = torch_compat.orig_callable(target)
    chosen = _fact(record, fact, target, fn, args, kwargs)
    options = {k: v for k, v in found.options.torch_kwargs().items()
               if (k, v) not in (("fullgraph", False), ("dynamic", None), ("disable", False),
                                 ("backend", "inductor"))}
    configs = "\n".join(line for line in torch_compat.changed_configs().splitlines()
                        if not _OWN_SETTINGS.search(line))
    result = Repro(record.name, chosen.kind, chosen.words, expected=dict(chosen.expected),
                   notes=list(chosen.notes))
    header = (f"Reproduces with torch alone what nbcompile saw in a notebook: {chosen.words}\n"
              f"Written by nbcompile for torch {torch_compat.torch_version()}. Run: python "
              "repro.py (exits 1 when the fact does not show).")
    try:
        built = (modules.built(fn, found.cell.filename, [found.name])
                 if isinstance(fn, torch.nn.Module) else None)
        stance = script.stance_source(torch_compat.stance_state())
        if stance:
            result.notes.append(f"the stance in force is carried: {stance}")
        written = script.write(fn, args, kwargs, options, chosen, configs, header,
                               built=built, save_inputs=save_inputs, stance=stance)
    except (script.NotCarried, modules.NotBuilt) as e:
        result.problem = f"no script written: {e}"
        result.differs = [str(e)]
        return result
    where = _fresh_folder(folder, record.name)
    result.folder = str(where)
    path = where / "repro.py"
    with open(path, "x") as f:  # "x": never over an existing file
        f.write(written.text)
    for name, tensors in written.files.items():
        with open(where / name, "xb") as f:
            torch.save(tensors, f)
        result.saved.append(str(where / name))
    result.path, result.command = str(path), f"cd {where} && python repro.py"
    env_proc = report.collect_env() if collect_env else None
    tell(progress, "repro", "running the script in a fresh process", remaining_s=timeout_s)
    _run(result, where, timeout_s)
    result.differs = (accuracy.judge(chosen.expected, result.seen)
                      if chosen.kind == "accuracy" and "error" not in result.seen
                      else facts.judge(chosen, result.seen))
    result.reproduced = not result.differs
    if not result.reproduced and chosen.kind == "accuracy" and not save_inputs:
        result.differs.append("its inputs were seeded random values, not the call's: "
                              "save_inputs=True (%repro --save-inputs) carries them")
    env = report.env_summary(env_proc) if collect_env else "(not collected)"
    report_path = where / "report.md"
    with open(report_path, "x") as f:
        f.write(report.report_text(result, env))
    result.report_path = str(report_path)
    return result


def _fact(record: Any, asked: str, target: Any, fn: Any, args: tuple[Any, ...],
          kwargs: dict[str, Any]) -> facts.Fact:
    """The fact asked for, or (``auto``) the first one that can be written: a recompile
    whose state before can be rebuilt, else the graph breaks in nbcompile's record, else
    the crash a fresh compiled copy raises on this call, else its numbers against
    eager's. What ``auto`` passed over is said in the fact's notes."""
    signed = fn.forward if isinstance(fn, torch.nn.Module) else fn
    names = script.arg_names(signed, args, kwargs)
    code_name = getattr(getattr(signed, "__code__", None), "co_name", "")
    passed: list[str] = []  # what auto could not write, in words
    if asked == "recompile" or (asked == "auto" and record.recompiles):
        try:
            return facts.recompile_fact(record, names, code_name)
        except facts.NoFact as e:
            if asked == "recompile":
                raise ReproError(f"{e}; {_other_facts(record)}") from None
            passed.append(f"its recompile is not reproduced: {e}")
    try:
        if asked == "graph_breaks" or (asked == "auto" and record.graph_breaks):
            chosen = facts.break_fact(record)
        elif asked == "accuracy":
            chosen = accuracy.accuracy_fact(target, args, kwargs)
        else:
            chosen = crash.call_crash(target, args, kwargs)
    except facts.NoFact as e:
        if asked != "auto":
            raise ReproError(f"nothing to reproduce: {e}") from None
        try:
            chosen = accuracy.accuracy_fact(target, args, kwargs)
        except facts.NoFact as again:
            missing = "graph break" if record.recompiles else "graph break or recompile"
            said = [f"{record.name} has no {missing} in nbcompile's record", *passed, str(e)]
            raise ReproError(f"nothing to reproduce: {'; '.join(said)}; and {again}"
                             ) from None
    chosen.notes[:0] = passed
    return chosen


def _other_facts(record: Any) -> str:
    """Which fact to ask for instead of a recompile that cannot be rebuilt."""
    count = len(record.graph_breaks)
    if count:
        return (f"ask for --fact graph_breaks (fact='graph_breaks'): its {count} graph "
                "break(s) in nbcompile's record")
    return ("--fact crash or --fact accuracy (fact='crash', 'accuracy') look at this call "
            "instead")


def _fresh_folder(folder: str | os.PathLike[str] | None, name: str) -> Path:
    """The folder asked for (new or empty), or a fresh one in the current directory."""
    if folder is None:
        safe = re.sub(r"[^\w.-]", "_", name)[:40] or "target"
        return Path(tempfile.mkdtemp(prefix=f"nbcompile-repro-{safe}-", dir=os.getcwd()))
    where = Path(folder).expanduser().resolve()
    if where.exists() and (not where.is_dir() or any(where.iterdir())):
        raise ReproError(f"{where} exists and is not an empty folder: a repro never writes "
                         "over files; give a new folder")
    where.mkdir(parents=True, exist_ok=True)
    return where


def _run(result: Repro, where: Path, timeout_s: float) -> None:
    """The script run in a fresh Python (its own session, stopped whole on timeout), with
    its structured trace in ``where/trace``; what torch recorded there in ``seen``."""
    trace = where / "trace"
    env = {k: v for k, v in os.environ.items() if k not in _TORCH_LOG_VARS}
    env["TORCH_TRACE"] = str(trace)
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "repro.py"], cwd=where, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except BaseException as e:  # the time ran out, or Ctrl-C: no process left behind
        _stop(proc)
        if not isinstance(e, subprocess.TimeoutExpired):
            raise
        result.seen = {"error": f"it ran past {timeout_s:.0f} s and was stopped"}
        return
    finally:
        result.elapsed_s = round(time.perf_counter() - started, 3)
    seen: dict[str, Any] | None = script.read_seen(out)
    if seen is None and proc.returncode < 0:  # killed by a signal
        name, printed = _signal_name(-proc.returncode), " ".join(err.split())[-PRINTED_CHARS:]
        seen = ({"raised": {"type": name, "message": f"{facts.KILLED}{name}",
                            "printed": printed}} if result.kind == "crash"
                else {"error": f"{facts.KILLED}{name} (what it printed last: {printed})"})
    if seen is None:
        last = (err.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        seen = {"error": last[:300]}
    if trace.is_dir():
        result.trace_dir = str(trace)
        if result.kind == "graph_breaks" and "error" not in seen:
            read = read_trace(trace, source_root=where)
            seen["lines"] = sorted({b.line.strip() for c in read.compiles
                                    for b in c.graph_breaks if b.line.strip()})
    result.seen = seen


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _stop(proc: subprocess.Popen[str]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    proc.communicate()
