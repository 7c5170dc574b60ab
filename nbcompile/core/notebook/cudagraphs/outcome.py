"""What became of CUDA graphs for a compile, read from torch's own record.

Inductor decides per compiled graph (``compile_fx.py``, ``output_code.py``,
``cudagraph_utils.py``, ``cudagraph_trees.py``):

* a graph with no CUDA device (on a CPU, say) is never captured: torch bumps
  ``counters["inductor"]["cudagraph_skips"]`` and logs nothing (its reason, ``cpu device``,
  stays on the compiled graph) -> ``not_used``, with the device read from the graph;
* a graph it cannot capture: ``log_cudagraph_skip_and_bump_counter`` logs "skipping
  cudagraphs due to <reason>. Found from : <user stack>" on the ``cudagraphs`` artifact
  logger, at the compile or at the graph's first run (mutated inputs under CUDA-graph
  trees), and later for a graph re-recorded past ``cudagraph_unexpected_rerecord_limit``
  ("skipping cudagraph due to function N exceeding max re-recording limit ...") ->
  ``skipped``, with torch's reason and the user's line it names;
* otherwise the graph is wrapped to be recorded at a later call -> ``recorded``; with
  graph partitioning, what CUDA graphs cannot capture (a CPU op, say) is split off and
  runs outside them, said only at DEBUG (``partitions.py``): ``recorded`` with
  those nodes, or ``skipped`` when no partition is left to record.
Other messages on that logger (the warning about too many distinct input sizes) are
kept verbatim and change no status.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from ... import torch_compat
from ...records import CompileRecord, CudagraphOutcome, CudagraphPartitions, SourceLine
from ...trace.payloads import FRAME_LINE, printed_lines, source_line
from ..cells import cell_names
from ..targets.options import CompileOptions

if TYPE_CHECKING:
    from ..targets.target_state import Target

#: How torch's skip messages begin (``format_default_skip_message``, the re-record limit,
#: ``disabling cudagraphs due to incompatible op``); a reason may repeat the prefix
#: (``output_code.py`` wraps a reason that already carries it).
SKIP_PREFIXES = ("skipping cudagraphs due to ", "skipping cudagraph due to ",
                 "disabling cudagraphs due to ", "disabling cudagraphs for ")
#: Where torch's reason ends and the user's stack begins: ``. Found from : \n`` (mutated
#: inputs, cpu device), ``. Found from:\n`` (input storage mutation), `` Found from ``
#: (incompatible op, dynamic shapes).
_FOUND_FROM = re.compile(r"\.?\s*Found from\s*:?\s*", re.S)
#: A tensor's type in a readable FX graph: ``"f32[6][1]cpu"``, ``"bf16[64, 8][8, 1]cuda:0"``.
_GRAPH_DEVICE = re.compile(r'"[a-z]+\d*\[[^\]"]*\]\[[^\]"]*\](?P<device>[a-z]+)(?::\d+)?"')
#: Said when torch counted a skip, logged no reason, and the graph has a CUDA device.
NO_REASON = ("torch counted a CUDA-graph skip (counters['inductor']['cudagraph_skips']) "
             "and logged no reason")

CellOf = Callable[[str], "int | None"]


def mode_asks_for(mode: str) -> bool:
    """Whether Inductor's ``mode`` turns CUDA graphs on: ``triton.cudagraphs`` in its
    settings as torch lists them (``reduce-overhead``, ``max-autotune``), else Inductor's
    global ``config.triton.cudagraphs`` (a mode that does not set it leaves that)."""
    value = torch_compat.mode_options(mode).get("triton.cudagraphs")
    return value is True if value is not None else global_cudagraphs()


def global_cudagraphs() -> bool:
    """Inductor's own ``config.triton.cudagraphs`` in force (set by the user for every
    compile that does not say otherwise)."""
    return getattr(torch_compat.inductor_triton_config(), "cudagraphs", False) is True


#: Said of a target on torch's non-tree path (``config.triton.cudagraph_trees = False``).
NON_TREE = ("CUDA graphs on torch's non-tree path (torch._inductor.config.triton."
            "cudagraph_trees = False): torch captures each graph at its first call and logs "
            "nothing per call, so its warm-ups, recordings and replays are not known here, "
            "nor the graphs' memory (the per-call view and %compare's pool bytes need "
            "CUDA-graph trees, torch's default)")


def trees_on(options: CompileOptions) -> bool:
    """Whether Inductor runs ``options``' CUDA graphs as CUDA-graph trees:
    ``triton.cudagraph_trees`` given, else Inductor's global config (its default, True);
    False: its non-tree path (``compile_fx``'s ``cudagraphify_impl``), which logs nothing."""
    if "triton.cudagraph_trees" in options.options:
        return options.options["triton.cudagraph_trees"] is not False
    return getattr(torch_compat.inductor_triton_config(), "cudagraph_trees", True) is not False


def asked_for(options: CompileOptions) -> bool:
    """Whether ``options`` ask Inductor for CUDA graphs, as Inductor decides:
    ``triton.cudagraphs`` given, else their mode (``mode_asks_for``), else the global
    config (read when a compile starts, as Inductor reads it)."""
    if options.backend != "inductor":
        return False
    if "triton.cudagraphs" in options.options:
        return options.options["triton.cudagraphs"] is True
    return mode_asks_for(options.mode) if options.mode else global_cudagraphs()


def is_skip(message: str) -> bool:
    """Whether ``message`` is one of torch's skip messages."""
    return message.lstrip().startswith(SKIP_PREFIXES)


def reason_of(message: str) -> str:
    """torch's reason in a skip message, without its prefixes and the user's stack."""
    text = message.strip()
    while text.startswith(SKIP_PREFIXES):
        text = next(text[len(p):] for p in SKIP_PREFIXES if text.startswith(p)).lstrip()
    reason = _FOUND_FROM.split(text, maxsplit=1)[0].strip()
    return reason.split("\n", 1)[0].strip().rstrip(".")  # details on later lines


def user_line(message: str) -> SourceLine | None:
    """The innermost frame of the stack torch printed after ``Found from`` (None: none)."""
    parts = _FOUND_FROM.split(message, maxsplit=1)
    return stack_line(parts[1]) if len(parts) == 2 else None


def stack_line(stack: str) -> SourceLine | None:
    """The innermost frame of a stack torch printed (``File "...", line N, in f`` then
    its code), with the source as it is now, else as printed (None: no frame)."""
    printed = printed_lines(stack)
    last: SourceLine | None = None
    for raw in stack.splitlines():
        m = FRAME_LINE.match(raw)
        if m:
            filename, lineno = m.group("file"), int(m.group("line"))
            logged = printed.get((filename, lineno), "")
            # the source as it is now, else the line torch printed (a file since gone)
            text = source_line(filename, lineno, logged) or logged.strip()
            last = SourceLine(filename, lineno, text)
    return last


def graph_device(graphs: Iterable[str], kernel_languages: Iterable[str] = ()) -> str | None:
    """The device of a compile's graph, from the tensor types torch printed in its FX
    ``graphs`` (``cuda`` when any tensor is on CUDA), else from its kernels' languages
    (C++ -> cpu, Triton -> cuda); None: neither says."""
    devices = {m.group("device") for text in graphs for m in _GRAPH_DEVICE.finditer(text)}
    if "cuda" in devices:
        return "cuda"
    if devices:
        return "cpu" if "cpu" in devices else sorted(devices)[0]
    languages = set(kernel_languages)
    if "triton" in languages:
        return "cuda"
    return "cpu" if "cpp" in languages else None


def outcome(messages: Iterable[str], *, counted: bool, requested: bool,
            device: str | None, cell_of: CellOf = cell_names.cell_number,
            partitions: CudagraphPartitions | None = None) -> CudagraphOutcome | None:
    """A compile's outcome from torch's ``messages``, whether torch's skip counter rose
    during it (``counted``), whether CUDA graphs were asked for, the graph's device and
    the graph partitions torch reported. None: nothing was asked for and torch said and
    counted nothing."""
    result: CudagraphOutcome | None = None
    if counted and device != "cuda":
        reason = f"{device} device" if device else "no CUDA device"
        result = CudagraphOutcome("not_used", reason)
    elif requested or counted:
        result = CudagraphOutcome("recorded")
    for message in messages:
        result = with_message(result, message, cell_of)
    if result is not None and result.status == "recorded" and counted and not any(
            is_skip(m) for m in result.messages):
        result.status, result.reason = "skipped", NO_REASON
    if result is not None and partitions is not None:
        result.partitions = partitions
        if result.status == "recorded" and partitions.partitions and \
                not partitions.cudagraphable:
            result.status = "skipped"
            result.reason = ("no graph partition can run as a CUDA graph ("
                             + ", ".join(_partition_reasons(partitions)) + ")")
            first = next((n for n in partitions.outside if n.line is not None), None)
            if first is not None:
                result.line, result.cell = first.line, first.cell
    if result is not None:
        result.text = describe(result)
    return result


def _partition_reasons(partitions: CudagraphPartitions) -> list[str]:
    """torch's reasons for the nodes it kept out of CUDA graphs, each once, in order."""
    return list(dict.fromkeys(n.reason for n in partitions.outside)) or ["torch gave none"]


def of_compile(record: CompileRecord, messages: Iterable[str], counted: bool,
               owners: Sequence[Target], partitions: CudagraphPartitions | None = None
               ) -> CudagraphOutcome | None:
    """The outcome of a finished compile of ``owners`` (asked for by their options; a
    compile with no graph, restarted or failed, has nothing to record)."""
    asked = bool(record.graphs) and record.status == "ok" and any(
        asked_for(t.options) for t in owners)
    device = graph_device([*record.graphs, *record.post_grad_graphs],
                          (k.language for k in record.kernels))
    result = outcome(messages, counted=counted, requested=asked, device=device,
                     cell_of=cells_of(owners), partitions=partitions)
    if result is not None and result.partitions is None and device == "cuda":
        if record.cache.get("fx_graph_cache_hit", 0) > 0:
            result.partitions_unknown = "served from the FX-graph cache"
        elif not torch_compat.scheduler_logs_partitions():
            result.partitions_unknown = (f"not reported by torch "
                                         f"{torch_compat.torch_release()}")
        result.text = describe(result)
    return result


def cells_of(targets: Sequence[Target]) -> CellOf:
    """A filename's cell execution count: the targets' defining cells, else IPython's."""
    cells = {t.cell.filename: t.cell.execution_count for t in targets if t.cell.filename}
    return lambda filename: cells.get(filename) or cell_names.cell_number(filename)


def is_new(current: CudagraphOutcome | None, message: str) -> bool:
    """Whether ``message`` is not yet among ``current``'s."""
    return current is None or message not in current.messages


def with_message(current: CudagraphOutcome | None, message: str,
                 cell_of: CellOf = cell_names.cell_number) -> CudagraphOutcome:
    """``current`` after torch logged ``message`` about the compile (at the compile or at
    a later call): its first skip sets the status, reason and line; every message is kept."""
    result = current if current is not None else CudagraphOutcome("recorded")
    if message not in result.messages:
        result.messages.append(message)
    if is_skip(message) and result.status != "skipped":
        result.status, result.reason = "skipped", reason_of(message)
        result.line = user_line(message)
        result.cell = cell_of(result.line.filename) if result.line is not None else None
    result.text = describe(result)
    return result


def describe(o: CudagraphOutcome) -> str:
    """One compile's outcome in words (the inspector's Compiles column): ``recorded``,
    ``recorded; 1 of 2 graph partitions outside: cpu ops (cell [5], line 4: b = y * 2)``,
    ``recorded; graph partitions not known (served from the FX-graph cache)``,
    ``skipped: <torch's reason> (cell [5], line 3: x.add_(1))``, ``not used: cpu device``."""
    if o.status == "not_used":
        return f"not used: {o.reason}"
    if o.status == "skipped":
        return f"skipped: {o.reason}{_where(o.line, o.cell)}"
    p = o.partitions
    if p is not None and p.outside:
        node = p.outside[0]
        return (f"recorded; {p.partitions - p.cudagraphable} of {p.partitions} graph "
                f"partitions outside: {node.reason}{_where(node.line, node.cell)}")
    if p is None and o.partitions_unknown:
        return f"recorded; graph partitions not known ({o.partitions_unknown})"
    return "recorded"


def total(compiles: Sequence[CompileRecord]) -> str | None:
    """The one-line total of a target's compiles: ``CUDA graphs: 3 of 4 graphs run as
    CUDA graphs`` (with the first skip's reason and line), ``CUDA graphs: not used on
    cpu``; None when no compile has an outcome."""
    outcomes = [c.cudagraphs for c in compiles if c.cudagraphs is not None]
    if not outcomes:
        return None
    used = [o for o in outcomes if o.status != "not_used"]
    if not used:
        devices = sorted({o.reason.removesuffix(" device") for o in outcomes})
        return f"CUDA graphs: not used on {', '.join(devices)} (torch: {outcomes[0].reason})"
    n = len(used)
    k = sum(o.status == "recorded" for o in used)
    text = (f"CUDA graphs: {k} of {n} graph runs as a CUDA graph" if n == 1
            else f"CUDA graphs: {k} of {n} graphs run as CUDA graphs")
    if skipped := next((o for o in used if o.status == "skipped"), None):
        text += f"; skipped: {skipped.reason}{_where(skipped.line, skipped.cell)}"
    split = [o.partitions for o in used if o.status == "recorded" and o.partitions
             and o.partitions.outside]
    if split:
        parts = sum(p.partitions for p in split)
        outside = parts - sum(p.cudagraphable for p in split)
        node = split[0].outside[0]
        text += (f"; {outside} of {parts} graph partitions "
                 + ("runs" if outside == 1 else "run")
                 + f" outside them: {node.reason}{_where(node.line, node.cell)}")
    cached = [c for c in compiles if c.cudagraphs is not None
              and c.cudagraphs.status == "recorded" and c.cudagraphs.partitions is None
              and c.cache.get("fx_graph_cache_hit", 0) > 0]
    if cached:
        text += (f"; graph partitions not known for {len(cached)} of them (served from the "
                 "FX-graph cache: Inductor's scheduler did not run, so torch said nothing "
                 "of ops kept outside CUDA graphs)")
    if len(used) < len(outcomes):
        text += f"; {len(outcomes) - len(used)} not used (no CUDA device)"
    return text


def _where(line: SourceLine | None, cell: int | None) -> str:
    """`` (cell [5], line 4: b = y * 2)`` for a user's line; empty without one."""
    if line is None:
        return ""
    where = (f" (cell [{cell}], line {line.lineno}" if cell is not None
             else f" (line {line.lineno}")
    return where + (f": {line.line})" if line.line else ")")
