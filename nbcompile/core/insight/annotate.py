"""Annotated source, in the spirit of ``%%cython --annotate``: what became of each line.

For every line of the file(s) holding a target's code (its cell), one
``LineAnnotation``: fused into generated kernel(s), run as an extern call, a graph break,
a failed compile, captured without code of its own, left to Python, or outside the
compiled code. Built from the record alone (kernels with their ``lines``, the Dynamo
graphs' ``# File:`` comments, graph breaks), so the sidebar gets the same mapping.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from typing import Any

from .. import sources
from ..frames import ENTRY_PREFIX, Span, is_cell_file
from ..records import CompileRecord, Kernel, LineAnnotation, TargetRecord
from ..trace.compile_id import compile_number, frame_of
from ..trace.fx_graph import parse_graph

#: Categories, strongest first (a line shows the strongest that applies).
CATEGORIES = ("error", "graph_break", "kernel", "extern", "traced", "python", "pending",
              "outside", "blank")

DESCRIPTIONS = {
    "error": "the compile failed here",
    "graph_break": "graph break: Dynamo stopped tracing here; this line runs in Python",
    "kernel": "fused into generated kernel(s)",
    "extern": "runs as an extern (library) call",
    "traced": "captured in the graph, no code of its own (view, constant or folded)",
    "python": "not in any graph: evaluated by Python (or by Dynamo while tracing)",
    "pending": "not compiled yet: compilation happens at the first call",
    "outside": "not part of the compiled code",
    "blank": "",
}

#: Code pieces the source pane ties to lines (the wrapper is plumbing, tied to none).
MAPPED_KINDS = frozenset({"kernel", "extern"})
#: Files named in ``no_kernel_lines``'s sentence, at most.
MAX_FILES = 4


def no_kernel_lines(record: TargetRecord, annotations: Iterable[LineAnnotation],
                    layers: Iterable[str] = ()) -> str:
    """Why none of the source lines a view offers for ``record`` maps to a kernel, in one
    sentence; "" when one does, or when there is no kernel yet.

    The lines offered are ``annotations`` and the cells' lines the kernels name (as the
    source pane lays them out). ``layers``: the class names of torch's own layers a module
    target is made of (``Linear``, ``ReLU``), named when torch's graphs record no line:
    Dynamo leaves frames inside ``torch/nn/modules`` out of an op's stack trace, so ops
    that only torch's layers run have no source line of their own.
    """
    annotations = list(annotations)
    shown = [k for k in record.kernels if k.kind in MAPPED_KINDS]
    if not shown or any(a.kernel_refs for a in annotations):
        return ""
    offered = {a.filename for a in annotations} | {record.cell.filename}
    named = {sl.filename for k in shown for sl in k.lines if sl.filename}
    if any(f in offered or is_cell_file(f) for f in named):
        return ""
    who = f"No source line of `{record.name}` maps to a kernel"
    if named:
        return f"{who}: its kernels came from lines of {_files(named)}, not shown here."
    graphs = [g for c in record.compiles for g in c.graphs]
    nodes = [n for g in graphs for n in parse_graph(g)]
    if nodes and not any(n.filename for n in nodes):
        why = (f"{who}: torch recorded no source line for any op of its "
               f"graph{'s' if len(graphs) > 1 else ''}")
        names = list(dict.fromkeys(layers))
        if names:
            return (why + f", since they all run inside torch's own layers "
                    f"({', '.join(names[:8])}{', ...' if len(names) > 8 else ''}), whose "
                    "lines torch leaves out of an op's stack trace.")
        return why + "."
    return (f"{who}: nbcompile could not tie its kernels to a line (Inductor's provenance "
            "named none, and their ops matched no line of torch's graphs).")


def torch_layers(module: Any) -> list[str]:
    """The class names of torch's own layers ``module`` is made of (its leaf modules, each
    from ``torch.nn``; in order, once each); [] when one is not torch's, or for an object
    that is not a module."""
    if not callable(getattr(module, "modules", None)):
        return []
    leaves = [type(m) for m in module.modules() if next(iter(m.children()), None) is None]
    if not leaves or any(not t.__module__.startswith("torch.nn.") for t in leaves):
        return []
    return list(dict.fromkeys(t.__name__ for t in leaves))


def _files(names: Iterable[str]) -> str:
    """Files in short: an installed package's from its folder on
    (``torch/nn/modules/linear.py``), others by their base name."""
    short = []
    for name in sorted(names):
        path = name.replace("\\", "/")
        at = path.rfind("/site-packages/")
        short.append(path[at + len("/site-packages/"):] if at >= 0 else path.rsplit("/", 1)[-1])
    short = list(dict.fromkeys(short))
    more = len(short) - MAX_FILES
    return ", ".join(short[:MAX_FILES]) + (f" and {more} more" if more > 0 else "")


def latest_compiles(compiles: Iterable[CompileRecord]) -> list[CompileRecord]:
    """The newest compile of each Dynamo frame (``"0/1"`` supersedes ``"0/0"``)."""
    newest: dict[str, tuple[int, CompileRecord]] = {}
    for c in compiles:
        frame, n = frame_of(c.compile_id), compile_number(c.compile_id)
        if frame not in newest or n >= newest[frame][0]:
            newest[frame] = (n, c)
    return [c for _, c in newest.values()]


def kernel_label(kernel: Kernel, many_compiles: bool) -> str:
    label = kernel.name
    if kernel.stage == "backward":
        label += " (backward)"
    if many_compiles and kernel.compile_id:
        label += f" [{kernel.compile_id}]"
    return label


def annotate_record(record: TargetRecord, spans: Iterable[Span | tuple[str, int, int]] = ()
                    ) -> list[LineAnnotation]:
    """One ``LineAnnotation`` per line of the files holding the target's code."""
    spans = [s if isinstance(s, Span) else Span(*s) for s in spans]
    files: list[str] = []
    for name in [s.filename for s in spans] + [record.cell.filename]:
        if name and not name.startswith(ENTRY_PREFIX) and name not in files:
            if sources.lines(name):
                files.append(name)

    latest = latest_compiles(record.compiles)
    latest_ids = {c.compile_id for c in latest}
    many = len(latest) > 1
    kernels_at: dict[tuple[str, int], list[int]] = {}
    for i, k in enumerate(record.kernels):
        if k.compile_id not in latest_ids or k.kind == "wrapper":
            continue
        for sl in k.lines:
            kernels_at.setdefault((sl.filename, sl.lineno), []).append(i)
    traced: dict[tuple[str, int], list[str]] = {}
    for c in latest:
        for graph in c.graphs:
            for node in parse_graph(graph):
                if node.filename is not None and node.lineno is not None:
                    ops = traced.setdefault((node.filename, node.lineno), [])
                    if node.op not in ops:
                        ops.append(node.op)
    breaks: dict[tuple[str | None, int | None], list[str]] = {}
    for gb in record.graph_breaks:
        reasons = breaks.setdefault((gb.filename, gb.lineno), [])
        if gb.reason not in reasons:
            reasons.append(gb.reason)
    error_at = (record.error.filename, record.error.lineno) if record.error else None
    compiled = any(c.status == "ok" for c in record.compiles)

    out: list[LineAnnotation] = []
    for filename in files:
        lines = sources.lines(filename)
        source = "".join(lines)
        statements = _statement_lines(source)
        file_spans = [s for s in spans if s.filename == filename]
        for lineno, text in enumerate(lines, start=1):
            text = text.rstrip("\n")
            key = (filename, lineno)
            ann = LineAnnotation(filename=filename, lineno=lineno, line=text, category="blank")
            refs = kernels_at.get(key, [])
            ann.kernel_refs = list(refs)
            ann.kernels = [kernel_label(record.kernels[i], many) for i in refs
                           if record.kernels[i].kind == "kernel"]
            ann.externs = [kernel_label(record.kernels[i], many) for i in refs
                           if record.kernels[i].kind == "extern"]
            ann.ops = list(traced.get(key, []))
            in_span = any(s.first <= lineno <= s.last for s in file_spans)
            if error_at == key and record.error is not None:
                ann.category, ann.reason = "error", record.error.message
            elif key in breaks:
                ann.category, ann.reason = "graph_break", "; ".join(breaks[key])
            elif refs:  # what the forward (or inference) code does decides, else backward
                forward = [i for i in refs if record.kernels[i].stage != "backward"] or refs
                kinds = {record.kernels[i].kind for i in forward}
                ann.category = "kernel" if "kernel" in kinds else "extern"
            elif key in traced:
                ann.category = "traced"
            elif not text.strip() or text.strip().startswith("#"):
                ann.category = "blank"
            elif not in_span or lineno not in statements:
                ann.category = "outside"
            elif not record.compiles:
                ann.category = "pending" if record.status != "disabled" else "outside"
            elif not compiled:
                ann.category, ann.reason = "python", "not compiled: the compile failed"
            else:
                ann.category = "python"
            if not ann.reason:
                ann.reason = DESCRIPTIONS[ann.category]
            out.append(ann)
        _continuations(out, filename, source)
    return out


