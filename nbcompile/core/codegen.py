"""Inductor's generated module, split into the kernels it defines and calls, each tied
to the FX nodes (and so to the user's source lines) it came from.

What Inductor writes, and what this module reads:

* C++ kernels: ``cpp_fused_<ops>_<n> = async_compile.cpp_pybinding([...], r'''...''')``.
  On CPU there is no origin comment: the name lists the ATen ops the kernel fuses
  (``config.cpp.descriptive_names = "original_aten"``), which are matched against the
  nodes of the post-grad FX graph of the same compile (``inductor_post_grad_graph``),
  in launch order.
* Triton kernels: ``triton_(poi|red|per)_... = async_compile.triton('name', '''...''')``,
  preceded by ``# Topologically Sorted Source Nodes: [...], Original ATen: [...]`` and a
  ``# Source node to ATen node mapping:`` block; the launch in ``call`` repeats the first.
* Extern calls (``extern_kernels.addmm(...)``, ``aten.*`` fallbacks) inside ``call``,
  preceded by a ``# Topologically Sorted Source Nodes`` comment.
* The wrapper ``call`` that launches everything.

Source-node names refer to the Dynamo graph (``dynamo_output_graph``) of the compile for
forward/inference code, to the post-grad graph for backward code (whose nodes have no
Dynamo origin). Both graphs carry ``# File: <file>:<line> in <fn>, code: ...`` comments.
"""

from __future__ import annotations

import difflib
import linecache
import re
from dataclasses import dataclass, field

from .frames import is_torch_file
from .records import CodeDiff, CompileRecord, Kernel, SourceLine

# --- FX graph text -------------------------------------------------------------------

_FILE_COMMENT = re.compile(
    r"^\s*# File: (?P<file>.+):(?P<line>\d+) in (?P<fn>[^,]+), code: (?P<code>.*)$"
)
_NODE_LINE = re.compile(r'^\s*(?P<name>\w+)(?:: "[^"]*")? = (?P<expr>.+)$')
_OPS_CALL = re.compile(r"^torch\.ops\.(?P<ns>\w+)\.(?P<op>\w+)(?:\.(?P<overload>\w+))?\(")
_CALLEE = re.compile(r"^(?:[\w.]+\.)?(?P<fn>\w+)\(")
_BINOP = re.compile(r"^\w+ (?P<op>\*\*|//|[-+*/@%&|^<>]|[<>=!]=) ")
_BINOP_NAMES = {
    "+": "add", "-": "sub", "*": "mul", "/": "div", "//": "floordiv", "@": "matmul",
    "**": "pow", "%": "remainder", "&": "and", "|": "or", "^": "xor", "<": "lt", ">": "gt",
    "<=": "le", ">=": "ge", "==": "eq", "!=": "ne",
}

#: ATen ops that produce no kernel of their own (views, metadata, constants folded into
#: the kernels that use them).
VIEW_OPS = frozenset({
    "permute", "view", "reshape", "_unsafe_view", "expand", "t", "transpose", "unsqueeze",
    "squeeze", "slice", "select", "alias", "as_strided", "full", "scalar_tensor",
    "getitem", "sym_size", "sym_stride", "sym_numel", "unbind", "split", "split_with_sizes",
    "view_as_real", "view_as_complex", "lift_fresh_copy", "detach",
})


@dataclass
class FxNode:
    """One node line of a readable FX graph, with the user line it came from."""

    name: str
    expr: str
    op: str  # ATen packet for torch.ops calls ("mul"), else the callee ("sin", "linear")
    qualified: str = ""  # e.g. "aten.mul" (torch.ops calls only)
    filename: str | None = None
    lineno: int | None = None
    code: str = ""
    index: int = 0
    owner: int | None = None  # index of the launch that claimed this node

    @property
    def is_compute(self) -> bool:
        return bool(self.op) and self.op not in VIEW_OPS

    def source_line(self) -> SourceLine | None:
        if self.filename is None or self.lineno is None:
            return None
        return SourceLine(self.filename, self.lineno, self.code.strip())


