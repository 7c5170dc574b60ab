"""Inductor's graph partitions around what CUDA graphs cannot capture, in torch's words.

With graph partitioning (``torch._inductor.config.graph_partition``, on by default since
torch 2.9), Inductor does not skip CUDA graphs for a graph with, say, a CPU op: it splits
the graph, CUDA-graph trees record the partitions that can be captured and the others run
outside them, with no skip said or counted. torch tells of the split only on its
scheduler's ``cudagraphs`` logger, at DEBUG, while it schedules a graph with a GPU device
(``Scheduler._log_graph_partitions``; nothing on an FX-graph cache hit, when no
scheduler runs)::

    Created 2 graph partitions: 1 cudagraphable, 1 non-cudagraphable
      Partition 0: 1 nodes, cudagraphable, inputs=1, outputs=1
      Partition 1: 1 nodes, non-cudagraphable, inputs=1, outputs=1
        buf1: reason=cpu ops, ir=ComputedBuffer, fx=mul(arg1_1, 2)
             File "<ipython-input-5-...>", line 4, in f
               b = y * 2

``channel.py`` hears those lines per compile (``log.DebugLines``);
``read`` turns them into a ``CudagraphPartitions``. Pure: no torch.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from ...records import CudagraphPartitionNode, CudagraphPartitions
from .outcome import stack_line

#: The scheduler's ``cudagraphs`` logger (``torch._inductor.scheduler``, artifact).
LOGGER = "torch._inductor.scheduler.__cudagraphs"
#: Nodes kept per compile (a graph of thousands of CPU ops says the same many times).
MAX_NODES = 50

_CREATED = re.compile(r"^Created (?P<n>\d+) graph partitions: (?P<ok>\d+) cudagraphable, "
                      r"(?P<no>\d+) non-cudagraphable")
_PARTITION = re.compile(r"^\s*Partition \d+: \d+ nodes, ")
_NODE = re.compile(r"^\s*(?P<node>[^\s:]+): reason=(?P<reason>.*?), ir=[^,]*"
                   r"(?:, fx=(?P<fx>.*))?$")

CellOf = Callable[[str], "int | None"]


def unknown_note(release: str) -> str:
    """Said of a CUDA-graph target on a torch whose scheduler reports no partitions."""
    return (f"graph partitions not known on torch {release}: its scheduler does not report "
            "them (only a perf hint that it split a graph, with no counts), so an op kept "
            "outside CUDA graphs (a CPU op, say) is not counted in the CUDA-graph total")


def is_partition_line(message: str) -> bool:
    """Whether ``message`` begins torch's report of a graph's partitions."""
    return _CREATED.match(message.strip()) is not None


def read(lines: Iterable[str], cell_of: CellOf) -> CudagraphPartitions | None:
    """The partitions torch reported in ``lines`` (one compile's, in order; several
    graphs add up), each node it kept out of CUDA graphs with its reason, FX node and the
    user's line of its stack; None when torch reported none."""
    result: CudagraphPartitions | None = None
    node: CudagraphPartitionNode | None = None
    stack: list[str] = []

    def close() -> None:
        if node is not None and stack:
            node.line = stack_line("\n".join(stack))
            node.cell = cell_of(node.line.filename) if node.line is not None else None

    for raw in lines:
        text = raw.rstrip()
        if m := _CREATED.match(text.strip()):
            close()
            node, stack = None, []
            result = result or CudagraphPartitions(0, 0)
            result.partitions += int(m.group("n"))
            result.cudagraphable += int(m.group("ok"))
        elif result is None:
            continue
        elif _PARTITION.match(text):
            close()
            node, stack = None, []
        elif m := _NODE.match(text):
            close()
            node, stack = None, []
            if len(result.outside) < MAX_NODES:
                node = CudagraphPartitionNode(m.group("node"), m.group("reason").strip(),
                                              (m.group("fx") or "").strip())
                result.outside.append(node)
        elif node is not None and text.strip():
            stack.append(text)  # the node's stack trace, a line per message
    close()
    return result

