"""A private capture of the compiles made while listening: Dynamo's graphs, Inductor's
post-grad graphs, graph breaks and the recompiles caused here. Its listener is private: it
hears compiles made under ``suppressed()`` (runs on copies), which the session does not."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import torch

from ..records import GraphBreak
from ..trace.listener import TraceEvent, TraceListener
from ..trace.parsers import parser_for, post_grad_graph
from ..trace.payloads import parse_graph_break, recompile_failed_versions
from ..trace.stacks import parse_user_stack, without_machinery

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep


class GraphCapture:
    """Graphs (texts, with their ``# File:`` lines), breaks and recompiles of the
    compiles made while listening.

    Recompiles count when they come from the calls made while listening: a guard failed on
    a version compiled while listening, in code that is not torch's own. torch's shared code
    (e.g. ``Optimizer.step``, ``zero_grad``) keeps versions for every object it ran for in
    the session and for every earlier ``torch.compile`` call, so its recompiles depend on
    the session's past, not on the run.
    """

    def __init__(self) -> None:
        self.dynamo: list[str] = []  # Dynamo's graphs
        self.post_grad: list[str] = []  # Inductor's post-grad graphs
        self.breaks: list[GraphBreak] = []
        self._own: set[tuple[int, int]] = set()  # compiled versions made while listening
        self._recompiled: list[int] = []  # frame ids of recompiles caused here
        self._torch_frames: set[int] = set()  # frame ids of code inside torch's package
        self._listener = TraceListener(self._on_event, private=True)

    @property
    def graphs(self) -> int:
        """Dynamo graphs compiled."""
        return len(self.dynamo)

    @property
    def recompiles(self) -> int:
        return sum(1 for frame in self._recompiled if frame not in self._torch_frames)

    def _on_event(self, event: TraceEvent) -> None:
        if event.frame is not None:
            self._own.add(event.frame)
        if event.kind == "dynamo_start" and event.frame is not None:
            stack = event.data.get("stack") if isinstance(event.data, dict) else None
            if stack and isinstance(stack[-1], dict) and _in_torch(
                    self._listener.filename(stack[-1].get("filename"))):
                self._torch_frames.add(event.frame[0])
        if event.kind == "dynamo_output_graph":
            self.dynamo.append(event.payload)
        elif event.artifact_name == "dynamo_graph_break_reason":
            gb = parse_graph_break(event.payload)
            gb.stack, gb.stack_dropped = without_machinery(parse_user_stack(event.payload))
            self.breaks.append(gb)
        elif event.artifact_name == "recompile_reasons":
            if event.frame is not None and self._caused_here(event.payload):
                self._recompiled.append(event.frame[0])
        elif parser_for(event.kind, event.metadata) is post_grad_graph:
            self.post_grad.append(event.payload)  # under each name torch writes it

    def _caused_here(self, payload: str) -> bool:
        """Whether a recompile failed guards of versions compiled while listening."""
        failed = recompile_failed_versions(payload)
        return not failed or any(version in self._own for version in failed)

    @contextlib.contextmanager
    def listening(self) -> Iterator[GraphCapture]:
        with self._listener.listening():
            yield self


def _in_torch(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_TORCH_DIR) if filename else False
