"""What CUDA-graph trees did during one call, in words: the tree's own log lines read into
events, a call's events into a ``CudagraphCall``, a target's recorded sizes into
``CudagraphShapes`` (with torch's warning limit and the remedy that fits).

Pure: no torch. ``per_call.py`` hears the lines and reads the tree's live state.
The lines are torch's (``torch/_inductor/cudagraph_trees.py``, logger ``log``, artifact
``cudagraphs``):

* ``CUDAGraphTreeManager.run_eager``: ``[0/0] Running warmup function=f, mode=INFERENCE``
  (a graph's first run: eagerly, in the graph pool) or ``[0/0] Running eager function=f``
  (a later run that stays eager: the tree is warming up another graph);
* ``record_function``: ``[0/0] Recording function=f, mode=..., cuda_graph_id=0, inputs: ...``;
* ``_run``: ``[0/0] Re-recording function=f, mode=..., reason=<CheckInvariantStatus>.``
  for each recorded graph of ``f`` whose check fails (a later one may pass and replay: a
  re-record is such a line followed by ``f``'s recording), then, per input, ``input name:
  primals_2. data pointer changed from A to B. input stack trace: <stack>``
  (``cudagraph_utils.log_data_ptr_mismatch``);
* ``cudagraphify_impl``: ``[0/0] Recording cudagraph tree for symint key (48,)`` (or ``for
  graph without symints``; torch 2.11 prints no ``[0/0]`` there): the first run of a
  compiled graph at a new size;
* ``cudagraph_utils.maybe_warning_due_to_dynamic_shape``, right after that line (a WARNING
  on ``cudagraph_utils``' logger, every torch in range): "CUDAGraph supports dynamic shapes
  by recording a new graph for each distinct input size. ... We have observed 3 distinct
  sizes. ...", once per compiled graph, when its sizes pass
  ``cudagraph_dynamic_shape_warn_limit``: torch's own word that one graph is past it.
A replay (``execute_node``) logs nothing; the reader counts it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from ...records import CudagraphCall, CudagraphRerecord, CudagraphShape, CudagraphShapes
from ...torch_compat import release_of
from ...units import format_bytes

EventKind = Literal["warmup", "eager", "record", "rerecord", "shape", "fell_back",
                    "size_warning"]

_PREFIX = r"^\s*(?:\[(?P<cid>[^\]]*)\]\s*)?"
#: Each line torch's tree manager writes, per torch version (its ``cudagraph_trees.py``):
#: 2.11 on, ``[0/0] Running warmup function=f, mode=...`` (2.13 adds ``mode=``; 2.11's
#: new-size line has no ``[0/0]``); 2.9, ``Running warmup of function 3``, ``Recording
#: function 3 of graph recording id 7``, no compile id and no re-record line. The first
#: pattern that matches tells the kind (``tests/core/notebook/cudagraphs/test_formats.py``
#: reads the installed torch's source against this table).
_PATTERNS: tuple[tuple[EventKind, re.Pattern[str]], ...] = (
    ("warmup", re.compile(_PREFIX + r"Running warmup function=(?P<fn>[^,\s]*)")),
    ("warmup", re.compile(_PREFIX + r"Running warmup of function (?P<fn>\d+)")),  # 2.9
    ("eager", re.compile(_PREFIX + r"Running eager function=(?P<fn>[^,\s]*)")),
    ("eager", re.compile(_PREFIX + r"Running eager of function (?P<fn>\d+)")),  # 2.9
    ("rerecord", re.compile(_PREFIX + r"Re-recording function=(?P<fn>[^,\s]*),"
                            r"(?:\s*mode=\w+,)?\s*reason=(?P<reason>.*)", re.S)),
    ("record", re.compile(_PREFIX + r"Recording function=(?P<fn>[^,\s]*)")),
    ("record", re.compile(_PREFIX + r"Recording function (?P<fn>\d+) of graph recording "
                          r"id \d+")),  # 2.9
    ("shape", re.compile(_PREFIX + r"[Rr]ecording cudagraph tree for (?:symint key "
                         r"(?P<key>.+?)|(?P<static>graph without symints)|(?P<old>.+?))\s*$",
                         re.S)),
    # cudagraph_utils.log_cudagraph_skip_and_bump_counter, from CUDAGraphTreeManager._run:
    # past cudagraph_unexpected_rerecord_limit; from torch 2.15 also past the
    # cudagraph-managed inputs' threshold (cudagraph_managed_input_rerecord_action="skip")
    ("fell_back", re.compile(r"^\s*skipping cudagraph due to function \S+ (?:exceeding max "
                             r"re-recording limit|reaching the cudagraph-managed input "
                             r"re-recording threshold).*", re.S)),
    # cudagraph_utils.maybe_warning_due_to_dynamic_shape: one graph past the warning limit
    ("size_warning", re.compile(r"^\s*CUDAGraph supports dynamic shapes by recording a new "
                                r"graph for each distinct input size\..*?We have observed "
                                r"(?P<sizes>\d+) distinct sizes", re.S)),
)
#: torch 2.15's threshold on re-records for cudagraph-managed inputs, in its words
_THRESHOLD = re.compile(r"reaching the cudagraph-managed input re-recording threshold "
                        r"\(=(?P<limit>\d+)\).*?for input indices (?P<idxs>\[[^\]]*\])",
                        re.S)
_INPUT = re.compile(r"input name: (?P<name>[^\s.]+(?:\.[^\s.]+)*?)\. data pointer changed "
                    r"from \S+ to \S+?\.(?: input stack trace: (?P<stack>.*?))?"
                    r"(?=\ninput name: |\Z)", re.S)
#: ``mode=CompilationMode.BACKWARD`` (torch 2.13 on) on a warm-up, recording or re-record line
_MODE = re.compile(r",\s*mode=(?:CompilationMode\.)?(?P<mode>[A-Z_]+)\b")
#: torch's reason for a re-record after the limit: ``... due to <reason>.``
_LIMIT_REASON = re.compile(r"exceeding max re-recording limit \(=(?P<limit>\d+)\).*?"
                           r" due to (?P<reason>.*)", re.S)

#: The config that sets torch's warning limit on distinct sizes, newest name first
#: (``torch._inductor.config.triton``; the reader keeps the first torch has).
WARN_LIMIT_CONFIGS = ("cudagraph_dynamic_shape_warn_limit",)
SKIP_DYNAMIC = "torch._inductor.config.triton.cudagraph_skip_dynamic_graphs = True"


@dataclass(frozen=True)
class TreeEvent:
    """One thing the tree did, from its log line."""

    kind: EventKind
    compile_id: str = ""  # ``"0/1"`` as torch printed it ("" when it printed none)
    function: str = ""
    reason: str = ""  # rerecord / fell_back: torch's text after ``reason=`` / the message
    key: str = ""  # shape: torch's symint key, ``static`` for a graph without symints
    # torch's ``CompilationMode`` on the line (``FORWARD``, ``BACKWARD``, ``INFERENCE``;
    # 2.13 on): "" when the line names none
    mode: str = ""
    sizes: int = 0  # size_warning: the distinct sizes torch counted for one graph


def parse(message: str) -> TreeEvent | None:
    """The event a tree log line tells of (None: another line)."""
    for kind, pattern in _PATTERNS:
        m = pattern.match(message)
        if m is None:
            continue
        groups = m.groupdict()
        cid = (groups.get("cid") or "").strip()
        if kind == "shape":
            key = groups.get("key") or ("static" if groups.get("static") else "")
            old = (groups.get("old") or "").strip()
            key = key or ("static" if old in ("", "None") else old)
            return TreeEvent("shape", cid, key=key.strip())
        if kind == "fell_back":
            return TreeEvent("fell_back", cid, reason=message.strip())
        if kind == "size_warning":
            return TreeEvent("size_warning", reason=message.strip(),
                             sizes=int(groups["sizes"]))
        mode = _MODE.search(message)
        return TreeEvent(kind, cid, groups.get("fn") or "",
                         reason=(groups.get("reason") or "").strip(),
                         mode=mode.group("mode") if mode else "")
    return None


def same_compile(a: str, b: str) -> bool:
    """Whether two printed compile ids are the same frame compile (``0/1`` vs ``0/1_0``)."""
    def norm(text: str) -> str:
        return re.sub(r"_\d+$", "", text.strip().strip("[]").lstrip("!"))
    return bool(a) and bool(b) and norm(a) == norm(b)


def rerecord_of(event: TreeEvent) -> CudagraphRerecord:
    """A re-record in torch's words: its ``CheckInvariantStatus`` and the inputs whose
    data pointer changed, with the user's line torch gave for the first."""
    text = event.reason
    if event.kind == "fell_back" and (m := _LIMIT_REASON.search(text)):
        text = m.group("reason")
    head = text.split("\n", 1)[0].strip().rstrip(".")
    inputs: list[str] = []
    line = ""
    for m in _INPUT.finditer(text):
        inputs.append(m.group("name"))
        if not line and m.group("stack"):
            line = _last_source_line(m.group("stack"))
    return CudagraphRerecord(event.compile_id, head, inputs, line)


