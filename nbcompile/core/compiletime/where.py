"""Where a target's compile seconds go: one ``FrameTime`` per frame compile (seconds,
phases, each cache layer's outcome and, for a frame compiled before, what differed in the
cache key), the seconds spent in recompiles, and blocks traced again and again.

Built from torch's structured-trace events (the same builder as live capture), so it
serves a fresh child process's events and the kernel's own alike.
"""

from __future__ import annotations

import ast
import difflib
import functools
import inspect
import linecache
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..frames import cell_key, is_cell_file
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
             graphs: Sequence[str]) -> tuple[list[KeyChange], bool | None, set[str]]:
    """The key components that differ from an earlier compile's lookups (a layer that
    missed or bypassed, compared where both list components), the graph's changed lines
    named; whether every compared layer's components were equal (``None``: none
    compared); and the layers compared."""
    changes: list[KeyChange] = []
    compared: set[str] = set()
    differ_any = False
    for lookup in mine:
        old = next((b for b in before if b.outcome.layer == lookup.outcome.layer
                    and b.components), None)
        if old is None or not lookup.components:
            continue
        compared.add(lookup.outcome.layer)
        differ = key_changes(lookup.outcome.layer, old.components, lookup.components)
        differ_any = differ_any or bool(differ)
        if lookup.outcome.outcome != "hit":
            changes += differ
    lines = changed_lines(old_graphs, graphs)
    for change in changes:
        if change.kind == "graph" and lines:
            change.words = "the graph differs at " + "; ".join(lines[:3]) + (
                f" (and {len(lines) - 3} more lines)" if len(lines) > 3 else "")
    return changes, (None if not compared else not differ_any), compared


def _earlier(saved: SavedFrame, record: CompileRecord, mine: list[Lookup]
             ) -> tuple[EarlierCompile, list[KeyChange], set[str]]:
    """This compile compared with an earlier kernel's compile of the frame (and the cache
    layers whose key components both listed)."""
    changes, same, compared = _changes(saved.lookups, [cut_lookup(lk) for lk in mine],
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
                          same_cell=same_cell, same_key=same, words=words), changes, compared


def _remember(seen: dict[tuple[str, str, int], Compiled], cells: dict[str, list[Compiled]],
              record: CompileRecord, lookups: list[Lookup]) -> None:
    """Keep a compile that logged cache lookups as the frame's latest (and, for code in a
    notebook cell, under its function's name: a cell run again makes a new file name)."""
    if not lookups:
        return
    seen[_frame(record)] = (record, lookups)
    if is_cell_file(record.filename):
        cells.setdefault(record.frame, []).append((record, lookups))


def rerun_of(candidates: Sequence[Compiled], record: CompileRecord) -> Compiled | None:
    """The latest compile of ``record``'s function from an earlier run of its notebook cell
    (the cell run again, edited or not: a new file name and code object): the same function
    name, in another cell file, with the same qualified name where the cells' sources say it
    (``Net.forward`` is not ``Other.forward``)."""
    if not is_cell_file(record.filename):
        return None
    mine = qualname(record.filename, record.firstlineno, record.frame)
    for earlier_compile in reversed(candidates):
        old = earlier_compile[0]
        if old.filename == record.filename or not is_cell_file(old.filename):
            continue
        theirs = qualname(old.filename, old.firstlineno, old.frame)
        if mine is None or theirs is None or mine == theirs:
            return earlier_compile
    return None


def _rerun_words(old: CompileRecord, record: CompileRecord) -> str:
    edited = cell_key(old.filename) != cell_key(record.filename)
    return (f"compared with {old.frame}'s compile {old.compile_id} from an earlier "
            + ("version" if edited else "run") + f" of its cell ({old.filename})")


@functools.lru_cache(maxsize=512)
def qualname(filename: str, lineno: int, name: str) -> str | None:
    """The qualified name (``Net.forward``, ``outer.<locals>.inner``) of the function
    ``name`` defined at ``lineno`` of ``filename``, from the source ``linecache`` holds
    (``None``: no source, or no such definition there)."""
    source = "".join(linecache.getlines(filename))
    if not source:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return None

    def find(node: ast.AST, prefix: str) -> str | None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                here = prefix + child.name
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                if (not isinstance(child, ast.ClassDef) and child.name == name
                        and lineno in (child.lineno, first)):
                    return here
                inner = here + ("." if isinstance(child, ast.ClassDef) else ".<locals>.")
                found = find(child, inner)
            else:
                found = find(child, prefix)
            if found is not None:
                return found
        return None

    return find(tree, "")


