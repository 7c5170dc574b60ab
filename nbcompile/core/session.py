"""The capture session: registered targets, and trace events turned into their records.

Compiles happen lazily, at a target's first call, often cells later. Each Dynamo frame
compile is keyed by ``(frame_id, frame_compile_id)``; its ``dynamo_start`` event carries
the user stack, which names the target (by code span or entry-function filename). The
events that follow are collected into a ``CompileRecord`` and closed by
``compilation_metrics``, which arrives last.
"""

from __future__ import annotations

import ast
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from . import codegen
from .capture import TraceEvent, TraceListener
from .phases import compile_phases
from .records import CompileRecord, SourceLine, TargetError
from .targets import Target
from .tracefmt import (
    explain_guard,
    parse_dynamo_message,
    parse_graph_break,
    source_line,
    split_recompile_reasons,
)
from .userstack import parse_user_stack

Listener = Callable[[Target], None]


@dataclass
class _Pending:
    """Events of one frame compile, collected until ``compilation_metrics``."""

    key: tuple[int, int]
    target: Target | None
    record: CompileRecord
    recompile_reasons: list[str] = field(default_factory=list)
    error_stack: list[SourceLine] = field(default_factory=list)  # of a failed compile


class CaptureSession:
    """Targets of one kernel and the capture that fills their records."""

    def __init__(self) -> None:
        self.targets: list[Target] = []
        self._listeners: list[Listener] = []
        self._pending: dict[tuple[int, int], _Pending] = {}
        self._done: dict[tuple[int, int], _Pending] = {}
        self._early: dict[tuple[int, int], list[TraceEvent]] = {}
        self._lock = threading.RLock()
        self.listener = TraceListener(self._on_event)
        self._saved_provenance: int | None = None

    # --- lifecycle ---
    def start(self) -> None:
        """Listen to the trace; turn on Inductor's kernel provenance tracking.

        Provenance tracking (``trace.provenance_tracking_level``, not part of the FX
        graph cache key) makes Inductor name the source lines of every kernel, which
        ties C++ kernels to cell lines exactly. The previous value comes back on stop.
        """
        self.listener.install()
        config = torch._inductor.config.trace
        if self._saved_provenance is None and config.provenance_tracking_level == 0:
            self._saved_provenance = config.provenance_tracking_level
            config.provenance_tracking_level = 1

    def stop(self) -> None:
        self.listener.uninstall()
        if self._saved_provenance is not None:
            torch._inductor.config.trace.provenance_tracking_level = self._saved_provenance
            self._saved_provenance = None

    # --- targets ---
    def register(self, target: Target) -> None:
        with self._lock:
            replaced = [t for t in self.targets if t.name == target.name and t is not target]
            if replaced and not target.previous_compiles:  # code diffs across cell re-runs
                target.previous_compiles = list(replaced[-1].compiles
                                                or replaced[-1].previous_compiles)
            self.targets = [t for t in self.targets if t.name != target.name or t is target]
            self.targets.append(target)

    def find(self, obj: Any) -> Target | None:
        with self._lock:
            for target in reversed(self.targets):
                if target.matches(obj):
                    return target
        return None

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _notify(self, target: Target) -> None:
        for listener in list(self._listeners):
            try:
                listener(target)
            except Exception:  # a broken display must not break compiles
                pass

    # --- attribution ---
    def target_for_stack(self, stack: list[dict[str, Any]]) -> Target | None:
        """The target owning the innermost frame of ``stack`` that any target owns."""
        candidates: list[Target] | None = None
        for entry in reversed(stack):
            filename = self.listener.filename(entry.get("filename"))
            owners = [t for t in self.targets if t.owns_frame(filename, entry.get("line", 0))]
            if candidates is not None:
                narrowed = [t for t in owners if t in candidates]
                if narrowed:
                    return narrowed[-1]
                continue
            if len(owners) == 1:
                return owners[0]
            if owners:
                candidates = owners  # e.g. one class forward shared by two module targets
        return candidates[-1] if candidates else None

    # --- events ---
    def _on_event(self, event: TraceEvent) -> None:
        with self._lock:
            self._handle(event)

    def _handle(self, event: TraceEvent) -> None:
        key = event.frame
        if key is None:
            return
        if event.kind == "dynamo_start":
            self._begin(key, event)
            return
        pending = self._pending.get(key)
        if pending is None:
            late = self._done.get(key)
            if late is not None and late.target is not None:
                self._late_event(late, event)  # e.g. the backward graph, compiled later
            elif key not in self._done:
                self._early.setdefault(key, []).append(event)  # before dynamo_start
            return
        self._collect(pending, event)

    def _begin(self, key: tuple[int, int], event: TraceEvent) -> None:
        stack = event.data.get("stack", []) if isinstance(event.data, dict) else []
        target = self.target_for_stack(stack)
        innermost = stack[-1] if stack else {}
        record = CompileRecord(
            compile_id=f"{key[0]}/{key[1]}",
            frame=innermost.get("name", ""),
            filename=self.listener.filename(innermost.get("filename")),
            firstlineno=innermost.get("line", 0),
            started_at=time.time(),
        )
        pending = _Pending(key, target, record)
        self._pending[key] = pending
        self._done.pop(key, None)
        for early in self._early.pop(key, []):
            self._collect(pending, early)
        if target is not None:
            target.start_compile()
            self._notify(target)

    def _collect(self, pending: _Pending, event: TraceEvent) -> None:
        record = pending.record
        if event.kind == "artifact":
            name = event.artifact_name
            if name == "dynamo_graph_break_reason":
                record.graph_breaks.append(parse_graph_break(event.payload, record.compile_id))
                record.graph_breaks[-1].stack = parse_user_stack(event.payload)
            elif name == "dynamo_error":  # a failed compile: its user stack
                pending.error_stack = parse_user_stack(event.payload)
            elif name == "recompile_reasons":
                pending.recompile_reasons.extend(split_recompile_reasons(event.payload))
            elif name.endswith("_cache_hit") or name.endswith("_cache_miss"):
                record.cache[name] = record.cache.get(name, 0) + 1
            elif name == "inductor_post_grad_graph":  # codegen maps kernels to lines
                record.post_grad_graphs.append(event.payload)
            elif name == PROVENANCE_ARTIFACT:
                _apply_provenance(record, event.payload)
        elif event.kind == "inductor_post_grad_graph":  # this form on FX-cache hits
            record.post_grad_graphs.append(event.payload)
        elif event.kind == "dynamo_output_graph":
            record.graphs.append(event.payload)
        elif event.kind == "dynamo_cpp_guards_str":
            record.guards = event.payload
        elif event.kind == "inductor_output_code":
            self._add_output_code(record, event)
        elif event.kind == "compilation_metrics":
            self._finish(pending, event.data if isinstance(event.data, dict) else {})

    def _add_output_code(self, record: CompileRecord, event: TraceEvent) -> None:
        sep = "\n\n" if record.output_code else ""
        record.output_code += sep + event.payload
        if isinstance(event.data, dict):
            record.output_code_path = event.data.get("file_path") or event.data.get("filename", "")
        post_grad = record.post_grad_graphs[-1] if record.post_grad_graphs else None
        record.kernels.extend(codegen.split_kernels(event.payload, record.graphs,
                                                    compile_id=record.compile_id,
                                                    post_grad_graph=post_grad))

    def _late_event(self, done: _Pending, event: TraceEvent) -> None:
        if "inductor_post_grad_graph" in (event.kind, event.artifact_name):
            done.record.post_grad_graphs.append(event.payload)  # e.g. the backward's
        if event.kind == "inductor_output_code":
            self._add_output_code(done.record, event)
            assert done.target is not None
            self._notify(done.target)
        elif event.artifact_name == PROVENANCE_ARTIFACT:
            _apply_provenance(done.record, event.payload)
            assert done.target is not None
            self._notify(done.target)

    def _finish(self, pending: _Pending, metrics: dict[str, Any]) -> None:
        del self._pending[pending.key]
        self._done[pending.key] = pending
        record = pending.record
        record.frame = metrics.get("co_name") or record.frame
        record.filename = metrics.get("co_filename") or record.filename
        record.firstlineno = metrics.get("co_firstlineno") or record.firstlineno
        record.graph_op_count = metrics.get("graph_op_count") or 0
        record.recompile_limit = _config_value(metrics.get("dynamo_config"), "recompile_limit")
        reasons = pending.recompile_reasons or _as_list(metrics.get("recompile_reason"))
        record.recompile_reason = "; ".join(explain_guard(r) for r in reasons)
        record.recompile_guard = "; ".join(reasons)
        record.times = {
            k.removesuffix("_time_s") + "_s" if k != "entire_frame_compile_time_s" else "total_s":
            float(v)
            for k, v in metrics.items()
            if k.endswith("_time_s") and isinstance(v, (int, float))
        }
        record.times.setdefault("total_s", round(time.time() - record.started_at, 4))
        record.phases, record.guard_latency_s = compile_phases(metrics)
        target = pending.target
        fail_type = metrics.get("fail_type")
        if fail_type:
            record.status = "failed"
            record.error = f"{fail_type}: {metrics.get('fail_reason') or ''}".strip()
            if target is not None:
                filename = metrics.get("fail_user_frame_filename")
                lineno = metrics.get("fail_user_frame_lineno")
                message = parse_dynamo_message(str(metrics.get("fail_reason") or fail_type))
                target.error = TargetError(
                    type=str(fail_type).rsplit(".", 1)[-1].strip("'>"),
                    message=message.summary,
                    hint="\n".join(message.hints),
                    filename=filename,
                    lineno=lineno,
                    line=source_line(filename, lineno),
                    stack=pending.error_stack,
                )
        if target is not None:
            target.finish_compile(record)
            self._notify(target)


PROVENANCE_ARTIFACT = "inductor_provenance_tracking_kernel_stack_traces"


def _apply_provenance(record: CompileRecord, payload: str) -> None:
    try:
        traces = json.loads(payload)
    except ValueError:
        return
    if isinstance(traces, dict):
        codegen.apply_provenance(record.kernels, traces)


def _config_value(config_json: Any, key: str) -> int:
    """An int from the JSON config snapshot ``compilation_metrics`` carries (0 if absent)."""
    try:
        value = json.loads(config_json).get(key) if isinstance(config_json, str) else None
    except ValueError:
        return 0
    return value if isinstance(value, int) else 0


def _as_list(value: Any) -> list[str]:
    if not value:
        return []
    if isinstance(value, str):
        try:
            parsed = ast.literal_eval(value)
            if isinstance(parsed, list):
                return [str(v) for v in parsed]
        except (ValueError, SyntaxError):
            pass
        return [value]
    return [str(v) for v in value]


_session: CaptureSession | None = None


def get_session() -> CaptureSession:
    """The process-wide capture session (created on first use, not started)."""
    global _session
    if _session is None:
        _session = CaptureSession()
    return _session
