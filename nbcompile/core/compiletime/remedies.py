"""Each remedy ``compile_time()`` tries (``regional``, ``nested_region``, ``dynamic``,
``portable_cache``, ``precompiled``): the change it suggests, its fresh runs and
alternated rounds (``measurement.py``), and its verdict (``judge``)."""

from __future__ import annotations

import statistics

import torch

from .. import torch_compat
from .fresh import Child
from .measurement import Measurement
from .record import Remedy
from .rounds import Rounds, cut_words, judge_rounds, secs
from .where import Candidate


def _cut(before: float | None, after: float | None) -> float | None:
    if before is None or after is None or before <= 0:
        return None
    return 1.0 - after / before


def _ratio(after: float | None, before: float | None) -> float | None:
    if after is None or before is None or before <= 0:
        return None
    return round(after / before, 3)


def judge(kind: str, change: str, child: Child | None, baseline: Child, rounds: Rounds,
          *, restart: Child | None = None, against: str = "cold", note: str = "") -> Remedy:
    """A remedy from its fresh runs: the timing verdict of its alternated rounds
    (``judge_rounds``), verified only with the same outputs as eager's; or failed."""
    remedy = Remedy(kind, change=change, status="failed")  # type: ignore[arg-type]
    if child is None:
        remedy.status, remedy.note = "not tried", "the budget was spent before it"
        return remedy
    if child.run.status != "ok":
        remedy.note = f"{child.run.error}"
        return remedy
    run = child.run
    remedy.same_result, remedy.max_abs_diff = run.same_result, run.max_abs_diff
    remedy.steady_ratio = _ratio(run.steady_s, baseline.run.steady_s)
    remedy.rounds_before_s, remedy.rounds_after_s = list(rounds.before), list(rounds.after)
    after = statistics.median(rounds.after) if rounds.after else run.first_call_s
    if against == "cold":
        remedy.cold_s = after  # the median over the rounds
        if restart is not None and restart.run.status == "ok":
            remedy.restart_s = restart.run.first_call_s
    else:
        remedy.restart_s = after
    if run.same_result is False:
        cut = _cut(rounds.before[0], rounds.after[0]) if rounds.before else None
        remedy.status = "did not help"
        remedy.note = (f"outputs differ from eager's (max abs diff {run.max_abs_diff}); "
                       f"{against} first call {secs(after)}"
                       + ("" if cut is None else f" ({cut_words(cut)} in one round)"))
    else:
        verdict = judge_rounds(rounds.before, rounds.after, target=against,
                               stopped=rounds.stopped)
        remedy.status, remedy.note = verdict.status, verdict.words
        remedy.verified = verdict.status == "verified" and bool(run.same_result)
        remedy.cut, remedy.cut_low, remedy.cut_high = (
            _round(verdict.cut), _round(verdict.cut_low), _round(verdict.cut_high))
    if note:
        remedy.note += "; " + note
    return remedy


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _regional(m: Measurement, cold: Child, blocks: list[Candidate]) -> Remedy:
    if not blocks:
        return Remedy("regional", change="", status="does not apply",
                      note="no repeated blocks: no container holds two or more modules of "
                           "one class with the same structure")
    change = "\n".join(f"for block in model.{b.path}:\n    block.compile()" if b.path else
                       "for block in model:\n    block.compile()" for b in blocks)
    paths = [b.path for b in blocks]
    child = m.child("regional cold", "regional", "regional", blocks=paths)
    restart = (m.child("regional restart", "regional", "regional", blocks=paths)
               if child is not None and child.run.status == "ok" else None)
    if child is not None and child.run.status == "ok" and not child.run.frames_compiled:
        return Remedy("regional", change=change, status="did not help",
                      note="the blocks' .compile() compiled nothing in the fresh process "
                           "(torch skips the forward of torch.nn's own classes)")
    rounds = m.alternate(child, "regional cold", "regional", "regional", blocks=paths)
    return judge("regional", change, child, cold, rounds, restart=restart)


def _nested(m: Measurement, cold: Child, blocks: list[Candidate]) -> Remedy:
    if not blocks:
        return Remedy("nested_region", change="", status="does not apply",
                      note="no repeated blocks to mark as one nested compile region")
    names = sorted({b.cls.__name__ for b in blocks})
    change = "\n".join(f"{n}.forward = torch.compiler.nested_compile_region({n}.forward)"
                       for n in names) + "\nmodel = torch.compile(model)"
    paths = [b.path for b in blocks]
    child = m.child("nested_region cold", "nested_region", "nested", blocks=paths)
    rounds = m.alternate(child, "nested_region cold", "nested_region", "nested", blocks=paths)
    return judge("nested_region", change, child, cold, rounds)


