"""Where a target's compile seconds go: one ``FrameTime`` per frame compile (seconds,
phases, each cache layer's outcome and, for a frame compiled before, what differed in the
cache key), the seconds spent in recompiles, and blocks traced again and again.

Built from torch's structured-trace events (the same builder as live capture), so it
serves a fresh child process's events and the kernel's own alike.
"""

from __future__ import annotations

import inspect
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..frames import cell_key
from ..records import CompileRecord
from ..trace.builder import CompileBuilder
from ..trace.compile_id import CompileId
from ..trace.listener import StringTable, TraceEvent
from .cache_keys import Lookup, cache_note, key_changes, layer_of, read_lookup
from .earlier import SavedFrame, cut_lookup, iso, match, portable_graphs
from .record import EarlierCompile, FrameTime, KeyChange, RepeatedBlock, Where

#: Phases whose seconds belong to Dynamo, and to Inductor (``core/trace/phases.py``).
DYNAMO_PHASES = ("Dynamo tracing",)
INDUCTOR_PHASES = ("Inductor passes", "Inductor lowering", "code generation",
                   "C++/Triton compile")
_FILE = re.compile(r"# File: (?P<file>.+?):(?P<line>\d+) in ")

Event = tuple[dict[str, Any], str]


@dataclass(frozen=True)
class Candidate:
    """Identical sibling modules found in the module tree."""

    path: str  # attribute path from the root (``blocks``, ``transformer.h``)
    cls: type
    count: int
    filename: str  # where the class's forward is defined
    lines: range  # its forward's lines


def _structure(module: Any) -> tuple[Any, ...]:
    return tuple((name, tuple(p.shape), p.dtype) for name, p in module.named_parameters())


def repeated_blocks(root: Any) -> list[Candidate]:
    """Containers (``nn.ModuleList``, ``nn.Sequential``...) of two or more children of one
    class with the same structure (parameter names, shapes and dtypes), outermost first;
    only classes whose ``forward`` is Python source of their own."""
    import torch

    if not isinstance(root, torch.nn.Module):
        return []
    found: list[Candidate] = []
    taken: list[str] = []
    for path, module in root.named_modules():
        if any(path.startswith(t + ".") for t in taken):
            continue
        children = list(module.children())
        if len(children) < 2:
            continue
        classes = {type(c) for c in children}
        if len(classes) != 1:
            continue
        cls = classes.pop()
        if cls.__module__.startswith("torch.nn") or len({_structure(c) for c in children}) != 1:
            continue
        try:
            code = cls.forward.__code__
            source, first = inspect.getsourcelines(cls.forward)
        except (AttributeError, OSError, TypeError):
            continue
        found.append(Candidate(path, cls, len(children), code.co_filename,
                               range(first, first + len(source))))
        taken.append(path)
    return found


Compiled = tuple[CompileRecord, list[Lookup]]


def records_from_events(events: Iterable[Event]) -> list[Compiled]:
    """The compiles the events describe, in order, each with its cache lookups (the
    artifacts logged before its ``compilation_metrics``; compile ids repeat after
    ``torch.compiler.reset()``, so lookups go to the compile open at the time)."""
    strings = StringTable()
    builder = CompileBuilder(strings)
    finished: list[Compiled] = []
    pending: dict[tuple[int, int], list[Lookup]] = {}
    for metadata, payload in events:
        if "str" in metadata:
            strings.add(metadata)
            continue
        event = TraceEvent.from_metadata(metadata, payload)
        if event is None:
            continue
        name = event.artifact_name
        if name and layer_of(name):
            lookup = read_lookup(name, payload)
            key = event.frame or _key_of(payload)
            if lookup is not None and key is not None:
                pending.setdefault(key, []).append(lookup)
            continue
        fed = builder.feed(event)
        if fed.finished is not None:
            finished.append((fed.finished, pending.pop(fed.key, []) if fed.key else []))
    return finished


def _key_of(payload: str) -> tuple[int, int] | None:
    m = re.search(r'"compile_id":\s*"([^"]+)"', payload or "")
    cid = CompileId.parse(m.group(1)) if m else None
    return cid.key if cid else None


def _frame(record: CompileRecord) -> tuple[str, str, int]:
    return (record.frame, record.filename, record.firstlineno)


