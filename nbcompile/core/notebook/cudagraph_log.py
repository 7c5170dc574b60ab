"""torch's own words about CUDA graphs, per compile (``--mode reduce-overhead``).

Inductor says why it skips CUDA graphs for a graph through one logger
(``torch._inductor.cudagraph_utils``'s ``cudagraphs`` artifact: "skipping cudagraphs due
to mutated inputs (1 instances). Found from: ...") and counts every skip in
``counters["inductor"]["cudagraph_skips"]``; the structured trace carries no reason. While
the capture session runs, a handler on that logger hands each message, with the compile
running when torch logged it (None: logged outside a compile, e.g. at a graph's first
run), to the session, which reads them into that compile's outcome (``cudagraphs.py``,
``CompileRecord.cudagraphs``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from .. import torch_compat
from .torch_logs import current_compile

#: The logger Inductor's CUDA-graph messages go through (artifact ``cudagraphs``).
LOGGER = "torch._inductor.cudagraph_utils.__cudagraphs"

OnMessage = Callable[[str, "tuple[int, int] | None"], None]


def skips() -> int:
    """torch's count of CUDA-graph skips so far."""
    return int(torch_compat.dynamo_counters()["inductor"]["cudagraph_skips"])


class CudagraphLog(logging.Handler):
    """Hands torch's CUDA-graph messages to ``on_message(message, compile key)``."""

    def __init__(self, on_message: OnMessage) -> None:
        super().__init__(logging.DEBUG)
        self.on_message = on_message
        self._logger: logging.Logger | None = None

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage().rstrip()
        except Exception:  # a malformed record is torch's to report
            return
        if message:
            self.on_message(message, current_compile())

    def install(self) -> None:
        if self._logger is None:
            self._logger = logging.getLogger(LOGGER)
            self._logger.addHandler(self)

    def uninstall(self) -> None:
        if self._logger is not None:
            self._logger.removeHandler(self)
            self._logger = None
