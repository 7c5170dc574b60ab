"""Inductor's graph partitions read into a compile's CUDA-graph outcome, and the total.

No CPU run makes torch report partitions (``Scheduler._log_graph_partitions`` returns
for a graph without a GPU device). The lines below are made with the format strings of
torch's own source, read from the installed torch (so a torch that words them otherwise
fails here first), filled as an H200 filled them for a CUDA input and a CPU input
(``tests/gpu/test_cudagraphs_gpu.py`` checks the same on a live GPU).
"""

from __future__ import annotations

import inspect
import logging

import pytest
from torch._inductor.scheduler import Scheduler

from nbcompile.core import torch_compat
from nbcompile.core.notebook.cudagraphs import partitions as cudagraph_partitions
from nbcompile.core.notebook.cudagraphs.outcome import outcome, total
from nbcompile.core.notebook.cudagraphs.partitions import read
from nbcompile.core.records import CompileRecord
from tests.support import torch_source

CELL = "<ipython-input-5-0a1b2c3d>"
CREATED = "Created %d graph partitions: %d cudagraphable, %d non-cudagraphable"
PARTITION = "  Partition %d: %d nodes, %s, inputs=%d, outputs=%d"
NODE, STACK = "    %s: %s", "         %s"


def _line(fmt: str, *args: object) -> str:
    """A line as torch's logger makes it (``log.debug(fmt, *args)``)."""
    return logging.LogRecord(cudagraph_partitions.LOGGER, logging.DEBUG, "", 0, fmt, args,
                             None).getMessage()


def test_the_formats_are_torchs():
    if not hasattr(Scheduler, "_log_graph_partitions"):  # torch 2.9: no report to read
        assert not torch_compat.scheduler_logs_partitions()
        note = cudagraph_partitions.unknown_note(torch_compat.torch_release())
        assert f"not known on torch {torch_source.release()}" in note
        return
    assert torch_compat.scheduler_logs_partitions()
    source = inspect.getsource(Scheduler._log_graph_partitions)
    for fmt in (CREATED, PARTITION):
        assert f'"{fmt}"' in source
    node = inspect.getsource(Scheduler._log_non_cudagraphable_node)
    assert f'"{NODE}"' in node and f'"{STACK}"' in node
    assert 'f"{node.get_device()} ops"' in inspect.getsource(Scheduler.should_partition)


def _cpu_op_lines() -> list[str]:
    """A CUDA op and a CPU op: two partitions, the CPU one kept out, with its stack, as
    the H200 printed them (torch 2.11, ``tests/gpu/test_cudagraphs_gpu.py``'s cell)."""
    return [
        _line(CREATED, 2, 1, 1),
        _line(PARTITION, 0, 1, "non-cudagraphable", 1, 1),
        _line(NODE, "op1", "reason=cpu ops, ir=ComputedBuffer, fx=aten.mul.Tensor(arg1_1, 2)"),
        _line(STACK, f'File "{CELL}", line 4, in gcg_cpu'),
        _line(STACK, "    b = y * 2"),
        _line(PARTITION, 1, 1, "cudagraphable", 1, 1),
    ]


def test_a_cpu_op_kept_out_of_cuda_graphs():
    parts = read(["an earlier line", *_cpu_op_lines()], lambda f: 5 if f == CELL else None)
    assert parts is not None and (parts.partitions, parts.cudagraphable) == (2, 1)
    (node,) = parts.outside
    assert (node.node, node.reason, node.fx) == ("op1", "cpu ops", "aten.mul.Tensor(arg1_1, 2)")
    assert node.line is not None and (node.line.filename, node.line.lineno, node.line.line) \
        == (CELL, 4, "b = y * 2")
    assert node.cell == 5
    result = outcome([], counted=False, requested=True, device="cuda", partitions=parts)
    assert result is not None and result.status == "recorded" and result.partitions == parts
    line = total([CompileRecord("0/0", "gcg_cpu", cudagraphs=result)])
    assert line == ("CUDA graphs: 1 of 1 graph runs as a CUDA graph; 1 of 2 graph partitions "
                    "runs outside them: cpu ops (cell [5], line 4: b = y * 2)")
    assert result.to_dict()["partitions"]["outside"][0]["reason"] == "cpu ops"


def test_nothing_left_to_record_is_a_skip_in_torchs_words():
    lines = [_line(CREATED, 1, 0, 1), _line(PARTITION, 0, 1, "non-cudagraphable", 1, 1),
             _line(NODE, "buf0", "reason=cpu ops, ir=ComputedBuffer, fx=mul(arg0_1, 2)")]
    parts = read(lines, lambda f: None)
    result = outcome([], counted=False, requested=True, device="cuda", partitions=parts)
    assert result is not None and result.status == "skipped"
    assert result.reason == "no graph partition can run as a CUDA graph (cpu ops)"
    assert result.line is None  # torch printed no stack for it: none is made up


def test_graphs_add_up_and_no_lines_mean_no_partitions():
    every = read([*_cpu_op_lines(), _line(CREATED, 1, 1, 0),
                  _line(PARTITION, 0, 2, "cudagraphable", 1, 1)], lambda f: None)
    assert every is not None and (every.partitions, every.cudagraphable) == (3, 2)
    assert len(every.outside) == 1
    assert read([], lambda f: None) is None
    assert read(["Partition 0 has 1 kernels, below minimum size 2, skipping cudagraph"],
                lambda f: None) is None


@pytest.mark.parametrize("n", [cudagraph_partitions.MAX_NODES + 5])
def test_nodes_kept_are_bounded(n):
    lines = [_line(CREATED, 1, 0, 1)]
    lines += [_line(NODE, f"buf{i}", f"reason=cpu ops, ir=ComputedBuffer, fx=add(x{i}, 1)")
              for i in range(n)]
    parts = read(lines, lambda f: None)
    assert parts is not None and len(parts.outside) == cudagraph_partitions.MAX_NODES


def test_a_torch_that_reports_no_partitions_is_said_as_not_known():
    note = cudagraph_partitions.unknown_note("2.9")
    assert note.startswith("graph partitions not known on torch 2.9: ")
    assert "not counted" in note
