"""torch's own warnings about captured compiles: kept in the record, not on stderr.

torch logs warnings about compiles (a graph break's ``Tensor.item()`` advice, a hit
``recompile_limit``) through stderr handlers on its component loggers (``torch._dynamo``,
``torch._inductor``...; ``propagate=False``). While nbcompile is loaded, a
``logging.Filter`` on those handlers takes the warnings torch prints by default that are
emitted during a compile the capture session attributes to a target: they go to
``Target.torch_logs`` (shown once, folded, in the summary) instead of stderr.

What the user turned on (``TORCH_LOGS``, ``torch._logging.set_logs``: an artifact such as
``recompiles`` or ``output_code``, a component's INFO or DEBUG records) is never taken:
torch prints it as without nbcompile (``user_asked``). Records of other compiles, records
outside compiles and every other logger pass through untouched too; a target compiled
with ``--torch-logs`` (``Target.show_torch_logs``), or ``SHOW_ALL``
(``NBCOMPILE_TORCH_LOGS=show``, ``%nbcompile torch-logs show``), keeps torch's output as it
was. ``set_logs`` replaces torch's handlers: ``install()`` again puts the filter on the new
ones (a tap of ``log_taps``: right after ``set_logs``, and before each cell);
``uninstall()`` removes the filter from exactly the handlers it was added to.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

from ... import torch_compat
from ...records import TorchLog
from ...trace import log_taps
from ...units import clip

#: The torch loggers whose handlers are filtered (compile-time components).
LOGGERS = (
    *torch_compat.TORCH_LOGGERS,
    "torch",  # records of submodules without a handler of their own end here
)
#: Loggers that carry data, not messages (the structured trace nbcompile itself reads).
_NOT_LOGS = frozenset({"torch.__trace"})
ENV = "NBCOMPILE_TORCH_LOGS"
#: A setting: ``True`` keeps torch's output on stderr for every target.
SHOW_ALL = os.environ.get(ENV, "").strip().lower() in {"show", "1", "on", "true"}
#: At most this many records kept per target (a recompile storm logs on every compile),
#: each cut to ``MAX_CHARS``.
LIMIT = 50
MAX_CHARS = 4000

OwnerLookup = Callable[[int, int], Any]


def current_compile() -> tuple[int, int] | None:
    """``(frame_id, frame_compile_id)`` of the Dynamo compile running now, if any."""
    cid = torch_compat.current_compile_id()
    if cid is None or cid.frame_id is None or cid.frame_compile_id is None:
        return None
    return (cid.frame_id, cid.frame_compile_id)


class TorchLogCapture(logging.Filter):
    """Takes records of compiles a target owns (``owner_of(frame, compile)``)."""

    def __init__(self, owner_of: OwnerLookup) -> None:
        super().__init__("nbcompile")
        self.owner_of = owner_of

    def filter(self, record: logging.LogRecord) -> bool:
        if (SHOW_ALL or not record.name.startswith("torch") or record.name in _NOT_LOGS
                or user_asked(record)):
            return True
        key = current_compile()
        target = self.owner_of(*key) if key else None
        if target is None or getattr(target, "show_torch_logs", False):
            return True
        try:
            message = record.getMessage()
        except Exception:  # a malformed record is torch's to report
            return True
        log = TorchLog(level=record.levelname, logger=record.name,
                       compile_id=f"{key[0]}/{key[1]}" if key else "",
                       message=_cut(message.rstrip()))
        logs: list[TorchLog] = target.torch_logs
        if all(old.message != log.message for old in logs) and len(logs) < LIMIT:
            logs.append(log)
        return False


class TorchLogRouting:
    """Installs a ``TorchLogCapture`` on torch's compile loggers' handlers; undoes it."""

    def __init__(self, owner_of: OwnerLookup) -> None:
        self.capture = TorchLogCapture(owner_of)
        self._handlers: list[logging.Handler] = []
        self._untap: Callable[[], None] | None = None  # out of ``log_taps``

    @property
    def installed(self) -> bool:
        return bool(self._handlers)

    def install(self) -> None:
        """Put the filter on the compile loggers' handlers; again after
        ``torch._logging.set_logs`` replaced them (the replaced ones are let go)."""
        torch_compat.import_torch_logging()  # torch sets up its handlers on import
        if self._untap is None:
            self._untap = log_taps.add(self.install, self.capture)
        current = [h for name in LOGGERS for h in logging.getLogger(name).handlers]
        for handler in [h for h in self._handlers if h not in current]:
            handler.removeFilter(self.capture)
            self._handlers.remove(handler)
        for handler in current:
            if handler not in self._handlers and self.capture not in handler.filters:
                handler.addFilter(self.capture)
                self._handlers.append(handler)

    def uninstall(self) -> None:
        if self._untap is not None:
            self._untap()
            self._untap = None
        for handler in self._handlers:
            handler.removeFilter(self.capture)
        self._handlers = []


def user_asked(record: logging.LogRecord) -> bool:
    """Whether torch printed ``record`` because the user turned it on: a record below
    WARNING (torch's loggers print WARNING and above unless ``TORCH_LOGS``/``set_logs``
    lowers a level) or one of an artifact logger (``torch._dynamo.guards.__recompiles``,
    ``torch._inductor.codecache.__output_code``: named outputs the user enables by name)."""
    return record.levelno < logging.WARNING or ".__" in record.name


def _cut(text: str) -> str:
    return clip(text, MAX_CHARS, f"\n... cut here, {len(text) - MAX_CHARS} more characters")
