"""The one registry of nbcompile's taps on torch's loggers (filters, levels, handlers),
each with its re-arm: run right after torch sets its loggers up anew
(``torch._logging.set_logs`` resets levels, handlers and propagation; heard as it runs,
``torch_compat.on_logs_reset``) and before each cell (``rearm_all``, the fallback on a
torch that cannot be heard so)."""

from __future__ import annotations

from collections.abc import Callable

from ... import torch_compat

_rearms: list[Callable[[], None]] = []
_unheard: list[Callable[[], None]] = []  # the remover of torch's reset, while heard


def add(rearm: Callable[[], None]) -> Callable[[], None]:
    """Register a tap's re-arm (idempotent: it puts the tap back as it should be);
    returns the remover."""
    _rearms.append(rearm)
    # torch's ``_init_logs(log_file_name=None)`` may be given its argument: not ours
    if not _unheard and (unheard := torch_compat.on_logs_reset(
            lambda *_args: rearm_all())) is not None:
        _unheard.append(unheard)

    def remove() -> None:
        if rearm in _rearms:
            _rearms.remove(rearm)
        if not _rearms and _unheard:
            _unheard.pop()()
    return remove


def rearm_all() -> None:
    """Put every registered tap back (after torch reset its loggers, before a cell)."""
    for rearm in list(_rearms):
        try:
            rearm()
        except Exception:  # a capture bug must never break torch's logging
            pass
