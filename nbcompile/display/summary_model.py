"""The summary of a cell's targets as plain data, built once from ``TargetRecord``s.

The text and HTML summaries (``bundle.py``) are two small renderers of this model: what
is said (status, counts, notes, graph breaks, recompiles, errors and where they happened)
is decided here, how it looks there.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..core.frames import is_cell_file
from ..core.insight.advice import frame_words
from ..core.insight.break_ranking import rank_breaks
from ..core.insight.not_compiled import code_name
from ..core.insight.recompile_words import recompile_text
from ..core.notebook.cache import describe_cache
from ..core.notebook.cells.cell_names import name_cells
from ..core.notebook.cudagraphs.events import call_line as cudagraph_call_line
from ..core.notebook.cudagraphs.events import shapes_line as cudagraph_shapes_line
from ..core.notebook.cudagraphs.outcome import total as cudagraph_total
from ..core.records import CompileProgress, Recompile, SourceLine, TargetRecord
from ..core.trace.runs_as import break_walks, target_walks
from ..core.trace.stacks import cell_frame
from .text import clip

ItemKind = Literal["note", "cache", "graph_break", "recompile", "error", "torch_logs", "hazard",
                   "progress"]

#: What a cell without new functions or modules shows.
EMPTY_TEXT = "nbcompile: nothing to compile in this cell (no new functions or nn.Modules)."


@dataclass(frozen=True)
class SourceLocation:
    """Where an item happened: ``line 4`` for a cell line, ``pkg/mod/file.py:12`` for a
    library file, plus the cell line that led there (``via``), if known."""

    where: str
    via: str = ""


@dataclass(frozen=True)
class SummaryItem:
    """One detail under a target: a note, the cache state, a graph break, a recompile or
    the compile error. ``code`` is the source line involved, ``text`` the reason/message."""

    kind: ItemKind
    text: str
    code: str | None = None
    location: SourceLocation | None = None
    compile_id: str | None = None
    link: str = ""  # documentation page (a graph break's doc_url)
    link_label: str = ""  # e.g. the graph-break id "GB0170"
    detail: str = ""  # folded text shown on demand (torch's own log records)


@dataclass(frozen=True)
class Counts:
    graphs: int
    breaks: int
    recompiles: int
    kernels: int  # real kernels, not wrappers or other code pieces
    compile_s: float


@dataclass(frozen=True)
class TargetSummary:
    name: str
    kind: str
    status: str  # worded: "compiling... 12s", "waiting for first call", "compiled"...
    counts: Counts
    items: tuple[SummaryItem, ...] = ()


@dataclass(frozen=True)
class Summary:
    targets: tuple[TargetSummary, ...] = field(default_factory=tuple)
    empty_text: str = EMPTY_TEXT


def status_text(record: TargetRecord, now: float | None = None) -> str:
    """The status in words: the one wording, published with each target record
    (``status_text``) so the inspector shows the same words. Without ``now`` a compiling
    target is ``compiling...`` (the front end ticks the seconds), then its current step
    if known (``compiling...: AOTAutograd for 2s``)."""
    if record.status == "compiling":
        step = f": {step_text(record.progress)}" if record.progress else ""
        if record.compiling_since and now is not None:
            return f"compiling... {now - record.compiling_since:.0f}s{step}"
        return f"compiling...{step}"
    if record.status == "pending":
        return eager_text(record) or "waiting for first call"
    if record.status == "not_compiled":
        return "not compiled (runs eagerly)"
    if record.status == "compiled_inside":
        return f"compiled inside {record.compiled_inside or 'another target'}"
    if record.status == "failed" and record.error and record.error.type == "KeyboardInterrupt":
        return "interrupted (the next call compiles again)"
    return record.status


def eager_text(record: TargetRecord) -> str:
    """Calls that ran eagerly under a stance, in words: ``ran eagerly 2 times:
    force_eager stance, cell [5]`` ("" when none)."""
    parts = []
    for runs in record.eager_runs:
        cells = ", ".join(f"[{n}]" for n in runs.cells)
        where = f", cell{'s' if len(runs.cells) > 1 else ''} {cells}" if cells else ""
        times = "once" if runs.count == 1 else f"{runs.count} times"
        what = ("refused (it would compile)" if runs.stance == "fail_on_recompile"
                else "ran eagerly")
        parts.append(f"{what} {times}: {runs.stance} stance{where}")
    return "; ".join(parts)


def recompile_label(rc: Recompile, number: int, code: str | None = None) -> str:
    """Which frame recompiled and which recompile of it: ``#2 of `f` (torch's compile
    id 0/2)``; a resumed part is named as such (``the part of `f` after its graph break
    at line 4``). ``code``: the frame as the user wrote it (``code_name``), when it is
    not torch's name (a module's wrapper frame is the module's)."""
    code = rc.frame if code is None else code
    frame = frame_words(code) if code else "its frame"
    return f"#{number} of {frame} (torch's compile id {rc.compile_id})"