@functools.lru_cache(maxsize=16)
def _statement_lines(source: str) -> frozenset[int]:
    """Line numbers that start a statement inside a function body (any depth); kept per
    source text, since a live summary annotates the same file at every update."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        # "\n" only: ``str.splitlines`` also splits at form feeds and the like, which
        # would shift every later line number against linecache's lines
        return frozenset(i for i, t in enumerate(source.split("\n"), start=1)
                         if t.strip() and not t.strip().startswith(("#", "@", "def ", "class ")))
    found: set[int] = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for stmt in ast.walk(fn):
            if isinstance(stmt, ast.stmt) and stmt is not fn and not isinstance(
                stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            ):
                if _is_docstring(stmt):
                    continue
                found.add(stmt.lineno)
                if not hasattr(stmt, "body"):  # a simple statement: all its lines
                    found.update(range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1))
    return frozenset(found)


def _is_docstring(stmt: ast.stmt) -> bool:
    return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str))


def _continuations(out: list[LineAnnotation], filename: str, source: str) -> None:
    """Continuation lines of a multi-line statement show the statement's category."""
    by_line = {a.lineno: a for a in out if a.filename == filename}
    rank = {c: i for i, c in enumerate(CATEGORIES)}
    for first, last in _multiline_statements(source):
        group = [by_line[n] for n in range(first, last + 1) if n in by_line]
        best = min(group, key=lambda a: rank.get(a.category, len(rank)))
        for a in group:
            if a is not best and rank.get(a.category, 99) > rank.get(best.category, 99):
                a.category = best.category
                a.reason = f"part of the statement at line {best.lineno}"


@functools.lru_cache(maxsize=16)
def _multiline_statements(source: str) -> tuple[tuple[int, int], ...]:
    """(first, last) lines of each simple statement spanning several lines."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    spans = []
    for stmt in ast.walk(tree):
        if not isinstance(stmt, ast.stmt) or hasattr(stmt, "body"):
            continue
        first, last = stmt.lineno, stmt.end_lineno or stmt.lineno
        if first != last:
            spans.append((first, last))
    return tuple(spans)
