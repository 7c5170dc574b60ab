"""Inductor's generated module, split into the kernels it defines and calls (tied to
lines by ``kernel_lines``).

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

import re

from ..records import Kernel, KernelLanguage
from .kernel_lines import Launch, map_lines

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
_SOURCE_NODES = re.compile(
    r"#\s*(?:Topologically Sorted |Unsorted )?Source Nodes: \[(?P<nodes>[^\]]*)\]"
    r"(?:, Original ATen: \[(?P<aten>[^\]]*)\])?"
)
_MAPPING = re.compile(r"^#\s+(?P<src>\w+) => (?P<dst>[\w, ]+)$")
_AOT_ID = re.compile(r"^# AOT ID: \[.*?_(?P<stage>inference|forward|backward)'", re.M)

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
    languages: tuple[tuple[re.Pattern[str], KernelLanguage], ...] = (
        (_CPP, "cpp"), (_TRITON, "triton"))
    for pattern, language in languages:
        for m in pattern.finditer(output_code):
            src = m.group("src").strip("\n")
            kernels.append(Kernel(name=m.group("name"), language=language, source=src,
                                  size=len(src), compile_id=compile_id, stage=stage))
            comments[m.group("name")] = _comment_block_before(output_code, m.start())
    kernels.sort(key=lambda k: output_code.find(f"\n{k.name} = "))
    by_name = {k.name: k for k in kernels}

    launches: list[Launch] = []
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
            launches.append(Launch("kernel", k.name, "", kernel=k))

    for launch in launches:  # the comment block above a Triton kernel's definition
        if launch.kind == "kernel" and not launch.source_nodes:
            _read_source_nodes(launch, comments.get(launch.name, []))

    map_lines(launches, graphs or [], post_grad_graph, stage)
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


def _launches(body: str, kernels: dict[str, Kernel]) -> list[Launch]:
    launches: list[Launch] = []
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
            launch = Launch("kernel", m.group("name"), line, kernel=kernels[m.group("name")])
        else:
            e = _EXTERN.search(line)
            if e:
                launch = Launch("extern", e.group("name"), line)
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


def _read_source_nodes(launch: Launch, block: list[str]) -> None:
    for line in block:
        m = _SOURCE_NODES.search(line)
        if m:
            launch.source_nodes = _names(m.group("nodes"))
            launch.original_aten = _names(m.group("aten") or "")
            return
