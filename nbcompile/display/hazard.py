"""Words for CUDA-graph outputs overwritten while a name still held them
(``core/notebook/cudagraphs/hazard.py``): the report at the cell whose call overwrote them,
and the explanation of torch's error when one is read later."""

from __future__ import annotations

from ..core.notebook.cudagraphs.cloning import Cloning
from ..core.notebook.cudagraphs.hazard import (
    Explanation,
    HazardReport,
    Overwritten,
    Shared,
    SharedReport,
)
from ..core.records import CudagraphHazard, CudagraphHazardName
from .bundle import item_bundle
from .summary_model import SummaryItem

#: Names listed per group of one shared tensor (``preds[0]`` ... ``preds[63]``).
SHOWN_NAMES = 6

#: Why ``cudagraph_mark_step_begin`` is not the fix, said once wherever the fix is.
MARK_STEP = ("torch.compiler.cudagraph_mark_step_begin() does not keep it: it marks where "
             "a new iteration starts, and the previous iteration's outputs are overwritten "
             "all the same.")


def _cell(number: int | None) -> str:
    return f"cell [{number}]" if number is not None else "an earlier cell"


def _names(names: tuple[Overwritten, ...]) -> str:
    return ", ".join(f"`{o.name}` (bound in {_cell(o.bound_in)})" for o in names)


def _calls(calls: tuple[str, ...], cell: int | None, here: bool) -> str:
    where = "this cell" if here else _cell(cell)
    if not calls:
        return f"a call of a CUDA-graph function in {where}"
    what = " then ".join(f"`{c}`" for c in calls)
    return f"the call of {what} in {where}"


def torch_setting(cloning: Cloning | None, what: str = "overwritten") -> str:
    """torch's own remedy, where the running torch's message offers one (torch 2.15's
    ``cudagraph_trees_generation_cloning``), in its words; "" where it offers none. When
    it is on already, why it did not keep this output: torch reads it when it compiles a
    graph (``output_code.py``), so a graph compiled before it was set does not clone."""
    if cloning is None:
        return ""
    if cloning.on:
        return (f" torch's setting `{cloning.assignment}` is on, yet this output was {what}: torch "
                "reads it when it compiles a graph, and a graph compiled before it was set "
                f"does not \"{cloning.does}\" (torch's words); compile again to have it "
                "apply.")
    return (f" Or let torch keep them: set `{cloning.assignment}` before compiling, to "
            f"\"{cloning.does}\" (torch's words: each output still held when a new "
            "generation starts is copied out of the CUDA-graph pool, a copy each time).")


def _fix(names: tuple[Overwritten, ...], gradient: bool = False,
         cloning: Cloning | None = None) -> str:
    """The fix torch gives for the variant: a copy of an output held across calls, or
    torch's own cloning setting where the running torch offers it (``torch_setting``);
    for a ``.grad`` the compiled backward allocated during capture, stable gradient
    buffers or none (torch's ``format_dealloc_msg``: its gradient variant offers no
    setting, and torch clones no backward output)."""
    if gradient or any(o.message.gradient for o in names):
        return ("Fix (torch's advice for gradients): if you accumulate gradients, allocate "
                "stable .grad buffers outside CUDA-graph capture before the compiled "
                "backward runs (an eager warm-up iteration, or zeroed .grad tensors made "
                "beforehand); if you do not, set .grad to None before each backward "
                "(optimizer.zero_grad() does by default).")
    first = names[0].name if names else "y"
    return (f"Fix: keep a copy of an output you hold across calls, e.g. `{first} = "
            f"f(x).clone()` (f your compiled function); or use it before the next call."
            + torch_setting(cloning) + " " + MARK_STEP)


def _torch_words(gradient: bool) -> str:
    kind = "gradient tensor output" if gradient else "tensor output"
    return f"accessing {kind} of CUDAGraphs that has been overwritten by a subsequent run"


def _overwriters(report: HazardReport) -> list[str]:
    """One clause per call that overwrote names: ``the call of `g` in this cell (cell
    [5]) overwrote the CUDA-graph output still held by `y1` (bound in cell [3])``."""
    groups: dict[str, list[Overwritten]] = {}
    for o in report.names:
        groups.setdefault(o.by, []).append(o)
    when = f" ({_cell(report.cell)})" if report.cell is not None else ""
    clauses: list[str] = []
    for caller, names in groups.items():
        if caller:
            who = f"the call of `{caller}` in this cell{when}"
        else:
            who = f"a call of a CUDA-graph function in this cell{when}"
            if report.generations is not None and report.generations > 1:
                who += (f" (one of the {report.generations} compiled calls it made; which "
                        "one is not known)")
        plural = "s" if len(names) > 1 else ""
        clauses.append(f"{who} overwrote the CUDA-graph output{plural} still held by "
                       f"{_names(tuple(names))}")
    return clauses