def parse_graph(text: str) -> list[FxNode]:
    """The call nodes of a readable FX graph (``print_readable`` text), in order."""
    nodes: list[FxNode] = []
    where: tuple[str, int, str] | None = None
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped:
            where = None
            continue
        m = _FILE_COMMENT.match(raw)
        if m:
            where = (m.group("file"), int(m.group("line")), m.group("code"))
            continue
        if stripped.startswith("#"):
            if "No stacktrace" in stripped:
                where = None
            continue
        if stripped.startswith(("class ", "def ", "return ")):
            continue
        m = _NODE_LINE.match(raw)
        if not m:
            continue
        expr = m.group("expr")
        op, qualified = _op_of(expr)
        if not op:
            continue  # a placeholder rename such as ``l_x_ = L_x_``
        node = FxNode(name=m.group("name"), expr=expr, op=op, qualified=qualified,
                      index=len(nodes))
        if where is not None:
            node.filename, node.lineno, node.code = where
        nodes.append(node)
    return nodes


def _op_of(expr: str) -> tuple[str, str]:
    m = _OPS_CALL.match(expr)
    if m:
        return m.group("op"), f"{m.group('ns')}.{m.group('op')}"
    m = _CALLEE.match(expr)
    if m:
        return m.group("fn"), ""
    m = _BINOP.match(expr)
    if m:
        return _BINOP_NAMES.get(m.group("op"), m.group("op")), ""
    return "", ""


# --- output code ---------------------------------------------------------------------

_CPP = re.compile(
    r"^(?P<name>\w+) = async_compile\.cpp(?:_pybinding)?\("
    r"(?:\[[^\]]*\],\s*)?r?'''(?P<src>.*?)'''\)",
    re.S | re.M,
)
_TRITON = re.compile(
    r"^(?P<name>\w+) = async_compile\.triton\('(?P=name)',\s*r?'''(?P<src>.*?)'''", re.S | re.M
)
_CALL = re.compile(
    r"^(?P<indent>[ \t]*)def call\((?:self, )?args\):\n"
    r"(?P<body>(?:(?P=indent)[ \t]+.*\n|[ \t]*\n)*)",
    re.M,
)
_EXTERN = re.compile(
    r"\b(?P<name>extern_kernels\.\w+|torch\.ops\.\w+\.\w+(?:\.\w+)?|aten\.\w+(?:\.\w+)?)\("
)
_HANDLE = re.compile(r"#\s*\[Provenance debug handles\]\s*(?P<handle>[\w.]+:\d+)")
_TRACE_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
_SOURCE_NODES = re.compile(
    r"#\s*(?:Topologically Sorted |Unsorted )?Source Nodes: \[(?P<nodes>[^\]]*)\]"
    r"(?:, Original ATen: \[(?P<aten>[^\]]*)\])?"
)
_MAPPING = re.compile(r"^#\s+(?P<src>\w+) => (?P<dst>[\w, ]+)$")
_AOT_ID = re.compile(r"^# AOT ID: \[.*?_(?P<stage>inference|forward|backward)'", re.M)
_KERNEL_NAME = re.compile(r"^(?:cpp|triton)_(?:poi_|red_|per_|tem_|)fused_(?P<ops>.*?)_\d+$")


@dataclass
class _Launch:
    """A kernel launch or extern call in ``call``, with the comment written before it."""

    kind: str  # kernel | extern
    name: str
    line: str
    source_nodes: list[str] = field(default_factory=list)
    original_aten: list[str] = field(default_factory=list)
    kernel: Kernel | None = None
    handle: str = ""


def stage_of(output_code: str) -> str:
    """``inference``, ``forward`` or ``backward`` (from the ``# AOT ID`` header)."""
    m = _AOT_ID.search(output_code[:2000])
    return m.group("stage") if m else ""