def _changes(before: Sequence[Lookup], mine: Sequence[Lookup], old_graphs: Sequence[str],
             graphs: Sequence[str]) -> tuple[list[KeyChange], bool | None]:
    """The key components that differ from an earlier compile's lookups (a layer that
    missed or bypassed, compared where both list components), the graph's changed lines
    named; and whether every compared layer's components were equal (``None``: none
    compared)."""
    changes: list[KeyChange] = []
    compared, differ_any = 0, False
    for lookup in mine:
        old = next((b for b in before if b.outcome.layer == lookup.outcome.layer
                    and b.components), None)
        if old is None or not lookup.components:
            continue
        compared += 1
        differ = key_changes(lookup.outcome.layer, old.components, lookup.components)
        differ_any = differ_any or bool(differ)
        if lookup.outcome.outcome != "hit":
            changes += differ
    lines = changed_lines(old_graphs, graphs)
    for change in changes:
        if change.kind == "graph" and lines:
            change.words = "the graph differs at " + "; ".join(lines[:3]) + (
                f" (and {len(lines) - 3} more lines)" if len(lines) > 3 else "")
    return changes, (None if not compared else not differ_any)


def _earlier(saved: SavedFrame, record: CompileRecord, mine: list[Lookup]
             ) -> tuple[EarlierCompile, list[KeyChange]]:
    """This compile compared with an earlier kernel's compile of the frame."""
    changes, same = _changes(saved.lookups, [cut_lookup(lk) for lk in mine],
                             portable_graphs(saved.graphs),
                             portable_graphs(record.graphs))
    same_cell = cell_key(saved.filename) == cell_key(record.filename)
    stamp = iso(saved.saved_at).replace("T", " ").replace("+00:00", " UTC")
    head = (f"compiled in an earlier kernel of this notebook (saved {stamp}"
            + ("" if same_cell else ", from a cell whose text has changed since") + ")")
    if changes:
        words = head + ": " + "; ".join(c.words for c in changes[:4]) + (
            f" (and {len(changes) - 4} more)" if len(changes) > 4 else "")
    elif same is None:
        words = head + ": torch gave no cache-key components to compare"
    elif same:
        words = head + ": the cache keys were equal"
    else:
        words = head
    return EarlierCompile(saved_at=iso(saved.saved_at), compile_id=saved.compile_id,
                          same_cell=same_cell, same_key=same, words=words), changes


def where(compiles: Sequence[Compiled], root: Any = None,
          history: Sequence[Compiled] = (), earlier: Sequence[SavedFrame] = ()) -> Where:
    """The split of ``compiles``' seconds (each with its cache lookups). ``root``: the
    module whose repeated blocks to look for; ``history``: earlier compiles to compare
    cache keys with (e.g. another process's, or this kernel's); a frame compiled twice
    within ``compiles`` is compared with its previous compile too; ``earlier``: frames an
    earlier kernel of this notebook saved, compared with a frame compiled for the first
    time here."""
    seen: dict[tuple[str, str, int], Compiled] = {}
    for record, found in history:
        seen[_frame(record)] = (record, found)
    result = Where()
    phases: Counter[str] = Counter()
    caches: Counter[str] = Counter()
    for record, mine in compiles:
        cid = CompileId.parse(record.compile_id)
        seconds = float(record.times.get("entire_frame_compile_time_s")
                        or record.times.get("total_s") or 0.0)
        recompile = bool(cid and cid.frame_compile_id > 0)
        previous = seen.get(_frame(record))
        before = previous[1] if previous else None
        changes: list[KeyChange] = []
        then: EarlierCompile | None = None
        if previous is not None and before is not None:
            changes = _changes(before, mine, previous[0].graphs, record.graphs)[0]
        elif earlier and (saved := match(earlier, record)) is not None:
            then, changes = _earlier(saved, record, mine)
        note = cache_note([lookup.outcome for lookup in mine], changes,
                          before is not None or then is not None)
        frame = FrameTime(
            compile_id=record.compile_id, frame=record.frame, filename=record.filename,
            lineno=record.firstlineno, seconds=round(seconds, 4), phases=dict(record.phases),
            graph_op_count=record.graph_op_count, recompile=recompile,
            recompile_reason=record.recompile_reason,
            caches=[lookup.outcome for lookup in mine], key_changes=changes,
            cache_note=(then.words + "; " + note) if then is not None else note,
            earlier=then)
        result.frames.append(frame)
        result.total_s += seconds
        if recompile:
            result.recompile_s += seconds
        phases.update(record.phases)
        caches.update(f"{o.layer} {o.outcome}" for o in frame.caches)
        if mine:
            seen[_frame(record)] = (record, mine)
    result.total_s = round(result.total_s, 4)
    result.recompile_s = round(result.recompile_s, 4)
    result.phases = {k: round(v, 4) for k, v in phases.items()}
    result.caches = dict(caches)
    if root is not None:
        result.repeated = repeated([r for r, _ in compiles], repeated_blocks(root),
                                   result.phases)
    return result


