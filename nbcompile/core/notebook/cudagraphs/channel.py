"""The side channel of torch's CUDA-graph messages (``log.py`` hears them):
each kept for the compile running when torch logged it, else for the latest compile of
the innermost target whose call is running (torch decides some skips at a graph's first
run, outside any compile); a finished compile's outcome read from its messages, the
skip count torch added during it and, on a CUDA machine, the graph partitions Inductor's
scheduler reported at DEBUG while it compiled (``partitions.py``; its logger is
lowered only once a compile asks for CUDA graphs there, and prints nothing new)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from ... import torch_compat
from ...records import CompileRecord
from ...trace.builder import Fed
from ...trace.compile_id import CompileId
from ..capture.attribution import Attribution, Key
from ..capture.channels import Notes, SideChannel
from ..capture.torch_logs import current_compile
from ..targets import running as calls
from ..targets.target_state import Target
from . import log as cudagraph_log
from . import outcome as cudagraphs
from . import partitions as cudagraph_partitions
from .per_call import cuda_available

#: Partition lines kept per compile (bounded: a huge graph's stacks say the same).
_MAX_LINES = 2000


class CudagraphChannel(SideChannel):
    """torch's CUDA-graph messages and skip counts, per compile."""

    def __init__(self, attribution: Attribution, notify: Callable[[Target], None],
                 lock: threading.RLock) -> None:
        self._attribution = attribution
        self._notify = notify
        self._lock = lock  # the session's: messages come on torch's threads too
        self._log = cudagraph_log.CudagraphLog(self._on_message)
        self._messages: dict[Key, list[str]] = {}  # compiles still running
        self._skips_at: dict[Key, int] = {}  # torch's skip count when each started
        self._partition_lines: dict[Key, list[str]] = {}  # compiles still running
        self._partitions = cudagraph_log.DebugLines(cudagraph_partitions.LOGGER,
                                                    self._on_partition_line)
        self._cuda: bool | None = None

    def start(self) -> None:
        self._log.install()

    def stop(self) -> None:
        self._log.uninstall()
        self._partitions.uninstall()

    def compile_started(self, key: Key, owners: list[Target]) -> None:
        self._skips_at[key] = cudagraph_log.skips()
        self._messages.setdefault(key, [])
        if not any(cudagraphs.asked_for(t.options) for t in owners):
            return
        if self._cuda is None:
            self._cuda = cuda_available()
        if self._cuda:
            self._partition_lines.setdefault(key, [])
            self._partitions.install()

    def compile_finished(self, key: Key, fed: Fed, record: CompileRecord,
                         owners: list[Target]) -> Notes:
        messages = self._messages.pop(key, [])
        started = self._skips_at.pop(key, None)
        counted = started is not None and cudagraph_log.skips() > started
        partitions = cudagraph_partitions.read(self._partition_lines.pop(key, []),
                                               cudagraphs.cells_of(owners))
        record.cudagraphs = cudagraphs.of_compile(record, messages, counted, owners,
                                                  partitions)
        if not self._cuda:
            return {}
        asking = [t for t in owners if cudagraphs.asked_for(t.options)]
        notes: Notes = {t.id: [cudagraphs.NON_TREE] for t in asking
                        if not cudagraphs.trees_on(t.options)}
        if asking and not torch_compat.scheduler_logs_partitions():
            unknown = cudagraph_partitions.unknown_note(torch_compat.torch_release())
            for t in asking:
                notes.setdefault(t.id, []).append(unknown)
        return notes

    def _on_partition_line(self, message: str) -> None:
        key = current_compile()
        with self._lock:
            lines = self._partition_lines.get(key) if key is not None else None
            if lines is not None and len(lines) < _MAX_LINES:
                lines.append(message)

    def _on_message(self, message: str, key: Key | None) -> None:
        with self._lock:
            if key is not None and key in self._messages:
                if message not in self._messages[key]:
                    self._messages[key].append(message)
                return
            targets = self._attribution.owners(key) if key is not None else []
            if not targets:
                targets = [c.target for c in calls.running()[-1:]]
            for target in targets:
                record = next((c for c in reversed(target.compiles)
                               if key is None or _key_of(c.compile_id) == key), None)
                if record is not None and cudagraphs.is_new(record.cudagraphs, message):
                    record.cudagraphs = cudagraphs.with_message(
                        record.cudagraphs, message, cudagraphs.cells_of([target]))
                    self._notify(target)


def _key_of(compile_id: str) -> Key | None:
    parsed = CompileId.parse(compile_id)
    return parsed.key if parsed is not None else None