def _last_source_line(stack: str) -> str:
    """The innermost source line of a printed stack (the line under its last ``File``)."""
    lines = [ln.strip() for ln in stack.strip().splitlines() if ln.strip()]
    source = [ln for ln in lines if not ln.startswith(("File ", "None"))]
    return source[-1] if source else ""


def call_value(number: int, cell: int | None, events: Iterable[TreeEvent], replays: int,
               pool: tuple[int | None, int | None, str] = (None, None, ""),
               backward: bool = False) -> CudagraphCall:
    """One call from the tree's events during it and the replays counted; ``backward``:
    the graph runs torch made after call ``number`` ended, outside any call of the target
    (``loss.backward()`` runs the compiled backward graphs), whose replays are not counted."""
    result = CudagraphCall(number, cell, replays=replays, backward=backward)
    result.pool_before, result.pool_after, result.pool_source = pool
    # torch logs ``Re-recording`` for each recorded graph of the function whose check
    # fails (``CUDAGraphTreeManager._run``), before a later one may pass and replay: a
    # failed check is a re-record only when torch then records
    # by function, as torch names it: its compile and ``get_func_name`` (the graph
    # module's name, ``partition_0`` in every compile: the compile tells them apart)
    failed: dict[tuple[str, str], TreeEvent] = {}  # its latest failed check
    for event in events:
        if event.kind in ("warmup", "record") and event.compile_id:
            # torch 2.11 names no compile on a new size's line; the run it starts names
            # it (the size is recorded just before that graph's first run)
            for shape in result.new_shapes:
                shape.compile_id = shape.compile_id or event.compile_id
        if event.kind == "warmup":
            result.warmups += 1
        elif event.kind == "eager":
            result.eager += 1
        elif event.kind == "record":
            result.recordings += 1
            if (check := failed.pop((event.compile_id, event.function), None)) is not None:
                result.rerecords.append(rerecord_of(check))
        elif event.kind == "rerecord":
            failed[(event.compile_id, event.function)] = event
        elif event.kind == "shape":
            result.new_shapes.append(CudagraphShape(event.compile_id, event.key, cell))
        elif event.kind == "fell_back" and not result.fell_back:
            result.fell_back = event.reason
    if not (result.warmups or result.recordings):
        # torch names a new size before it checks the graph (a mutated input then skips
        # CUDA graphs at that first run): a size counts once the call warmed it up
        result.new_shapes = []
    result.what = what_happened(result)
    if backward:
        after = f"after call {number}" if number > 0 else "after a call not numbered"
        result.what = (f"backward pass ({after}, outside the call; its replays are not "
                       f"counted): {result.what}")
    return result