def split_kernels(output_code: str, graphs: list[str] | None = None, compile_id: str = "",
                  post_grad_graph: str | None = None) -> list[Kernel]:
    """Kernels (C++/Triton), extern calls and the ``call`` wrapper of one output module.

    ``graphs`` are the Dynamo graphs of the compile; ``post_grad_graph`` is the post-grad
    graph Inductor lowered into this module (maps C++ kernels to lines on CPU).
    """
    stage = stage_of(output_code)
    kernels: list[Kernel] = []
    comments: dict[str, list[str]] = {}
    for pattern, language in ((_CPP, "cpp"), (_TRITON, "triton")):
        for m in pattern.finditer(output_code):
            src = m.group("src").strip("\n")
            kernels.append(Kernel(name=m.group("name"), language=language, source=src,
                                  size=len(src), compile_id=compile_id, stage=stage))
            comments[m.group("name")] = _comment_block_before(output_code, m.start())
    kernels.sort(key=lambda k: output_code.find(f"\n{k.name} = "))
    by_name = {k.name: k for k in kernels}

    launches: list[_Launch] = []
    call = _CALL.search(output_code)
    wrapper: Kernel | None = None
    if call:
        body = call.group(0).rstrip() + "\n"
        launches = _launches(body, by_name)
        for launch in launches:
            if launch.kind == "extern":
                launch.kernel = Kernel(name=launch.name, language="python", kind="extern",
                                       source=launch.line, size=len(launch.line),
                                       compile_id=compile_id, stage=stage)
        wrapper = Kernel(name="call", language="python", kind="wrapper", source=body,
                         size=len(body), compile_id=compile_id, stage=stage)
    launched = {launch.name for launch in launches if launch.kind == "kernel"}
    for k in kernels:  # defined but not launched from ``call`` (e.g. inside a subgraph)
        if k.name not in launched:
            launches.append(_Launch("kernel", k.name, "", kernel=k))

    for launch in launches:  # the comment block above a Triton kernel's definition
        if launch.kind == "kernel" and not launch.source_nodes:
            _read_source_nodes(launch, comments.get(launch.name, []))

    _map_lines(launches, graphs or [], post_grad_graph, stage)
    for launch in launches:
        if launch.kernel is not None and launch.handle:
            launch.kernel.handle = launch.handle
    externs = [launch.kernel for launch in launches if launch.kind == "extern" and launch.kernel]
    return kernels + externs + ([wrapper] if wrapper else [])


def _comment_block_before(text: str, pos: int) -> list[str]:
    lines = text[:pos].rstrip("\n").splitlines()
    block: list[str] = []
    for line in reversed(lines):
        if not line.startswith("#"):
            break
        block.append(line)
    return block[::-1]


def _launches(body: str, kernels: dict[str, Kernel]) -> list[_Launch]:
    launches: list[_Launch] = []
    pending: tuple[list[str], list[str]] | None = None
    handle = ""
    for raw in body.splitlines():
        line = raw.strip()
        if line.startswith("#"):
            m = _SOURCE_NODES.search(line)
            if m:
                pending = (_names(m.group("nodes")), _names(m.group("aten") or ""))
            h = _HANDLE.search(line)
            if h:
                handle = h.group("handle")
            continue
        launch = None
        m = re.match(r"^(?P<name>\w+)(?:\.run)?\(", line)
        if m and m.group("name") in kernels:
            launch = _Launch("kernel", m.group("name"), line, kernel=kernels[m.group("name")])
        else:
            e = _EXTERN.search(line)
            if e:
                launch = _Launch("extern", e.group("name"), line)
        if launch is None:
            continue
        if pending is not None:
            launch.source_nodes, launch.original_aten = pending
            pending = None
        launch.handle, handle = handle, ""
        launches.append(launch)
    return launches


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def _read_source_nodes(launch: _Launch, block: list[str]) -> None:
    for line in block:
        m = _SOURCE_NODES.search(line)
        if m:
            launch.source_nodes = _names(m.group("nodes"))
            launch.original_aten = _names(m.group("aten") or "")
            return


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