def recompile_guard(rc: Recompile) -> str | None:
    """torch's text of the newest failed guard, shown beside the words when they do not
    already quote it (None: they do, e.g. a record whose ``guard`` holds the words)."""
    newest = rc.guard.split("; ", 1)[0].strip()
    return newest if newest and newest not in rc.reason else None


#: Steps shorter than this are left out of "so far" (torch passes through many briefly).
MIN_STEP_S = 0.05


def step_text(p: CompileProgress) -> str:
    """The current step of a running compile in words, with its seconds so far:
    ``compiling 3 C++ kernels (1 of 3 done) for 4s``, ``AOTAutograd for 1s``."""
    step = p.phase or "starting"
    if p.kernels_total and p.phase in ("compiling kernels", "loading the compiled code"):
        kernels = (f"{p.kernels_total} {p.kernel_language} "
                   f"kernel{'s' if p.kernels_total != 1 else ''}").replace("  ", " ")
        done = f" ({p.kernels_done} of {p.kernels_total} done)" if p.kernels_done else ""
        step = (f"compiling {kernels}{done}" if p.phase == "compiling kernels"
                else f"loading the compiled code ({kernels} to compile{done})")
    return f"{step} for {p.phase_seconds.get(p.phase, 0.0):.0f}s"


def progress_text(p: CompileProgress, target: str = "") -> str:
    """Which frame compiles, and the time of the steps it went through so far:
    ``frame 0/0 chain (line 2) · so far: tracing bytecode 0.5s, AOTAutograd 1.0s``. A
    wrapper frame (a module's ``wrap_inline``) is named by ``target``, without its place
    in torch."""
    code = code_name(target, p.frame, p.filename) if target else p.frame
    where = locate(p.filename, p.lineno, []) if p.lineno and code == p.frame else None
    frame = f"frame {p.compile_id}" + (f" {code}" if code else "") + (
        f" ({where.where})" if where else "")
    done = [f"{name} {seconds:.1f}s" for name, seconds in p.phase_seconds.items()
            if name != p.phase and seconds >= MIN_STEP_S]
    return frame + (f" \u00b7 so far: {', '.join(done)}" if done else "")


def locate(filename: str | None, lineno: int | None,
           stack: list[SourceLine]) -> SourceLocation | None:
    """``line N`` for cell code; for a library file its short path and line, plus the cell
    line that led there (from the user stack), e.g. a break inside ``generate()``; no
    place at all when there is none (e.g. a break at the call itself)."""
    if not filename and lineno is None:
        return None
    if not filename or is_cell_file(filename) or filename.startswith("<"):
        return SourceLocation(f"line {lineno}")
    parts = filename.replace("\\", "/").split("/")
    via = cell_frame(stack)
    return SourceLocation(f"{'/'.join(parts[-3:])}:{lineno}",
                          f"reached from cell line {via.lineno}: {via.line}" if via else "")


#: Recompiles listed one by one in a summary; the rest are counted in a note.
MAX_RECOMPILE_ITEMS = 10
#: Calls under CUDA graphs explained one line each in a summary (the latest); the rest
#: are in the record (``report(x).cudagraph_calls``).
MAX_CUDAGRAPH_CALLS = 4
#: CUDA-graph hazards said in a summary (the latest); the rest are in the record.
MAX_HAZARDS = 2