#: Said of each target under the tree when a graph run came outside any call and torch's
#: line named no compile (torch 2.9): which function's backward pass it was is not known.
UNATTRIBUTED = ("CUDA graphs outside a call: graph runs with no target's call running (a "
                "backward pass, loss.backward(), or another compiled function) were heard "
                "and not counted; torch's tree lines name no compile on this torch (2.9), "
                "so whose they are is not known")


#: Said of a target whose call recorded again while torch's trees wait for a backward
#: (``running_forwards_with_pending_backwards``) and torch warned that it cannot hit the
#: fast path (``check_warn_on_unable_to_start_executing``, a ``warnings.warn``).
PENDING_BACKWARD = (
    "CUDA graphs record again at each call: the outputs of an earlier forward still "
    "require backward and no backward ran, so torch's trees start no new generation and "
    "record a new graph per call (the pool grows); torch warned \"Unable to hit fast path "
    "of CUDAGraphs because outputs from a previous step still require backward\". For "
    "evaluation, call the model under torch.no_grad() or torch.inference_mode(); in "
    "training, run backward() each step (or detach the outputs), or call "
    "torch.compiler.cudagraph_mark_step_begin() before each call, as torch advises.")


#: The first torch whose tree manager logs ``Re-recording ... reason=`` (``_run``); before
#: it a re-record reads as a recording, with no reason.
RERECORD_LINE_SINCE = (2, 11)


