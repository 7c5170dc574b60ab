"""A target's record: the JSON-ready snapshot renderers and the API read.

Sits above ``target_state`` (whose ``Target`` holds the live state) and the modules that add
views to the record (``annotate``, ``compile_diff``), so none of those import each other
in a cycle.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ...frames import is_entry_file
from ...insight import annotate, compile_diff
from ...insight.advice import advise
from ...insight.diagnose_hint import failure_hint, required_params
from ...insight.not_compiled import code_name, why_not_compiled, without_internal_place
from ...insight.recompile_words import recompile_text
from ...records import CompileRecord, GraphBreak, Kernel, Recompile, TargetRecord
from ..cells import stance
from ..targets.target_state import DerivedViews, Target, forward_arg_names


def compiled_inside(target: Target) -> str:
    """The name of a target of the same cell that compiled this not yet called module as
    part of its graph ("" if none)."""
    if target.status != "pending":
        return ""
    return next((user.name for user in target.used_by
                 if user.status == "compiled" and any(c.graphs for c in user.compiles)), "")


def _notes(target: Target, inside: str) -> list[str]:
    if not inside:
        return list(target.notes)
    notes = [n for n in target.notes if not n.startswith(f"{target.name} is used inside")]
    return notes + [f"{target.name} compiled inside {inside}: it ran as part of {inside}'s "
                    f"graph (its kernels are in {inside}'s report); called directly, it "
                    "compiles on its own."]


def _params(target: Target) -> list[str]:
    """The target's parameters, for a call written out (``%diagnose f(x)``)."""
    if target.kind == "module":
        module = target.compiled_module or target.original
        return list(forward_arg_names(module)) if module is not None else ["..."]
    return required_params(target.original) if target.original is not None else ["..."]


def _call_text(target: Target) -> str:
    """A call of the target with its parameter names (``f(x)``), for a ``%suggest`` line;
    "" until it recompiled (no line to offer)."""
    if not any(c.recompile_reason for c in target.compiles):
        return ""
    return f"{target.name}({', '.join(_params(target))})"


def _diagnose_hint(target: Target) -> list[str]:
    """A failed compile's pointer to ``%diagnose``, as a call with the target's parameters."""
    if target.status != "failed" or target.error is None:
        return []
    params = _params(target)
    hint = failure_hint(target.name, params, target.error.type)
    return [hint] if hint else []


def target_record(target: Target) -> TargetRecord:
    """A JSON-ready snapshot of ``target``: its compiles summed up, with the annotated
    source and code diffs (cached until the compiles change)."""
    _label_compiles(target)
    published = _published_compiles(target)
    breaks: list[GraphBreak] = []
    seen: set[tuple[Any, ...]] = set()
    for c in published:
        for gb in c.graph_breaks:
            key = (gb.filename, gb.lineno, gb.reason)
            if key not in seen:
                seen.add(key)
                breaks.append(gb)
    recompiles = [
        Recompile(reason=c.recompile_reason, compile_id=c.compile_id,
                  guard=c.recompile_guard, frame=c.frame, cell=c.cell,
                  changed_by=list(c.changed_by), changes=list(c.changes),
                  failed_versions=list(c.failed_versions))
        for c in published
        if c.recompile_reason
    ]
    for rc in recompiles:
        rc.text = recompile_text(rc)
    kernels: list[Kernel] = [k for c in target.compiles for k in c.kernels]
    advice = advise(target.name, target.compiles, module=target.compiled_module,
                    dynamic=target.options.dynamic, call=_call_text(target))
    output_code = "\n\n".join(
        f"# ===== {c.label} =====\n{c.output_code}"
        for c in target.compiles
        if c.output_code
    )
    inside = compiled_inside(target)
    record = TargetRecord(
        id=target.id,
        name=target.name,
        kind=target.kind,
        options=target.options.to_dict(),
        status="compiled_inside" if inside else target.status,
        compiled_inside=inside,
        wrapper=target.wrapper,
        compiled_object=_describe_compiled(target),
        cell=target.cell,
        notes=_notes(target, inside) + [f"{a.message} Fix: {a.fix}" for a in advice]
        + ([why_not_compiled(target.name, target.compiles, breaks, target.original)]
           if target.status == "not_compiled" else [])
        + _diagnose_hint(target),
        advice=advice,
        error=target.error,
        compiling_since=target.compiling_since,
        progress=(target.progress.snapshot() if target.status == "compiling"
                  and target.progress is not None and not target.progress.finished else None),
        compiles=published,
        # graphs that run: a failed (or interrupted) compile installs none
        graph_count=sum(len(c.graphs) for c in target.compiles if c.status == "ok"),
        graph_breaks=breaks,
        recompiles=recompiles,
        kernels=kernels,
        output_code=output_code,
        compile_time_s=round(sum(c.times.get("total_s", 0.0) for c in target.compiles), 4),
        preview=target.preview,
        torch_logs=list(target.torch_logs),
        stance=stance.current(),
        eager_runs=[dataclasses.replace(r, cells=list(r.cells)) for r in target.eager_runs],
        cudagraph_calls=list(target.cudagraph_calls),
        cudagraph_shapes=target.cudagraph_shapes,
        cudagraph_hazards=list(target.cudagraph_hazards),
    )
    return _with_codegen_views(record, target)


