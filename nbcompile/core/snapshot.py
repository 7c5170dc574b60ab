"""A target's record: the JSON-ready snapshot renderers and the API read.

Sits above ``targets`` (whose ``Target`` holds the live state) and the modules that add
views to the record (``annotate``, ``compile_diff``), so none of those import each other
in a cycle.
"""

from __future__ import annotations

from typing import Any

from . import annotate, compile_diff
from .advice import advise
from .records import GraphBreak, Kernel, Recompile, TargetRecord
from .targets import Target


def target_record(target: Target) -> TargetRecord:
    """A JSON-ready snapshot of ``target``: its compiles summed up, with the annotated
    source and code diffs (cached until the compiles change)."""
    breaks: list[GraphBreak] = []
    seen: set[tuple[Any, ...]] = set()
    for c in target.compiles:
        for gb in c.graph_breaks:
            key = (gb.filename, gb.lineno, gb.reason)
            if key not in seen:
                seen.add(key)
                breaks.append(gb)
    recompiles = [
        Recompile(reason=c.recompile_reason, compile_id=c.compile_id,
                  guard=c.recompile_guard)
        for c in target.compiles
        if c.recompile_reason
    ]
    kernels: list[Kernel] = [k for c in target.compiles for k in c.kernels]
    advice = advise(target.name, target.compiles, module=target.compiled_module,
                    dynamic=target.options.dynamic)
    output_code = "\n\n".join(
        f"# ===== compile {c.compile_id} ({c.frame}) =====\n{c.output_code}"
        for c in target.compiles
        if c.output_code
    )
    record = TargetRecord(
        id=target.id,
        name=target.name,
        kind=target.kind,
        options=target.options.to_dict(),
        status=target.status,
        wrapper=target.wrapper,
        compiled_object=_describe_compiled(target),
        cell=target.cell,
        notes=list(target.notes) + [f"{a.message} Fix: {a.fix}" for a in advice],
        advice=advice,
        error=target.error,
        compiling_since=target.compiling_since,
        compiles=list(target.compiles),
        graph_count=sum(len(c.graphs) for c in target.compiles),
        graph_breaks=breaks,
        recompiles=recompiles,
        kernels=kernels,
        output_code=output_code,
        compile_time_s=round(sum(c.times.get("total_s", 0.0) for c in target.compiles), 4),
        preview=target.preview,
    )
    return _with_codegen_views(record, target)

def _with_codegen_views(record: TargetRecord, target: Target) -> TargetRecord:
    """Add the annotated source and the code diffs (``annotate``, ``compile_diff``)."""
    # Both views only change when compiles do: the live summary refreshes every second
    # while a compile runs, and must not redo this work (or hold the GIL) each time.
    key = (record.status, record.error and record.error.message, len(target.previous_compiles),
           tuple((len(c.output_code), len(c.graph_breaks),
                  tuple(tuple(line.lineno for line in k.lines) for k in c.kernels))
                 for c in target.compiles))
    if target._views is not None and target._views[0] == key:
        record.annotations, record.code_diffs = target._views[1], target._views[2]
        return record
    spans = target.spans
    try:
        record.annotations = annotate.annotate_record(record, spans)
        record.code_diffs = compile_diff.diff_compiles(target.compiles, target.previous_compiles)
    except Exception as e:  # a parsing bug must not hide the rest of the record
        record.notes.append(f"nbcompile could not annotate the source: {e!r}")
        return record
    target._views = (key, record.annotations, record.code_diffs)
    return record


def _describe_compiled(target: Target) -> str:
    if target.kind == "function":
        return f"torch.compile({target.name})"
    if target.wrapper:
        module = target.compiled_module  # None once the user dropped it
        inner = type(module).__name__ if module is not None else "module"
        return f"the {inner} inside {target.name} ({target.wrapper}), compiled in place"
    return f"{target.name}.compile()"