def rerecords_unknown(call: CudagraphCall, recorded_before: bool, version: str) -> CudagraphCall:
    """``call`` with its words saying a re-record is not known, on a torch that logs no
    ``Re-recording`` line, for a recording of a target that recorded before (it may be
    the same graph recorded again, or a new path or size)."""
    found = release_of(version)
    if not (call.recordings and recorded_before and found is not None
            and found < RERECORD_LINE_SINCE):
        return call
    call.what += (f"; whether a graph was recorded again is not known on torch "
                  f"{found[0]}.{found[1]} (it logs no Re-recording line)")
    return call


def anything_done(call: CudagraphCall) -> bool:
    """Whether the call's record says torch did anything (a failed check alone is not)."""
    return bool(call.warmups or call.recordings or call.replays or call.eager
                or call.rerecords or call.fell_back or call.new_shapes)


def replay_only(call: CudagraphCall) -> bool:
    """Whether the call only replayed recorded graphs (the steady state)."""
    return call.replays > 0 and not (call.warmups or call.recordings or call.eager
                                     or call.rerecords or call.fell_back)


def skip_dynamic_effect(partitioned: bool | None) -> str:
    """What ``cudagraph_skip_dynamic_graphs`` then does on the running torch: with graph
    partitioning (Inductor's ``graph_partition``) its scheduler moves only the ops that use
    a dynamic size out of the CUDA graphs ("dynamic shape ops"); without it, compile_fx
    runs the whole dynamic graph without CUDA graphs."""
    if partitioned is None:
        return ("what torch then runs without CUDA graphs depends on Inductor's "
                "graph_partition, which this torch does not have")
    if partitioned:
        return ("graph partitioning is on: only the ops that use a dynamic size then run "
                "outside the CUDA graphs")
    return "dynamic graphs then run without CUDA graphs"


def shapes_value(shapes: Sequence[CudagraphShape], warn_limit: int | None,
                 config: str, size_recompiles: int = 0,
                 partitioned: bool | None = False, torch_warned: int = 0) -> CudagraphShapes:
    """A target's recorded sizes, torch's limit and the remedy that fits, only on
    evidence: several ``static`` graphs and a compile torch made for a changed tensor
    size (``size_recompiles``; static graphs also come from graph breaks, forward and
    backward, dtype or train/eval recompiles) -> ``mark_dynamic``; several sizes of one
    dynamic graph -> buckets or ``cudagraph_skip_dynamic_graphs`` (its effect worded for
    ``partitioned``: Inductor's ``graph_partition`` in force). torch counts sizes per
    compiled graph (``cudagraphify_impl``'s cache): "past torch's limit" where torch
    warned so in the target's calls (``torch_warned``: the distinct sizes it counted for
    that graph; 0: no warning heard), or where the lines named the graph's compile (torch
    2.11's size line names none: the run after it does, ``call_value``). Where no line
    named a compile (torch 2.9), the sizes of the target's graphs cannot be told apart:
    what is known is said (``unnamed_sizes``), never a merged count taken for one graph."""
    result = CudagraphShapes(list(shapes), warn_limit, config)
    static = [s for s in shapes if s.key == "static"]
    per_compile: dict[str, set[str]] = {}
    for s in shapes:
        if s.key != "static":
            per_compile.setdefault(s.compile_id, set()).add(s.key)
    named = max((len(keys) for cid, keys in per_compile.items() if cid), default=0)
    dynamic = max((len(keys) for keys in per_compile.values()), default=0)
    unnamed = len(per_compile.get("", ()))
    if len(static) > 1 and size_recompiles:
        result.remedy = (f"each new input size compiled again ({len(static)} graphs recorded, "
                         f"{size_recompiles} recompile{'s' if size_recompiles > 1 else ''} for "
                         "a changed size): torch._dynamo.mark_dynamic(x, dim) on the input "
                         "whose size varies compiles one graph for all sizes (still one "
                         "recording per size), or pad inputs to a few fixed sizes (buckets)")
    elif dynamic > 1 or torch_warned:
        of = f" of {warn_limit}" if warn_limit is not None else ""
        if torch_warned:
            past = (f", past torch's limit{of} (torch warned: {torch_warned} distinct sizes "
                    "of one graph)")
        elif warn_limit is not None and named > warn_limit:
            past = f", past torch's limit{of}"
        else:
            past = ""
        result.remedy = ("each distinct size records its own CUDA graph (a warm-up and a "
                         "recording call, more pool memory)" + past
                         + f": pad inputs to a few fixed sizes (buckets), or {SKIP_DYNAMIC} "
                         f"({skip_dynamic_effect(partitioned)})")
        if unnamed > 1 and not torch_warned:
            result.remedy += "; " + unnamed_sizes(unnamed, warn_limit)
    return result


