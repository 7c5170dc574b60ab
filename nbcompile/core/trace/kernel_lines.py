"""Which user source lines each generated kernel came from.

Provenance first: Inductor's own provenance tracking (``apply_provenance``) names every
kernel's source lines exactly. Without it (an older cache entry, tracking off) the
labelled fallback matches kernel names and launch order against the FX graphs
(``map_lines``): C++ kernel names list the ATen ops they fuse; Triton and extern launches
name their source nodes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from .. import sources
from ..frames import cell_key, is_torch_file
from ..records import Kernel, SourceLine
from .fx_graph import VIEW_OPS, FxNode, parse_graph

_KERNEL_NAME = re.compile(r"^(?:cpp|triton)_(?:poi_|red_|per_|tem_|)fused_(?P<ops>.*?)_\d+$")


@dataclass
class Launch:
    """A kernel launch or extern call in ``call``, with the comment written before it."""

    kind: str  # kernel | extern
    name: str
    line: str
    source_nodes: list[str] = field(default_factory=list)
    original_aten: list[str] = field(default_factory=list)
    kernel: Kernel | None = None
    handle: str = ""


# --- mapping kernels to nodes and lines ----------------------------------------------


def kernel_op_tokens(name: str) -> str:
    """The ``_``-joined op part of a descriptive kernel name (``add_mul_relu_sin``)."""
    m = _KERNEL_NAME.match(name)
    return m.group("ops") if m else ""


def _matches(op: str, tokens: str) -> bool:
    return bool(op) and bool(tokens) and f"_{op}_" in f"_{tokens}_"


def _loose(op: str) -> str:
    """An op name without ATen's decoration: ``_softmax`` -> ``softmax``,
    ``native_layer_norm`` -> ``layer_norm``."""
    return op.lstrip("_").removeprefix("native_")


def map_lines(launches: list[Launch], graphs: list[str], post_grad: str | None,
               stage: str) -> None:
    dynamo = [n for g in graphs for n in parse_graph(g)]
    post = parse_graph(post_grad) if post_grad else []
    relocate(post, dynamo)
    primary, secondary = (post, dynamo) if stage == "backward" else (dynamo, post)
    by_name_primary = {n.name: n for n in primary}
    by_name_secondary = {n.name: n for n in secondary}
    found: dict[int, list[FxNode]] = {}

    # 1. Launches whose comments name their source nodes (Triton kernels, extern calls).
    for i, launch in enumerate(launches):
        if not launch.source_nodes:
            continue
        names = launch.source_nodes
        if launch.kind == "extern":
            # An extern call's origins also list the producers of the views it reads
            # (e.g. ``[relu, x, x_1, linear]``); sorted topologically, its own is last.
            names = names[-1:]
            op = _extern_op(launch.name)
            own = [a for a in launch.original_aten if a.rsplit(".", 1)[-1] == op]
            launch.original_aten = own or launch.original_aten
        nodes = [by_name_primary.get(n) or by_name_secondary.get(n) for n in names]
        found[i] = [n for n in nodes if n is not None]
        _claim_post_grad(post, i, launch, found[i])

    # 2. C++ kernels: match the ops of their name against the post-grad graph, in order.
    launch_tokens = {
        i: kernel_op_tokens(launch.name)
        for i, launch in enumerate(launches)
        if launch.kind == "kernel" and not launch.source_nodes
    }
    for i, tokens in launch_tokens.items():
        found[i] = _claim_run(post, i, tokens)
    # 3. Kernels that matched nothing (decomposed ops such as ``_softmax``, backward ops):
    #    the unclaimed nodes between the launches before and after them, else the lines
    #    of Dynamo nodes named like their ops.
    for i, tokens in launch_tokens.items():
        if found[i]:
            continue
        lo = max((n.index for j, ns in found.items() if j < i for n in ns if n in post),
                 default=-1)
        hi = min((n.index for j, ns in found.items() if j > i for n in ns if n in post),
                 default=len(post))
        for node in post[lo + 1:hi]:
            if node.owner is None and node.is_compute:
                node.owner = i
                found[i].append(node)
        if found[i] or not tokens:
            continue
        loose = {_loose(t) for t in _split_known(tokens)} | {_loose(tokens)}
        found[i] = [n for n in dynamo if n.lineno is not None and _loose(n.op) in loose]
    # 4. Leftovers go to the nearest kernel naming their op, else sharing their line.
    for node in post:
        if node.owner is not None or not node.is_compute:
            continue
        candidates = [i for i, t in launch_tokens.items() if _matches(node.op, t)] or [
            i for i in launch_tokens
            if any((n.filename, n.lineno) == (node.filename, node.lineno) for n in found[i])
        ]
        if not candidates and len(launch_tokens) == 1:
            candidates = list(launch_tokens)  # one generated kernel: it computes the rest
        if candidates:
            best = min(candidates, key=lambda i: _distance(found[i], node))
            node.owner = best
            found[best].append(node)
    # 5. Kernels whose nodes carry no location (pattern-replaced nodes have no stack
    #    trace): the lines of Dynamo nodes named like their ops.
    for i, tokens in launch_tokens.items():
        if tokens and not any(n.lineno is not None for n in found[i]):
            loose = {_loose(t) for t in _split_known(tokens)} | {_loose(tokens)}
            found[i] += [n for n in dynamo if n.lineno is not None and _loose(n.op) in loose]

    for i, launch in enumerate(launches):
        kernel = launch.kernel
        if kernel is None:
            continue
        nodes = sorted(found.get(i, []), key=lambda n: (n.lineno or 0, n.index))
        kernel.lines = _unique_lines(nodes)
        kernel.nodes = list(dict.fromkeys(n.name for n in nodes))
        ops = list(launch.original_aten)
        for n in nodes:
            q = n.qualified or ""
            if q.startswith("aten.") and q not in ops and n.op not in VIEW_OPS:
                ops.append(q)
        tokens = launch_tokens.get(i, "")
        if tokens and not any(_matches(o.split(".", 1)[-1], tokens) for o in ops):
            ops.append(f"aten.{tokens}")
        kernel.ops = ops


def relocate(post: list[FxNode], dynamo: list[FxNode]) -> None:
    """Point post-grad nodes at the lines of this compile's Dynamo graph.

    On an FX-graph-cache hit Inductor logs the post-grad graph of the compile that filled
    the cache, whose ``# File:`` comments may name another cell or other line numbers.
    Locations are matched by their code text (in order where the text repeats); a
    location without a match is dropped.
    """
    fresh: dict[str, list[tuple[str, int]]] = {}
    for n in dynamo:
        if n.lineno is not None and n.filename is not None:
            places = fresh.setdefault(n.code.strip(), [])
            if (n.filename, n.lineno) not in places:
                places.append((n.filename, n.lineno))
    seen: dict[str, list[tuple[str, int]]] = {}
    for n in post:
        if n.lineno is not None and n.filename is not None:
            places = seen.setdefault(n.code.strip(), [])
            if (n.filename, n.lineno) not in places:
                places.append((n.filename, n.lineno))
    mapping: dict[tuple[str, int], tuple[str, int]] = {}
    for code, stale in seen.items():
        targets = fresh.get(code, [])
        if not targets:
            continue
        if len(targets) == len(stale):
            mapping.update(zip(sorted(stale, key=lambda p: p[1]),
                               sorted(targets, key=lambda p: p[1]), strict=True))
        else:
            for place in stale:
                mapping[place] = place if place in targets else targets[0]
    # Texts that differ (e.g. renamed variables; the cached graph has the same structure):
    # the remaining locations in line order, when both sides have as many.
    stale_left = sorted({p for ps in seen.values() for p in ps} - set(mapping),
                        key=lambda p: (p[0], p[1]))
    used = set(mapping.values())
    fresh_left = sorted({p for ps in fresh.values() for p in ps} - used,
                        key=lambda p: (p[0], p[1]))
    if stale_left and len(stale_left) == len(fresh_left):
        mapping.update(zip(stale_left, fresh_left, strict=True))
    text_at = {place: code for code, places in fresh.items() for place in places}
    for n in post:
        if n.filename is None or n.lineno is None:
            continue
        new = mapping.get((n.filename, n.lineno))
        if new is None:
            n.filename = n.lineno = None
        else:
            n.filename, n.lineno = new
            n.code = text_at.get(new, n.code)


def _split_known(tokens: str) -> list[str]:
    return [t for t in tokens.split("_") if t]


def _distance(nodes: list[FxNode], node: FxNode) -> int:
    if not nodes:
        return 10**6
    return min(abs(n.index - node.index) for n in nodes)


def _extern_op(name: str) -> str:
    """``extern_kernels.addmm`` -> ``addmm``; ``torch.ops.aten.bmm.default`` -> ``bmm``."""
    if name.startswith(("aten.", "torch.ops.")):
        parts = name.split(".")
        if name.startswith("torch.ops."):
            parts = parts[3:]
        elif name.startswith("aten."):
            parts = parts[1:]
        return parts[0] if parts else name
    return name.rsplit(".", 1)[-1]


def _claim_post_grad(post: list[FxNode], owner: int, launch: Launch,
                     found: list[FxNode]) -> None:
    """Mark the post-grad nodes a commented launch computes, so C++ kernels skip them."""
    if launch.kind == "extern":
        op = _extern_op(launch.name)
        lines = {(n.filename, n.lineno) for n in found}
        candidates = [n for n in post if n.owner is None and n.op == op]
        preferred = [n for n in candidates if (n.filename, n.lineno) in lines]
        for node in (preferred or candidates)[:1]:
            node.owner = owner
            if node not in found:
                found.append(node)
        return
    names = set(launch.source_nodes)
    for node in post:
        if node.owner is None and node.name in names:
            node.owner = owner


def _claim_run(post: list[FxNode], owner: int, tokens: str) -> list[FxNode]:
    """Claim, from the first unclaimed node whose op the kernel name lists, the run of
    such nodes; stop at a compute node the kernel does not list."""
    claimed: list[FxNode] = []
    started = False
    for node in post:
        if started and node.owner is not None and node.owner > owner:
            break  # computed by a later launch: this kernel cannot depend on it
        if node.owner is not None or not node.is_compute:
            continue
        if _matches(node.op, tokens):
            node.owner = owner
            claimed.append(node)
            started = True
        elif started:
            break
    return claimed


def _unique_lines(nodes: list[FxNode]) -> list[SourceLine]:
    seen: set[tuple[str, int]] = set()
    lines: list[SourceLine] = []
    for n in nodes:
        sl = n.source_line()
        if sl is None or (sl.filename, sl.lineno) in seen:
            continue
        seen.add((sl.filename, sl.lineno))
        lines.append(sl)
    return lines


_TRACE_FRAME = re.compile(
    r'File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in [^\n]*\n[ \t]*(?P<code>[^\n]*))?')


def _current_file(filename: str, lineno: int, code: str | None, current: list[str]) -> str:
    """The file of ``current`` holding a replayed frame's line (see ``apply_provenance``)."""
    for candidate in current:
        if cell_key(candidate) == cell_key(filename):
            return candidate
    text = (code or "").strip()
    for candidate in current:
        if text and sources.line(candidate, lineno) == text:
            return candidate
    return filename


