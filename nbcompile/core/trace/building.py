"""One frame compile while it is built: its record and what its events left for the end
(``Building``), and the record edits more than one event kind makes (generated code split
into kernels, kernels' compile times, the files a compile traced).

The event values of ``parsed.py`` apply themselves to a ``Building`` (``apply``, and
``late`` for what may still change after the compile closed); ``CompileBuilder`` only opens,
routes and closes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..records import CompileRecord, SourceLine, TargetError
from .output_code import split_kernels


@dataclass
class Building:
    """One frame compile being built (or finished, still open to late events)."""

    record: CompileRecord
    recompile_reasons: list[str] = field(default_factory=list)
    recompile_newest: list[str] = field(default_factory=list)
    recompile_versions: list[tuple[str, str]] = field(default_factory=list)
    error_stack: list[SourceLine] = field(default_factory=list)
    phases: list = field(default_factory=list)  # the compile's ``parsed.Phase`` values
    failure: TargetError | None = None
    cache_keys: list[tuple[str, str]] = field(default_factory=list)  # (artifact, key)
    kernel_compile_s: dict[str, float] = field(default_factory=dict)  # Triton's, by kernel


def add_output_code(record: CompileRecord, code: str, path: str) -> None:
    """A generated module added to the record, split into kernels tied to its graphs."""
    record.output_code += ("\n\n" if record.output_code else "") + code
    record.output_code_path = path
    post_grad = record.post_grad_graphs[-1] if record.post_grad_graphs else None
    record.kernels.extend(split_kernels(code, record.graphs,
                                        compile_id=record.compile_id,
                                        post_grad_graph=post_grad))


def time_kernels(record: CompileRecord, seconds: dict[str, float]) -> None:
    """Each kernel's Triton compile time, by name, where torch measured it."""
    for kernel in record.kernels if seconds else ():
        if kernel.kind == "kernel" and kernel.name in seconds:
            kernel.compile_time_s = seconds[kernel.name]


_GRAPH_FILE = re.compile(r"# File: (.+?):\d+ in ")


def traced_files(record: CompileRecord) -> set[str]:
    """The source files this compile traced: its frame's and those its FX graphs name."""
    files = {record.filename}
    for graph in record.graphs:
        files.update(_GRAPH_FILE.findall(graph))
    return files