def unnamed_sizes(count: int, warn_limit: int | None) -> str:
    """What is known of ``count`` sizes whose lines named no compile (torch 2.9's
    ``recording cudagraph tree for symint key ...``): they are this target's, which of its
    graphs each is for is not; torch counts its limit per graph and warns past it (heard:
    none heard is none past)."""
    text = (f"torch's size lines named no compile, so which of this target's graphs each of "
            f"these {count} sizes is for is not known (torch counts sizes per graph)")
    if warn_limit is None:
        return text
    if count <= warn_limit:
        return text + f"; {count} in all is within torch's limit of {warn_limit} per graph"
    return text + (f"; torch warned of no graph past its limit of {warn_limit} (its warning "
                   "names the sizes of one graph)")


def shapes_line(shapes: CudagraphShapes | None) -> str | None:
    """``CUDA graphs per input size: 4 sizes recorded (torch warns past 8, ...)``."""
    if shapes is None or not shapes.shapes:
        return None
    n = len(shapes.shapes)
    where = ", ".join(f"{s.key}" + (f" in cell [{s.cell}]" if s.cell is not None else "")
                      for s in shapes.shapes[:6])
    more = f", {n - 6} more" if n > 6 else ""
    text = f"CUDA graphs per input size: {n} recorded ({where}{more})"
    if shapes.warn_limit is not None and shapes.warn_limit_config:
        text += (f"; torch warns past {shapes.warn_limit} "
                 f"(torch._inductor.config.triton.{shapes.warn_limit_config})")
    if shapes.remedy:
        text += f"; {shapes.remedy}"
    return text


Bytes = Callable[[int], str]


def what_happened(call: CudagraphCall) -> str:
    """What torch's tree manager did in one call, in words (the record's ``what``):
    ``warmed up 1 graph (a graph's first run is eager, in the graph pool: a slow call)``."""
    parts: list[str] = []
    if call.warmups:
        parts.append(f"warmed up {_graphs(call.warmups)} (a graph's first run is eager, "
                     "in the graph pool: a slow call)")
    first = call.recordings - len(call.rerecords)  # a re-record is one of the recordings
    if first > 0:
        parts.append(f"recorded {_graphs(first)} (capture: a slow call)")
    for r in call.rerecords:
        named = f" ({', '.join(r.inputs)}" + (f": {r.line}" if r.line else "") + ")" \
            if r.inputs else ""
        parts.append(f"recorded again: {r.reason}{named}")
    if call.replays:
        parts.append(f"replayed {_graphs(call.replays)}")
    if call.eager:
        parts.append(f"ran {_graphs(call.eager)} eagerly")
    if call.fell_back and (m := _THRESHOLD.search(call.fell_back)):
        parts.append("fell back to eager: torch re-recorded past "
                     f"cudagraph_managed_input_rerecord_limit (={m.group('limit')}) for the "
                     f"cudagraph-managed inputs {m.group('idxs')} "
                     "(cudagraph_managed_input_rerecord_action='skip')")
    elif call.fell_back:
        reason = rerecord_of(TreeEvent("fell_back", reason=call.fell_back))
        parts.append("fell back to eager for good: torch re-recorded past "
                     f"cudagraph_unexpected_rerecord_limit ({reason.reason})")
    if call.new_shapes:
        parts.append("new size " + ", ".join(s.key for s in call.new_shapes))
    return "; ".join(parts) or "no graph run under CUDA graphs"


def call_line(call: CudagraphCall, size: Bytes = format_bytes) -> str:
    """One call in words, its ``what`` after its number and cell: ``call 1 (cell [4]):
    warmed up 1 graph (...); graph pool 0 B -> 1.0 MiB``."""
    where = f" (cell [{call.cell}])" if call.cell is not None else ""
    label = f"call {call.call}" if call.call > 0 else "a call not numbered"  # 0: not watched
    if call.backward:
        label = "the backward pass"  # its ``what`` says after which call
    text = f"{label}{where}: {call.what or what_happened(call)}"
    if call.pool_before is not None and call.pool_after is not None:
        text += f"; graph pool {size(call.pool_before)} -> {size(call.pool_after)}"
    return text


def _graphs(n: int) -> str:
    return f"{n} graph" if n == 1 else f"{n} graphs"
