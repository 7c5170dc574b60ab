"""The JSON records published inline (``application/vnd.nbcompile.v1+json``), long texts
capped."""

from __future__ import annotations

import copy
import dataclasses
import sys
import time
from typing import Any

from ..core.insight.break_ranking import break_key, rank_breaks
from ..core.notebook.cells.cell_names import names_in
from ..core.records import SCHEMA_VERSION, TargetRecord
from ..core.trace.runs_as import break_walk_texts
from .budget import fit_record, json_size, output_budget
from .summary_model import progress_text, status_text, step_text
from .text import GRAPH_CAP, GUARDS_CAP, KERNEL_CAP, OUTPUT_CODE_CAP, cap


def published_record(record: TargetRecord | dict[str, Any],
                     text_caps: bool = True) -> dict[str, Any]:
    """A target record with long texts capped (unless ``text_caps`` is False: the
    inspector's whole record), ready to publish."""
    data = (_without_dropped(record).to_dict() if isinstance(record, TargetRecord)
            else copy.deepcopy(record))
    if isinstance(record, TargetRecord):
        # What the inspector would otherwise recompute: the worded status and how many
        # compiles hit each break (the same rule and words as the inline summary).
        data["status_text"] = status_text(record)
        if record.status == "compiling" and record.progress is not None:
            data["progress_text"] = (f"{step_text(record.progress)} \u00b7 "
                                     f"{progress_text(record.progress, record.name)}")
        hits = {break_key(r.graph_break): r.hits for r in rank_breaks([record])}
        walks = break_walk_texts(record.compiles)
        for gb, published in zip(record.graph_breaks, data.get("graph_breaks", []),
                                 strict=False):
            published["hits"] = hits.get(break_key(gb), 1)
            if walk := walks.get((gb.filename or "", gb.lineno or 0)):
                published["runs_as"] = walk
    name = data.get("name", "obj")
    output_cap, kernel_cap, graph_cap, guards_cap = (
        (OUTPUT_CODE_CAP, KERNEL_CAP, GRAPH_CAP, GUARDS_CAP) if text_caps else (sys.maxsize,) * 4)
    truncated = False
    data["output_code"], t = cap(data.get("output_code", ""), output_cap, name)
    truncated |= t
    for kernel in data.get("kernels", []):
        kernel["source"], t = cap(kernel.get("source", ""), kernel_cap, name)
        truncated |= t
    for diff in data.get("code_diffs", []):
        diff["diff"], t = cap(diff.get("diff", ""), kernel_cap, name)
        truncated |= t
    for compile_ in data.get("compiles", []):
        compile_.update(_emptied())
        compile_.pop("chromium_events", None)  # ~25 kB a compile: report(x).save_chrome_trace
        compile_["graphs"] = [cap(g, graph_cap, name)[0] for g in compile_.get("graphs", [])]
        compile_["guards"], t = cap(compile_.get("guards", ""), guards_cap, name)
        truncated |= t
        if runs := compile_.get("runs_as"):  # the transformed code, capped as graphs are
            for key in ("source", "dis"):
                runs[key], t = cap(runs.get(key, ""), graph_cap, name)
                truncated |= t
    data["truncated"] = truncated
    if isinstance(record, TargetRecord):
        names = names_in(data)
        if names:
            data["cell_names"] = names
    return data


def _emptied() -> dict[str, Any]:
    """A published compile's fields left empty: its code and kernels are published once,
    at target level (kernels carry their lines; post-grad graphs stay in the kernel)."""
    return {"output_code": "", "kernels": [], "post_grad_graphs": []}


def _without_dropped(record: TargetRecord) -> TargetRecord:
    """``record`` with its compiles' fields a published record empties or drops already
    empty (``_emptied``, and Chrome-trace events): converting them to JSON values only to
    drop them was most of the cost of a live summary update (31 compiles: 11 -> 5 ms)."""
    return dataclasses.replace(record, compiles=[
        dataclasses.replace(c, chromium_events=[], **_emptied()) for c in record.compiles])


def summary_payload(
    records: list[TargetRecord], cell: dict[str, Any] | None = None,
    budget: int | None = None, text_caps: bool = True,
) -> dict[str, Any]:
    """The JSON payload of a ``%%compile`` cell's live summary, within ``budget`` bytes
    (default: the whole output budget) shared by its targets; ``text_caps=False`` keeps
    every text whole (the inspector's whole record, never saved)."""
    payload = {
        "schema_version": SCHEMA_VERSION,
        "record": "summary",
        "cell": cell or {},
        "updated_at": time.time(),
        "targets": [published_record(r, text_caps) for r in records],
    }
    budget = output_budget() if budget is None else budget
    # The commas between the targets count too.
    _share(payload["targets"], budget - json_size({**payload, "targets": []})
           - max(len(payload["targets"]) - 1, 0))
    return payload


def summary_within(payload: dict[str, Any], budget: int) -> dict[str, Any] | None:
    """A copy of the summary ``payload`` within ``budget`` bytes, its targets sharing it as
    ``summary_payload``'s do (each cut marked); ``None`` when even that does not fit."""
    fitted = {**payload, "targets": copy.deepcopy(payload.get("targets") or [])}
    _share(fitted["targets"], budget - json_size({**fitted, "targets": []})
           - max(len(fitted["targets"]) - 1, 0))
    return fitted if json_size(fitted) <= budget else None


def _share(targets: list[dict[str, Any]], budget: int) -> None:
    """Fit ``targets`` in ``budget`` bytes: small ones keep everything, the rest share
    what is left evenly."""
    sizes = {id(t): json_size(t) for t in targets}
    left, count = budget, len(targets)
    for t in sorted(targets, key=lambda t: sizes[id(t)]):
        allot = max(left // count, 0)
        size = sizes[id(t)]
        if size > allot:
            fit_record(t, allot, size)
            size = json_size(t)
        left -= size
        count -= 1