def where(compiles: Sequence[Compiled], root: Any = None,
          history: Sequence[Compiled] = (), earlier: Sequence[SavedFrame] = ()) -> Where:
    """The split of ``compiles``' seconds (each with its cache lookups). ``root``: the
    module whose repeated blocks to look for; ``history``: earlier compiles to compare
    cache keys with (e.g. another process's, or this kernel's); a frame compiled twice
    within ``compiles`` is compared with its previous compile too, and a function whose
    notebook cell was run again with its compile from the earlier run (``rerun_of``);
    ``earlier``: frames an
    earlier kernel of this notebook saved, compared with a frame compiled for the first
    time here."""
    seen: dict[tuple[str, str, int], Compiled] = {}
    cells: dict[str, list[Compiled]] = {}  # compiles in notebook cells, by function name
    for record, found in history:
        seen[_frame(record)] = (record, found)  # compiled before, lookups logged or not
        _remember(seen, cells, record, found)
    result = Where()
    phases: Counter[str] = Counter()
    caches: Counter[str] = Counter()
    for record, mine in compiles:
        cid = CompileId.parse(record.compile_id)
        seconds = float(record.times.get("entire_frame_compile_time_s")
                        or record.times.get("total_s") or 0.0)
        recompile = bool(cid and cid.frame_compile_id > 0)
        previous = seen.get(_frame(record))
        rerun = None if previous is not None else rerun_of(cells.get(record.frame, []), record)
        previous = previous or rerun
        changes: list[KeyChange] = []
        compared: set[str] | None = None
        then: EarlierCompile | None = None
        if previous is not None:
            changes, _, compared = _changes(previous[1], mine, previous[0].graphs,
                                            record.graphs)
        elif earlier and (saved := match(earlier, record)) is not None:
            then, changes, compared = _earlier(saved, record, mine)
        note = cache_note([lookup.outcome for lookup in mine], changes,
                          previous is not None or then is not None, compared)
        if then is not None:
            note = then.words + "; " + note
        elif rerun is not None:
            note = _rerun_words(rerun[0], record) + "; " + note
        frame = FrameTime(
            compile_id=record.compile_id, frame=record.frame, filename=record.filename,
            lineno=record.firstlineno, seconds=round(seconds, 4), phases=dict(record.phases),
            graph_op_count=record.graph_op_count, recompile=recompile,
            recompile_reason=record.recompile_reason,
            caches=[lookup.outcome for lookup in mine], key_changes=changes,
            cache_note=note, earlier=then)
        result.frames.append(frame)
        result.total_s += seconds
        if recompile:
            result.recompile_s += seconds
        phases.update(record.phases)
        caches.update(f"{o.layer} {o.outcome}" for o in frame.caches)
        _remember(seen, cells, record, mine)
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


_ASSIGNED = re.compile(r"^\s*(\w+)(?:: \"[^\"]*\")? = ", re.M)
_NAME = re.compile(r"\b[A-Za-z_]\w*\b")

#: A stretch of a Dynamo graph traced from one source line: file, line, code, its ops.
Segment = tuple[str, int, str, tuple[str, ...]]


def _segments(graphs: Sequence[str]) -> list[Segment]:
    """The Dynamo graphs' ``# File: <file>:<line>`` stretches in order, each with the ops
    traced there; node names (which shift when an op is added before) read as ``v``, so
    only the ops and their constants are compared."""
    found: list[Segment] = []
    for graph in graphs:
        names = set(_ASSIGNED.findall(graph))
        current: tuple[str, int, str, list[str]] | None = None
        for text in graph.splitlines():
            m = _GRAPH_LINE.search(text)
            if m:
                if current is not None:
                    found.append((*current[:3], tuple(current[3])))
                current = (m.group("file"), int(m.group("line")), m.group("code").strip(), [])
                continue
            node = _NODE.match(text)
            if node and current is not None:
                current[3].append(_anonymous(node.group("op"), names))
        if current is not None:
            found.append((*current[:3], tuple(current[3])))
    return found


def _anonymous(op: str, names: set[str]) -> str:
    return _NAME.sub(lambda n: "v" if n.group() in names else n.group(), op)


def changed_lines(before: Sequence[str], after: Sequence[str]) -> list[str]:
    """The source lines (``file:line `code```, the later compile's) whose traced ops or
    constants differ between two compiles' Dynamo graphs, in graph order (empty when
    either has no graph text). The graphs are aligned by their ops, so lines that only
    moved (a line added above) are not named; notebook cell names are compared as one
    (the same function from two runs of its cell)."""
    if not before or not after:
        return []
    old, new = _segments(before), _segments(after)

    def key(seg: Segment) -> tuple[str, tuple[str, ...]]:
        return (portable_graphs([seg[0]])[0], seg[3])

    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, [key(x) for x in old], [key(x) for x in new],
                                      autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for file, line, code, _ in (new[j1:j2] if j2 > j1 else old[i1:i2]):
            named = f"{file}:{line} `{code}`"
            if named not in out:
                out.append(named)
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
