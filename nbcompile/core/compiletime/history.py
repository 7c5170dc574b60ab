"""This kernel's compiles, as far as cache misses need them: each compile's start, Dynamo
graph, metrics and cache artifacts (torch's key components), heard on the structured trace since
``%load_ext nbcompile``, the newest ``MAX_EVENTS`` kept. Nothing is parsed while torch
compiles: the payloads are kept as torch wrote them and read when someone asks.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .. import torch_compat
from ..trace import log_taps
from ..trace.listener import TRACE_LOGGER
from . import earlier as earlier_keys
from .earlier import SavedFrame
from .record import FrameTime
from .where import records_from_events, where

#: Events kept (a frame compile logs a handful of the kinds kept here).
MAX_EVENTS = 4000
#: Payload characters kept (an FX graph cache artifact lists the whole Inductor config:
#: ~100 kB); past it, the oldest payloads are dropped (their compiles then show no key).
MAX_PAYLOAD_CHARS = 32_000_000
_KINDS = ("str", "dynamo_start", "compilation_metrics", "dynamo_output_graph")


class CacheHistory(logging.Handler):
    """The trace events ``where`` needs to explain this kernel's cache outcomes."""

    def __init__(self, max_events: int = MAX_EVENTS,
                 max_payload_chars: int = MAX_PAYLOAD_CHARS) -> None:
        super().__init__(logging.DEBUG)
        self._events: deque[list[Any]] = deque(maxlen=max_events)
        self._with_payload: deque[list[Any]] = deque()
        self._chars = 0
        self._max_chars = max_payload_chars
        self.count = 0  # events kept since the start (a cursor for ``events_since``)

    @property
    def events(self) -> list[tuple[dict[str, Any], str]]:
        """The events kept, oldest first, as ``(metadata, payload)``."""
        return [(m, p) for m, p, _ in self._events]

    def events_since(self, count: int) -> list[tuple[dict[str, Any], str]]:
        """The events kept after the first ``count`` (``self.count`` then), with every
        string-table event kept before them (later events name files by its index)."""
        return [(m, p) for m, p, n in self._events if n >= count or "str" in m]

    def emit(self, record: logging.LogRecord) -> None:
        metadata = getattr(record, "metadata", None)
        if not isinstance(metadata, dict):
            return
        artifact = metadata.get("artifact")
        name = artifact.get("name", "") if isinstance(artifact, dict) else ""
        if not (any(k in metadata for k in _KINDS) or "_cache_" in name):
            return
        keep = name or "str" in metadata or "dynamo_output_graph" in metadata
        payload = getattr(record, "payload", None) if keep else None
        entry = [dict(metadata), payload if isinstance(payload, str) else "", self.count]
        self._events.append(entry)
        self.count += 1
        if entry[1] and "str" not in metadata:
            self._with_payload.append(entry)
            self._chars += len(entry[1])
            while self._chars > self._max_chars and self._with_payload:
                old = self._with_payload.popleft()
                self._chars -= len(old[1])
                old[1] = ""


_history: CacheHistory | None = None
_unhear: Callable[[], None] | None = None  # out of ``log_taps.hear``


def install() -> CacheHistory:
    """Start hearing this kernel's compiles (idempotent; torch keeps its trace logger at
    DEBUG, not propagating: as for the session's listener, a sink of nbcompile's one
    handler there, ``log_taps.hear``)."""
    global _history, _unhear
    if _history is None:
        _history = CacheHistory()
        _unhear = log_taps.hear(TRACE_LOGGER, _history)
    return _history


def save_cache_keys(keys: earlier_keys.KernelKeys,
                    history: CacheHistory | None = None) -> bool:
    """Save the cache keys of the compiles heard since the last save, for a later kernel
    (nothing heard: nothing parsed or written)."""
    history = history or _history
    if history is None or history.count == keys.cursor:
        return False
    events = history.events_since(keys.cursor)
    keys.cursor = history.count
    return keys.save(records_from_events(events))


def current() -> CacheHistory | None:
    return _history


def uninstall() -> None:
    global _history, _unhear
    if _unhear is not None:
        _unhear()
        _unhear = None
    _history = None


def _spans(fn: Any) -> list[tuple[str, range]]:
    """The code (file, line range) of ``fn``: a function's own, or every ``forward`` in a
    module's tree."""
    import inspect

    import torch

    objects: Iterable[Any] = ([type(m).forward for m in fn.modules()]
                              if isinstance(fn, torch.nn.Module) else [fn])
    spans = []
    for obj in objects:
        obj = inspect.unwrap(torch_compat.orig_callable(obj))
        code = getattr(obj, "__code__", None)
        if code is None:
            continue
        try:
            lines, first = inspect.getsourcelines(obj)
        except (OSError, TypeError):
            lines, first = [""], code.co_firstlineno
        spans.append((code.co_filename, range(first, first + max(len(lines), 1))))
    return spans


def kernel_frames(fn: Any = None, history: CacheHistory | None = None,
                  earlier: Sequence[SavedFrame] | None = None) -> list[FrameTime]:
    """This kernel's frame compiles (of ``fn``'s code, or all), each with its cache layers'
    outcomes and what differed in the key from the previous compile of the frame (in this
    kernel, or else in an earlier kernel of this notebook: ``earlier``, by default what
    the earlier kernels saved when ``%load_ext nbcompile`` installed ``earlier.py``)."""
    history = history or _history
    if history is None:
        return []
    if earlier is None:
        keys = earlier_keys.current()
        earlier = keys.earlier().frames if keys is not None else []
    frames = where(records_from_events(history.events), earlier=earlier).frames
    if fn is None:
        return frames
    own = _target_compiles(fn)
    spans = _spans(fn)
    return [f for f in frames
            if (f.compile_id, f.frame, f.filename, f.lineno) in own
            or any(f.filename == file and f.lineno in lines for file, lines in spans)]


def _target_compiles(fn: Any) -> set[tuple[str, str, str, int]]:
    """The compiles the session attributed to ``fn`` when it is a ``%%compile`` target (a
    module compiled in place compiles nbcompile's entry function, not its ``forward``)."""
    from ..notebook.capture.session import get_session

    target = get_session().find(fn)
    if target is None:
        return set()
    return {(c.compile_id, c.frame, c.filename, c.firstlineno)
            for c in list(target.compiles) + list(getattr(target, "previous_compiles", []))}
