"""torch's own words about CUDA graphs, per compile (``--mode reduce-overhead``), and the
way nbcompile hears torch's DEBUG lines about them without printing anything new
(``DebugLines``).

Inductor says why it skips CUDA graphs for a graph through one logger
(``torch._inductor.cudagraph_utils``'s ``cudagraphs`` artifact: "skipping cudagraphs due
to mutated inputs (1 instances). Found from: ...") and counts every skip in
``counters["inductor"]["cudagraph_skips"]``; the structured trace carries no reason. While
the capture session runs, a handler on that logger hands each message, with the compile
running when torch logged it (None: logged outside a compile, e.g. at a graph's first
run), to the session, which reads them into that compile's outcome (``outcome.py``,
``CompileRecord.cudagraphs``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from ... import torch_compat
from ..capture import log_taps
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


class CudagraphLog(logging.Handler):
    """Hands torch's CUDA-graph messages to ``on_message(message, compile key)``."""

    def __init__(self, on_message: OnMessage) -> None:
        super().__init__(logging.DEBUG)
        self.on_message = on_message
        self._loggers: list[logging.Logger] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage().rstrip()
        except Exception:  # a malformed record is torch's to report
            return
        if message:
            self.on_message(message, current_compile())

    def install(self) -> None:
        if not self._loggers:
            self._loggers = [logging.getLogger(name) for name in LOGGERS]
            for logger in self._loggers:
                logger.addHandler(self)

    def uninstall(self) -> None:
        for logger in self._loggers:
            logger.removeHandler(self)
        self._loggers = []


def _user_enabled() -> bool:
    """Whether the user turned torch's ``cudagraphs`` artifact on (``TORCH_LOGS``,
    ``torch._logging.set_logs``): then torch prints every line, as without nbcompile."""
    return torch_compat.log_artifact_enabled("cudagraphs")


class DebugLines(logging.Filter):
    """On one of torch's ``cudagraphs`` loggers, lowered to DEBUG while installed: each
    line to ``on_line``; to handlers only what they got before the level was lowered (or
    all, when the user turned the artifact on). Used for the tree manager's lines
    (``calls.py``) and Inductor's graph partitions (``channel.py``):
    torch writes them only when its logger is enabled for DEBUG."""

    def __init__(self, logger: str, on_line: Callable[[str], None]) -> None:
        super().__init__("nbcompile.cudagraphs")
        self.logger_name = logger
        self.on_line = on_line
        self._logger: logging.Logger | None = None
        self._level = logging.NOTSET  # the logger's own level before it was lowered
        self._untap: Callable[[], None] | None = None  # out of ``log_taps``

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            self.on_line(record.getMessage())
        except Exception:  # a capture bug must never break torch
            pass
        return record.levelno >= self._shown_from() or _user_enabled()

    def _shown_from(self) -> int:
        """The level the logger would have without nbcompile (its own, else its parent's)."""
        if self._level != logging.NOTSET or self._logger is None:
            return self._level
        parent = self._logger.parent
        return parent.getEffectiveLevel() if parent is not None else logging.WARNING

    def install(self) -> None:
        """Put the filter on (once) and the level at DEBUG (again, if the user reset it;
        torch's ``set_logs`` does, and is heard: ``log_taps``)."""
        logger = logging.getLogger(self.logger_name)
        if self._logger is None:
            logger.addFilter(self)
            self._logger = logger
            self._level = logger.level  # DEBUG already: the user's choice, all shown
            self._untap = log_taps.add(self._rearm)
        if logger.level != logging.DEBUG:
            self._level = logger.level
            logger.setLevel(logging.DEBUG)

    def _rearm(self) -> None:
        if self._logger is not None:
            self.install()

    def uninstall(self) -> None:
        if self._untap is not None:
            self._untap()
            self._untap = None
        if self._logger is not None:
            self._logger.removeFilter(self)
            if self._logger.level == logging.DEBUG:
                self._logger.setLevel(self._level)
            self._logger = None