def _label_compiles(target: Target) -> None:
    """Each compile's ``label`` and its kernels' ``compile_label``: the words views name a
    compile by. A wrapper frame (torch's ``wrap_inline``, ``inner``, or nbcompile's entry
    function) is the target's own call: named by the target, as the user wrote it."""
    for c in target.compiles:
        code = c.code = code_name(target.name, c.frame, c.filename)
        c.label = f"compile {c.compile_id} ({code})" if code else f"compile {c.compile_id}"
        for k in c.kernels:
            k.compile_label = f"compile {k.compile_id}" if k.compile_id else ""


def _published_compiles(target: Target) -> list[CompileRecord]:
    """The target's compiles as the user reads them: nbcompile's entry function (a module
    target's) never named (its compile names the module's ``forward``), and a break its
    entry frame saw only because the module's ``forward`` broke inside it left to the
    frame that reports it again (``module.compile()`` has no such frame: counted once);
    an entry compile left with no graph, no break and no failure is not listed (torch's
    record of ``module.compile()`` has no such frame compile)."""
    compiles = [_without_internal_places(c) for c in target.compiles]
    if target.kind != "module":
        return compiles
    forward = target.spans[0] if target.spans else None
    out = []
    for i, c in enumerate(compiles):
        if not is_entry_file(c.filename):
            out.append(c)
            continue
        breaks = c.graph_breaks
        others = {_break_key(gb) for o in compiles[i + 1:] for gb in o.graph_breaks}
        if not c.graphs and breaks and all(_break_key(gb) in others for gb in breaks):
            breaks = []
        if not c.graphs and not breaks and c.status == "ok":
            continue  # the entry's frame only: module.compile() compiles no such frame
        out.append(_without_internal_places(dataclasses.replace(
            c, filename=forward.filename if forward else "",
            firstlineno=forward.first if forward else 0, graph_breaks=breaks)))
    return out


def _break_key(gb: GraphBreak) -> tuple[Any, ...]:
    return (gb.filename, gb.lineno, gb.reason)


def _without_internal_places(c: CompileRecord) -> CompileRecord:
    """``c`` with graph breaks placed at nbcompile's entry function made placeless, and
    its Chrome-trace events naming the user's code instead of the entry's file."""
    breaks = [without_internal_place(gb) for gb in c.graph_breaks]
    events = c.chromium_events
    if any(_names_entry(e) for e in events):
        events = [{**e, "args": {k: c.filename if isinstance(v, str) and is_entry_file(v) else v
                                 for k, v in e["args"].items()}} if _names_entry(e) else e
                  for e in events]
    if events is c.chromium_events and all(
            a is b for a, b in zip(breaks, c.graph_breaks, strict=True)):
        return c
    return dataclasses.replace(c, graph_breaks=breaks, chromium_events=events)


def _names_entry(event: dict[str, Any]) -> bool:
    args = event.get("args")
    return isinstance(args, dict) and any(
        isinstance(v, str) and is_entry_file(v) for v in args.values())


def _with_codegen_views(record: TargetRecord, target: Target) -> TargetRecord:
    """Add the annotated source and the code diffs (``annotate``, ``compile_diff``)."""
    # Both views only change when compiles do: the live summary refreshes every second
    # while a compile runs, and must not redo this work (or hold the GIL) each time. Of
    # the status they read only "disabled": pending -> compiling (a call starting) keeps
    # them (a GPT-2's annotated modeling file, 1330 lines: ~30 ms CPU at compile start).
    key = (record.status == "disabled", record.error and record.error.message,
           len(target.previous_compiles),
           tuple((len(c.output_code), len(c.graph_breaks),
                  tuple(tuple(line.lineno for line in k.lines) for k in c.kernels))
                 for c in target.compiles))
    cached = target.derived_views
    if cached is not None and cached.key == key:
        record.annotations, record.code_diffs = cached.annotations, cached.code_diffs
        record.no_kernel_lines = cached.no_kernel_lines
        return record
    spans = target.spans
    try:
        record.annotations = annotate.annotate_record(record, spans)
        record.code_diffs = compile_diff.diff_compiles(target.compiles, target.previous_compiles)
        record.no_kernel_lines = annotate.no_kernel_lines(record, record.annotations,
                                                          _torch_layers(target))
    except Exception as e:  # a parsing bug must not hide the rest of the record
        record.notes.append(f"nbcompile could not annotate the source: {e!r}")
        return record
    target.derived_views = DerivedViews(key, record.annotations, record.code_diffs,
                                        record.no_kernel_lines)
    return record


def _torch_layers(target: Target) -> list[str]:
    """The torch layers a module target is made of ([] for a function)."""
    module = target.compiled_module or target.original
    return annotate.torch_layers(module) if target.kind == "module" else []


def _describe_compiled(target: Target) -> str:
    if target.kind == "function":
        return f"torch.compile({target.name})"
    if target.wrapper:
        module = target.compiled_module  # None once the user dropped it
        inner = type(module).__name__ if module is not None else "module"
        return f"the {inner} inside {target.name} ({target.wrapper}), compiled in place"
    return f"{target.name}.compile()"