def cudagraph_call_items(r: TargetRecord) -> list[SummaryItem]:
    """CUDA graphs per call (warm-up, recording, replays, pool) and per input size."""
    calls = r.cudagraph_calls
    items = [SummaryItem("note", "CUDA graphs, " + cudagraph_call_line(c))
             for c in calls[-MAX_CUDAGRAPH_CALLS:]]
    if (earlier := len(calls) - MAX_CUDAGRAPH_CALLS) > 0:
        items.insert(0, SummaryItem("note", f"CUDA graphs: {earlier} earlier calls \u2014 "
                                    f"in the kernel: nbcompile.report({r.name}).cudagraph_calls"))
    if shapes := cudagraph_shapes_line(r.cudagraph_shapes):
        items.append(SummaryItem("note", clip(shapes)))
    items += [SummaryItem("hazard", f"after cell [{h.cell}]: {h.text}" if h.cell is not None
                          else h.text) for h in r.cudagraph_hazards[-MAX_HAZARDS:]]
    return items


def _items(r: TargetRecord) -> tuple[SummaryItem, ...]:
    items = [SummaryItem("note", note) for note in r.notes]
    if r.status == "compiling" and r.progress is not None:
        items.append(SummaryItem("progress", progress_text(r.progress, r.name)))
    if cache_note := describe_cache(c.cache for c in r.compiles):
        items.append(SummaryItem("cache", cache_note))
    if cudagraphs_note := cudagraph_total(r.compiles):
        items.append(SummaryItem("note", cudagraphs_note))
    items += cudagraph_call_items(r)
    items += [SummaryItem("graph_break", gb.reason, gb.line,
                          locate(gb.filename, gb.lineno, gb.stack),
                          link=gb.doc_url, link_label=gb.gb_id)
              for gb in (b.graph_break for b in rank_breaks([r]))]  # most hit first
    items += [SummaryItem("note", text)
              for walk in target_walks(r.compiles) for _, text in break_walks(walk)]
    if r.status != "pending" and (eager := eager_text(r)):
        items.append(SummaryItem("note", eager))
    per_frame: dict[str, int] = {}
    codes = {c.compile_id: c.code for c in r.compiles if c.code}  # "": an older record
    for rc in r.recompiles[:MAX_RECOMPILE_ITEMS]:
        frame = rc.compile_id.split("/", 1)[0]
        per_frame[frame] = per_frame.get(frame, 0) + 1
        # a record saved by an older nbcompile has no ``text``: worded the same way here
        items.append(SummaryItem("recompile", clip(rc.text or recompile_text(rc)),
                                 recompile_guard(rc),
                                 compile_id=recompile_label(rc, per_frame[frame],
                                                            codes.get(rc.compile_id))))
    if (more := len(r.recompiles) - MAX_RECOMPILE_ITEMS) > 0:
        items.append(SummaryItem("note", f"{more} more recompiles \u2014 in the kernel: "
                                 f"nbcompile.report({r.name}).recompiles"))
    if r.error:
        items.append(SummaryItem("error", r.error.message, r.error.line,
                                 locate(r.error.filename, r.error.lineno, r.error.stack)))
    if r.torch_logs:
        items.append(torch_logs_item(r))
    return tuple(items)


def torch_logs_item(r: TargetRecord) -> SummaryItem:
    """torch's log records of the target's compiles, once, folded: a one-line gist and
    the full text as ``detail``, each cell file named as the notebook names the cell
    (the record keeps torch's text verbatim)."""
    n = len(r.torch_logs)
    first = next((line.strip() for line in name_cells(r.torch_logs[0].message).splitlines()
                  if line.strip()), "")
    text = (f"torch logged {n} message{'s' if n != 1 else ''} about these compiles "
            f"(kept off stderr; %%compile --torch-logs shows them there): {first}"
            + (" ..." if n > 1 or "\n" in r.torch_logs[0].message.strip() else ""))
    detail = "\n\n".join(f"{log.level} {log.logger} [{log.compile_id}]\n"
                         f"{name_cells(log.message)}" for log in r.torch_logs)
    return SummaryItem("torch_logs", text, detail=detail)


def summarize_target(record: TargetRecord, now: float) -> TargetSummary:
    counts = Counts(
        graphs=record.graph_count,
        breaks=record.graph_break_count,
        recompiles=record.recompile_count,
        kernels=record.kernel_count,
        compile_s=record.compile_time_s,
    )
    return TargetSummary(record.name, record.kind, status_text(record, now), counts,
                         _items(record))


def summarize(records: Sequence[TargetRecord], now: float | None = None) -> Summary:
    """The summary of ``records`` at time ``now`` (default: the current time)."""
    now = time.time() if now is None else now
    return Summary(tuple(summarize_target(r, now) for r in records))