def report_text(report: HazardReport) -> str:
    """The report at the cell whose call overwrote the outputs."""
    plural = len(report.names) > 1
    gradient = any(o.message.gradient for o in report.names)
    lines = [
        "nbcompile: " + "; ".join(_overwriters(report)) + ".",
        "CUDA-graph trees (mode reduce-overhead) reuse an output's memory at the next "
        f"replay: {'these names hold' if plural else 'it holds'} nothing now, and reading "
        f"{'them' if plural else 'it'} raises torch's \"{_torch_words(gradient)}\".",
        _fix(report.names, gradient, report.cloning),
    ]
    return "\n".join(lines)


def explanation_text(found: Explanation) -> str:
    """torch's error explained, shown above it."""
    if found.names:
        who = _names(found.names)
        verb = "is a CUDA-graph output" if len(found.names) == 1 else "are CUDA-graph outputs"
        by = (_calls(found.calls, found.overwritten_in, False)
              if found.overwritten_in is not None else "a later call of its compiled function")
        head = f"nbcompile: {who} {verb} that {by} overwrote."
    else:
        head = ("nbcompile: this tensor is a CUDA-graph output that a later call of its "
                "compiled function overwrote.")
    produced = found.message.produced_in
    lines = [head]
    if produced:
        lines.append(f"It was produced in `{produced}`; CUDA-graph trees reuse an output's "
                     "memory at the next replay of the graph.")
    else:
        lines.append("CUDA-graph trees reuse an output's memory at the next replay of the graph.")
    lines.append(_fix(found.names, found.message.gradient, found.cloning))
    return "\n".join(lines)


def _group(group: tuple[Shared, ...]) -> str:
    shown = ", ".join(f"`{s.name}` (bound in {_cell(s.bound_in)})"
                      for s in group[:SHOWN_NAMES])
    more = len(group) - SHOWN_NAMES
    return shown + (f" and {more} more" if more > 0 else "")


def shared_text(report: SharedReport) -> str:
    """Names holding one CUDA-graph output together, and names whose output a later replay
    wrote, said at the cell that made it so."""
    lines: list[str] = []
    for group in report.groups:
        first = group[0].name
        lines.append(
            f"nbcompile: {_group(group)} are one and the same tensor, a CUDA-graph output "
            "(mode reduce-overhead). CUDA-graph trees hand back the same tensor at every "
            "replay of a recorded graph and write the new values into it, with no error: "
            f"`{first}` no longer holds what it held when it was bound.")
    if report.written:
        by = [p for p in report.producers if p]
        call = f"`{by[0]}`" if len(by) == 1 else "its compiled function"
        one = len(report.written) == 1
        lines.append(
            f"nbcompile: {_group(report.written)} {'holds' if one else 'hold'} a CUDA-graph "
            f"output (mode reduce-overhead) that a later call of {call} in this cell "
            "replayed into, with no error: CUDA-graph trees hand back the same tensor at "
            "every replay of a recorded graph and write the new values into it, so "
            f"{'it no longer holds' if one else 'they no longer hold'} what "
            f"{'it' if one else 'they'} held when bound.")
    named = [*(g[-1] for g in report.groups), *report.written]
    base = named[0].name.split("[", 1)[0] if named else "y"
    lines.append(f"Fix: keep a copy of each output you hold across calls, e.g. `{base} = "
                 "f(x).clone()`, or `[f(b).clone() for b in batches]` (f your compiled "
                 "function)." + torch_setting(report.cloning, "written") + " " + MARK_STEP)
    return "\n".join(lines)


def _record_text(text: str) -> str:
    """A text as the record keeps it: without the cell output's ``nbcompile:`` lead."""
    return text.replace("nbcompile: ", "")


def report_record(report: HazardReport) -> CudagraphHazard:
    """The overwritten outputs as a record (the summary and the inspector show it)."""
    return CudagraphHazard(
        "overwritten", report.cell,
        [CudagraphHazardName(o.name, o.bound_in, o.by) for o in report.names],
        any(o.message.gradient for o in report.names), _record_text(report_text(report)))


def shared_record(report: SharedReport) -> CudagraphHazard:
    """Names holding one CUDA-graph output, as a record."""
    return CudagraphHazard(
        "shared", report.cell,
        [CudagraphHazardName(s.name, s.bound_in)
         for group in (*report.groups, report.written) for s in group],
        False, _record_text(shared_text(report)))


def report_bundle(report: HazardReport) -> dict[str, str]:
    """The report at its cell, styled as the summary's warnings."""
    return item_bundle(SummaryItem("hazard", report_text(report)))


def shared_bundle(report: SharedReport) -> dict[str, str]:
    """Names holding one CUDA-graph output, at their cell, styled as the summary's."""
    return item_bundle(SummaryItem("hazard", shared_text(report)))