_GRAPH_LINE = re.compile(r"# File: (?P<file>.+?):(?P<line>\d+) in [^,]*, code: (?P<code>.*)")
_NODE = re.compile(r"^\s*\w+(?:: \"[^\"]*\")? = (?P<op>.*?)(?:;\s+[\w, ]+= None)?$")


def _ops_by_line(graphs: Sequence[str]) -> dict[tuple[str, int], tuple[str, list[str]]]:
    """Each source line of the Dynamo graphs -> (its code, the ops traced from it)."""
    found: dict[tuple[str, int], tuple[str, list[str]]] = {}
    current: tuple[str, int] | None = None
    for graph in graphs:
        for text in graph.splitlines():
            m = _GRAPH_LINE.search(text)
            if m:
                current = (m.group("file"), int(m.group("line")))
                found.setdefault(current, (m.group("code").strip(), []))
                continue
            node = _NODE.match(text)
            if node and current is not None:
                op = re.sub(r"\b[a-z_]\w*_\d*\b", "v", node.group("op"))  # names vary
                found[current][1].append(op)
    return found


def changed_lines(before: Sequence[str], after: Sequence[str]) -> list[str]:
    """The source lines (``file:line `code```) whose traced ops or constants differ between
    two compiles' Dynamo graphs (empty when either has no graph text)."""
    if not before or not after:
        return []
    old, new = _ops_by_line(before), _ops_by_line(after)
    out = []
    for key in sorted(set(old) | set(new), key=lambda k: (k[0], k[1])):
        a, b = old.get(key), new.get(key)
        if a is None or b is None or sorted(a[1]) != sorted(b[1]):
            code = (b or a or ("", []))[0]
            out.append(f"{key[0]}:{key[1]} `{code}`")
    return out


def repeated(compiles: Sequence[CompileRecord], candidates: Sequence[Candidate],
             phases: dict[str, float]) -> list[RepeatedBlock]:
    """How often each candidate block's code was traced into the graphs (its forward's
    source lines in the graphs' ``# File:`` comments), and its share of Dynamo and Inductor
    seconds, estimated as the share of graph ops that come from its lines."""
    ops: Counter[tuple[str, int]] = Counter()
    texts = [graph for record in compiles for graph in record.graphs]
    for graph in texts:
        for m in _FILE.finditer(graph):
            ops[(m.group("file"), int(m.group("line")))] += 1
    total = sum(ops.values())
    dynamo = sum(phases.get(p, 0.0) for p in DYNAMO_PHASES)
    inductor = sum(phases.get(p, 0.0) for p in INDUCTOR_PHASES)
    blocks = []
    for c in candidates:
        mine = {line: n for (file, line), n in ops.items()
                if file == c.filename and line in c.lines}
        share = sum(mine.values()) / total if total else 0.0
        blocks.append(RepeatedBlock(
            path=c.path, cls=c.cls.__name__, count=c.count,
            traced_copies=_copies(texts, c.path), node_share=round(share, 4),
            dynamo_s=round(dynamo * share, 4), inductor_s=round(inductor * share, 4)))
    return blocks


def _copies(graphs: Sequence[str], path: str) -> int:
    """How many of the container's children the graphs hold: Dynamo names a lifted
    parameter after its module path (``L_self_modules_blocks_modules_3_modules_l_...``)."""
    name = "".join(f"modules_{part}_" for part in path.split(".")) if path else ""
    pattern = re.compile(re.escape(name) + r"modules_(\d+)_")
    return len({m.group(1) for graph in graphs for m in pattern.finditer(graph)})