def _map_lines(launches: list[_Launch], graphs: list[str], post_grad: str | None,
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


def _claim_post_grad(post: list[FxNode], owner: int, launch: _Launch,
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


# --- what changed between compiles ---------------------------------------------------

_RESUME_AT = re.compile(r"_at_\d+$")


def apply_provenance(kernels: list[Kernel], stack_traces: dict[str, list[str]]) -> int:
    """Tie kernels to source lines with Inductor's own provenance tracking.

    ``stack_traces`` is the ``inductor_provenance_tracking_kernel_stack_traces`` artifact:
    ``{"cpp_fused_add_1:4": ['  File "<cell>", line 10, in forward ...'], ...}``. It is
    exact where the name-and-order matching above can only be a good guess (Inductor
    writes no source-node comments for C++ kernels). Frames inside torch itself (and
    nbcompile's entry functions) are dropped; a kernel with no user frame keeps its
    guessed lines. Returns how many kernels it re-mapped.
    """
    mapped = 0
    for kernel in kernels:
        traces = stack_traces.get(kernel.handle) if kernel.handle else None
        if not traces:
            continue
        frames: list[SourceLine] = []
        for trace in traces:
            for m in _TRACE_FRAME.finditer(trace):
                filename, lineno = m.group("file"), int(m.group("line"))
                if all((f.filename, f.lineno) != (filename, lineno) for f in frames):
                    frames.append(SourceLine(filename, lineno,
                                             linecache.getline(filename, lineno).strip()))
        user = [f for f in frames if not is_torch_file(f.filename)]
        if user:
            kernel.lines = sorted(user, key=lambda f: (f.filename, f.lineno))
            mapped += 1
    return mapped




def _frame_key(record: CompileRecord) -> str:
    return _RESUME_AT.sub("", record.frame)  # a resume frame's line moves when a cell is edited


def diff_compiles(compiles: list[CompileRecord], previous: list[CompileRecord] | None = None,
                  context: int = 2) -> list[CodeDiff]:
    """Unified diffs, kernel by kernel, of each compile against the one before it.

    ``compiles`` are a target's compiles in order (a recompile after a new shape or dtype
    is compared with the previous compile of the same frame); ``previous`` are the
    compiles of the target the cell defined before it was re-run (compared with the
    first compile of the same frame). Identical kernels are left out.
    """
    previous = list(previous or [])
    history = previous + list(compiles)
    diffs: list[CodeDiff] = []
    for idx in range(len(previous), len(history)):
        current = history[idx]
        if not current.kernels:
            continue
        before = next((history[j] for j in range(idx - 1, -1, -1)
                       if history[j].kernels and _frame_key(history[j]) == _frame_key(current)),
                      None)
        if before is None:
            continue
        rerun = any(before is p for p in previous)
        cause = current.recompile_reason or ("cell re-run" if rerun else "")
        diffs.extend(diff_kernels(before, current, cause, context))
    return diffs


def _pair(old: list[Kernel], new: list[Kernel]) -> list[tuple[Kernel | None, Kernel | None]]:
    pairs: list[tuple[Kernel | None, Kernel | None]] = []
    old_left, new_left = list(old), []
    for k in new:
        match = next((o for o in old_left if o.name == k.name), None)
        if match is not None:
            old_left.remove(match)
            pairs.append((match, k))
        else:
            new_left.append(k)
    still_new = []
    for k in new_left:  # renamed (other ops fused, other number): same stem, else in order
        stem = re.sub(r"_\d+$", "", k.name)
        match = next((o for o in old_left if re.sub(r"_\d+$", "", o.name) == stem), None)
        if match is None and len(old_left) == 1 and len(new_left) == 1:
            match = old_left[0]
        if match is not None:
            old_left.remove(match)
            pairs.append((match, k))
        else:
            still_new.append(k)
    pairs.extend((None, k) for k in still_new)
    pairs.extend((o, None) for o in old_left)
    return pairs


def diff_kernels(before: CompileRecord, after: CompileRecord, cause: str = "",
                 context: int = 2) -> list[CodeDiff]:
    """Per-kernel unified diffs (generated kernels and the ``call`` wrapper)."""
    diffs: list[CodeDiff] = []
    stages = list(dict.fromkeys(k.stage for k in before.kernels + after.kernels))
    for stage in stages:
        old = [k for k in before.kernels if k.stage == stage and k.kind != "extern"]
        new = [k for k in after.kernels if k.stage == stage and k.kind != "extern"]
        for o, n in _pair(old, new):
            if o is not None and n is not None and o.source == n.source:
                continue
            text = "\n".join(difflib.unified_diff(
                o.source.splitlines() if o else [], n.source.splitlines() if n else [],
                fromfile=f"{o.name} (compile {before.compile_id})" if o else "/dev/null",
                tofile=f"{n.name} (compile {after.compile_id})" if n else "/dev/null",
                lineterm="", n=context,
            ))
            body = text.splitlines()[2:]
            diffs.append(CodeDiff(
                kernel=(n or o).name,  # type: ignore[union-attr]
                compile_id=after.compile_id,
                previous_compile_id=before.compile_id,
                previous_kernel=o.name if o else "",
                stage=stage,
                language=(n or o).language,  # type: ignore[union-attr]
                change="changed" if o and n else ("added" if n else "removed"),
                cause=cause,
                diff=text,
                added=sum(1 for ln in body if ln.startswith("+")),
                removed=sum(1 for ln in body if ln.startswith("-")),
            ))
    return diffs