def _dynamic(m: Measurement, cold: Child, blocks: list[Candidate]) -> Remedy:
    shape = [f for f in m.result.where.frames if f.recompile
             and ("size mismatch" in f.recompile_reason or "size" in f.recompile_reason)]
    if not shape:
        why = ("no recompiles" if not any(f.recompile for f in m.result.where.frames)
               else "its recompiles are not shape-driven")
        return Remedy("dynamic", change="", status="does not apply",
                      note=f"{why} in the cold run"
                           + ("" if len(m.calls) > 1 else
                              " (one call measured: pass more_calls= with the other shapes)"))
    name = "model" if isinstance(m.fn, torch.nn.Module) else getattr(m.fn, "__name__", "fn")
    change = f"{name} = torch.compile({name}, dynamic=True)"
    child = m.child("dynamic cold", "dynamic", "dynamic")
    rounds = m.alternate(child, "dynamic cold", "dynamic", "dynamic")
    why = "recompiled for: " + "; ".join(f.recompile_reason for f in shape[:2])
    return judge("dynamic", change, child, cold, rounds, note=why)


def _portable(m: Measurement, cold: Child, blocks: list[Candidate]) -> Remedy:
    change = ("artifacts, info = torch.compiler.save_cache_artifacts()  # after the first call\n"
              "# in the next process, before the first call:\n"
              "torch.compiler.load_cache_artifacts(artifacts)")
    artifact = m.work / "portable.bin"
    if not artifact.exists():
        return Remedy("portable_cache", change=change, status="failed",
                      note="torch.compiler.save_cache_artifacts() saved nothing in the cold run")
    child = m.child("portable_cache restart", "portable_load", "portable", artifact=artifact)
    rounds = m.alternate(child, "portable_cache restart", "portable_load", "portable",
                         artifact=artifact)
    return judge("portable_cache", change, child, cold, rounds, against="restart",
                  note=(f"a warm Inductor cache directory gives {secs(m.result.warm_restart_s)}"
                        if m.result.warm_restart_s is not None else ""))


def _precompiled(m: Measurement, cold: Child, blocks: list[Candidate]) -> Remedy:
    is_module = isinstance(m.fn, torch.nn.Module)
    name = getattr(m.fn, "__name__", "fn")
    if is_module:  # the module an argument: saving then needs no external_data
        change = ("def call(model, *args):\n    return model(*args)\n\n"
                  "compiled = torch.compile(call, fullgraph=True).aot_compile(((model, x), {}))\n"
                  "compiled.save_compiled_function('model.pt2')\n"
                  "# in the next process (model built as before):\n"
                  "with open('model.pt2', 'rb') as f:\n"
                  "    compiled = torch.compiler.load_compiled_function(f)\n"
                  "y = compiled(model, x)")
    else:
        change = (f"compiled = torch.compile({name}, fullgraph=True).aot_compile(((x,), {{}}))\n"
                  f"compiled.save_compiled_function('{name}.pt2')\n"
                  "# in the next process:\n"
                  f"with open('{name}.pt2', 'rb') as f:\n"
                  f"    {name} = torch.compiler.load_compiled_function(f)")
    if not torch_compat.has_aot_compile():
        return Remedy("precompiled", change=change, status="does not apply",
                      note=f"this torch ({torch.__version__}) has no "
                           "torch.compile(...).aot_compile: precompiled functions need a "
                           "newer torch")
    breaks = [f for f in m.result.where.frames if f.frame.startswith("torch_dynamo_resume_in")]
    if breaks or len({f.frame for f in m.result.where.frames}) > 1 and not is_module:
        return Remedy("precompiled", change=change, status="does not apply",
                      note="graph breaks prevent aot_compile (torch: \"Graph breaks are not "
                           "supported with aot compile\")")
    artifact = m.work / "precompiled.pt2"
    save = m.child("precompiled cold", "precompiled_save", "precompiled_save",
                   artifact=artifact)
    if save is not None and save.run.status != "ok":
        status = "does not apply" if "Graph break" in save.run.error or "Unsupported" in \
            save.run.error else "failed"
        return Remedy("precompiled", change=change, status=status,
                      note=f"aot_compile failed in the fresh process: {save.run.error}")
    load = (m.child("precompiled restart", "precompiled_load", "precompiled_load",
                    artifact=artifact) if save is not None else None)
    rounds = m.alternate(load, "precompiled restart", "precompiled_load", "precompiled_load",
                         artifact=artifact)
    remedy = judge("precompiled", change, load, cold, rounds, against="restart")
    if save is not None:
        remedy.cold_s = save.run.first_call_s
    return remedy


#: Each remedy kind's runs and verdict.
REMEDIES = {"regional": _regional, "nested_region": _nested, "dynamic": _dynamic,
             "portable_cache": _portable, "precompiled": _precompiled}
