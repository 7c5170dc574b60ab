"""torch's own words about CUDA graphs, per compile (``--mode reduce-overhead``), and the
one tap per torch CUDA-graph logger through which nbcompile hears them without printing
anything new (``listen``; ``DebugLines`` for the DEBUG lines).

Inductor says why it skips CUDA graphs for a graph through one logger
(``torch._inductor.cudagraph_utils``'s ``cudagraphs`` artifact: "skipping cudagraphs due
to mutated inputs (1 instances). Found from: ...") and counts every skip in
``counters["inductor"]["cudagraph_skips"]``; the structured trace carries no reason. While
the capture session runs, a listener on that logger hands each message, with the compile
running when torch logged it (None: logged outside a compile, e.g. at a graph's first
run), to the session, which reads them into that compile's outcome (``outcome.py``,
``CompileRecord.cudagraphs``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from ... import torch_compat
from ...trace import log_taps
from ..capture.torch_logs import current_compile

#: The logger Inductor's CUDA-graph messages go through (artifact ``cudagraphs``).
LOGGER = "torch._inductor.cudagraph_utils.__cudagraphs"
#: Where torch 2.9 wrote them (``cudagraph_utils.perf_hint_log``, artifact ``perf_hints``:
#: skips, the re-record limit, too many distinct sizes), heard as well.
LOGGERS = (LOGGER, "torch._inductor.cudagraph_utils.__perf_hints")

OnMessage = Callable[[str, "tuple[int, int] | None"], None]


def skips() -> int:
    """torch's count of CUDA-graph skips so far."""
    return int(torch_compat.dynamo_counters()["inductor"]["cudagraph_skips"])


class CudagraphLog:
    """Hands torch's CUDA-graph messages to ``on_message(message, compile key)``: a
    listener on the one tap of each of ``LOGGERS`` (``listen``), so a user's quieter
    ``set_logs`` (``inductor=logging.ERROR``) does not hide them."""

    def __init__(self, on_message: OnMessage) -> None:
        self.on_message = on_message
        self._removers: list[Callable[[], None]] = []

    def _hear(self, record: logging.LogRecord) -> None:
        message = record.getMessage().rstrip()
        if message:
            self.on_message(message, current_compile())

    def install(self) -> None:
        if not self._removers:
            self._removers = [listen(name, self._hear, logging.WARNING) for name in LOGGERS]

    def uninstall(self) -> None:
        for remove in self._removers:
            remove()
        self._removers = []


def _user_enabled() -> bool:
    """Whether the user turned torch's ``cudagraphs`` artifact on (``TORCH_LOGS``,
    ``torch._logging.set_logs``): then torch prints every line, as without nbcompile."""
    return torch_compat.log_artifact_enabled("cudagraphs")


class _Tap(logging.Filter):
    """The one filter nbcompile puts on one of torch's CUDA-graph loggers: the logger's
    level lowered to the lowest its listeners need (torch writes a line only when its
    logger is enabled for it), each record to every listener, and to handlers only what
    they got before the level was lowered (or all, when the user turned the artifact on):
    nothing new on stderr. Re-armed when torch resets its loggers (``log_taps``)."""

    def __init__(self, logger: str) -> None:
        super().__init__("nbcompile.cudagraphs")
        self.logger_name = logger
        self.listeners: list[tuple[Callable[[logging.LogRecord], None], int]] = []
        self._logger: logging.Logger | None = None
        self._level = logging.NOTSET  # the logger's own level before it was lowered
        self._set: int | None = None  # the level this tap set (None: left as it was)
        self._untap: Callable[[], None] | None = None  # out of ``log_taps``

    def filter(self, record: logging.LogRecord) -> bool:
        for listener, level in list(self.listeners):
            if record.levelno >= level:
                try:
                    listener(record)
                except Exception:  # a capture bug must never break torch
                    pass
        return record.levelno >= self._shown_from() or _user_enabled()

    def _shown_from(self) -> int:
        """The level the logger would have without nbcompile (its own, else its parent's)."""
        if self._level != logging.NOTSET or self._logger is None:
            return self._level
        parent = self._logger.parent
        return parent.getEffectiveLevel() if parent is not None else logging.WARNING

    def _wanted(self) -> int:
        return min((level for _, level in self.listeners), default=logging.WARNING)

    def install(self) -> None:
        """Put the filter on (once) and the level down (again, if the user reset it;
        torch's ``set_logs`` does, and is heard: ``log_taps``)."""
        logger = logging.getLogger(self.logger_name)
        if self._logger is None:
            logger.addFilter(self)
            self._logger = logger
            self._level = logger.level  # already low: the user's choice, all shown
            self._untap = log_taps.add(self._rearm, self)
        wanted = self._wanted()
        if logger.level == logging.NOTSET or logger.level > wanted:
            if logger.level != self._set:  # the user's (or torch's reset), not ours
                self._level = logger.level
            logger.setLevel(wanted)
            self._set = wanted

    def _rearm(self) -> None:
        if self._logger is not None:
            self.install()

    def uninstall(self) -> None:
        if self._untap is not None:
            self._untap()
            self._untap = None
        if self._logger is not None:
            self._logger.removeFilter(self)
            if self._set is not None and self._logger.level == self._set:
                self._logger.setLevel(self._level)
            self._logger = None
            self._set = None


_taps: dict[str, _Tap] = {}


def listen(logger: str, listener: Callable[[logging.LogRecord], None],
           level: int = logging.DEBUG) -> Callable[[], None]:
    """Hear every record of ``level`` or above on torch's ``logger`` (its one tap, shared
    by every listener); returns the remover (the last one takes the tap off)."""
    tap = _taps.get(logger)
    if tap is None:
        tap = _taps[logger] = _Tap(logger)
    entry = (listener, level)
    tap.listeners.append(entry)
    tap.install()

    def remove() -> None:
        if entry in tap.listeners:
            tap.listeners.remove(entry)
        if not tap.listeners and _taps.get(logger) is tap:
            tap.uninstall()
            del _taps[logger]
    return remove


class DebugLines:
    """Each line of one of torch's ``cudagraphs`` loggers at DEBUG and above to
    ``on_line`` while installed (``listen``): the tree manager's lines (``per_call.py``) and
    Inductor's graph partitions (``channel.py``), which torch writes only when its logger
    is enabled for DEBUG; nothing new printed."""

    def __init__(self, logger: str, on_line: Callable[[str], None]) -> None:
        self.logger_name = logger
        self.on_line = on_line
        self._remove: Callable[[], None] | None = None

    def install(self) -> None:
        """Listen (once); the level put down again if the user reset it."""
        if self._remove is None:
            self._remove = listen(self.logger_name, lambda r: self.on_line(r.getMessage()))
        elif (tap := _taps.get(self.logger_name)) is not None:
            tap.install()

    def uninstall(self) -> None:
        if self._remove is not None:
            self._remove()
            self._remove = None