def apply_provenance(kernels: list[Kernel], stack_traces: dict[str, list[str]],
                     current_files: Iterable[str] = ()) -> int:
    """Tie kernels to source lines with Inductor's own provenance tracking.

    ``stack_traces`` is the ``inductor_provenance_tracking_kernel_stack_traces`` artifact:
    ``{"cpp_fused_add_1:4": ['  File "<cell>", line 10, in forward ...'], ...}``. It is
    exact where the name-and-order matching above can only be a good guess (Inductor
    writes no source-node comments for C++ kernels). Frames inside torch itself (and
    nbcompile's entry functions) are dropped; a kernel with no user frame keeps its
    guessed lines. Returns how many kernels it re-mapped.

    On an FX-graph cache hit Inductor replays the traces of the compile that filled the
    cache, whose cell files may belong to another kernel process: a frame in a file this
    process cannot read is moved to the one of ``current_files`` (the files this compile
    traced) that names the same cell (``frames.cell_key``) or has the same code on that line.
    """
    current = [f for f in current_files if f]
    mapped = 0
    for kernel in kernels:
        traces = stack_traces.get(kernel.handle) if kernel.handle else None
        if not traces:
            continue
        frames: list[SourceLine] = []
        for trace in traces:
            for m in _TRACE_FRAME.finditer(trace):
                filename, lineno = m.group("file"), int(m.group("line"))
                if not sources.line(filename, lineno):
                    filename = _current_file(filename, lineno, m.group("code"), current)
                if all((f.filename, f.lineno) != (filename, lineno) for f in frames):
                    frames.append(SourceLine(filename, lineno, sources.line(filename, lineno)))
        user = [f for f in frames if not is_torch_file(f.filename)]
        if user:
            kernel.lines = sorted(user, key=lambda f: (f.filename, f.lineno))
            mapped += 1
    return mapped
