"""The one registry of nbcompile's taps on torch's loggers, and nbcompile's one handler on
each logger it hears.

A tap is what nbcompile puts on a torch logger: a sink hearing its records (``hear``: every
sink of one logger served by one ``Fanout``, the only handler nbcompile adds to that
logger), a filter on the logger (``filtering``), or a filter or level put in place by its
owner (``add``, with its re-arm). Each is registered with its re-arm: run right after torch
sets its loggers up anew (``torch._logging.set_logs`` resets levels, handlers and
propagation; heard as it runs, ``torch_compat.on_logs_reset``) and before each cell
(``rearm_all``, the fallback on a torch that cannot be heard so). ``taps()`` lists them.
Nothing here runs per call: a handler runs only when torch logs to its logger.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import TypeVar

from .. import torch_compat

_log = logging.getLogger("nbcompile.capture")
_rearms: list[tuple[Callable[[], None], object]] = []  # (re-arm, the tap it puts back)
_unheard: list[Callable[[], None]] = []  # the remover of torch's reset, while heard
_fanouts: dict[str, Fanout] = {}  # logger name -> nbcompile's one handler on it
_F = TypeVar("_F", bound=logging.Filter)


def add(rearm: Callable[[], None], tap: object) -> Callable[[], None]:
    """Register ``tap`` (what its owner put on torch's loggers) with its re-arm (idempotent:
    it puts the tap back as it should be); returns the remover."""
    entry = (rearm, tap)
    _rearms.append(entry)
    # torch's ``_init_logs(log_file_name=None)`` may be given its argument: not ours
    if not _unheard and (unheard := torch_compat.on_logs_reset(
            lambda *_args: rearm_all())) is not None:
        _unheard.append(unheard)

    def remove() -> None:
        if entry in _rearms:
            _rearms.remove(entry)
        if not _rearms and _unheard:
            _unheard.pop()()
    return remove


def rearm_all() -> None:
    """Put every registered tap back (after torch reset its loggers, before a cell)."""
    for rearm, _tap in list(_rearms):
        try:
            rearm()
        except Exception:  # a capture bug must never break torch's logging
            pass


def taps() -> list[object]:
    """Every tap registered now (handlers, filters), oldest first."""
    return [tap for _rearm, tap in _rearms]


class Fanout(logging.Handler):
    """nbcompile's one handler on a torch logger: each record to every sink (at the sink's
    level, through its filters). A sink's failure reaches neither torch nor other sinks."""

    def __init__(self, logger: str) -> None:
        super().__init__(logging.NOTSET)
        self.logger_name = logger
        self.sinks: tuple[logging.Handler, ...] = ()  # replaced, never changed in place
        self._remove: Callable[[], None] | None = None  # out of the registry

    def emit(self, record: logging.LogRecord) -> None:
        for sink in self.sinks:
            if record.levelno >= sink.level:
                try:
                    sink.handle(record)
                except Exception:  # a capture bug must never break the user's compile
                    _log.debug("nbcompile could not hand on a %s record", self.logger_name,
                               exc_info=True)

    def rearm(self) -> None:
        logger = logging.getLogger(self.logger_name)
        if self.sinks and self not in logger.handlers:
            logger.addHandler(self)


def hear(logger: str, sink: logging.Handler) -> Callable[[], None]:
    """Hand every record of torch's ``logger`` to ``sink`` through nbcompile's one handler
    on it (added with the first sink, taken off with the last; hearing again is a no-op);
    returns the remover."""
    fanout = _fanouts.get(logger)
    if fanout is None:
        fanout = _fanouts[logger] = Fanout(logger)
        fanout._remove = add(fanout.rearm, fanout)
    if sink not in fanout.sinks:
        fanout.sinks = (*fanout.sinks, sink)
    fanout.rearm()

    def remove() -> None:
        fanout.sinks = tuple(s for s in fanout.sinks if s is not sink)
        if not fanout.sinks and _fanouts.get(logger) is fanout:
            del _fanouts[logger]
            logging.getLogger(logger).removeHandler(fanout)
            if fanout._remove is not None:
                fanout._remove()
    return remove


def hearing(logger: str, sink: logging.Handler) -> bool:
    """Whether ``sink`` hears ``logger`` now (its handler on the logger)."""
    fanout = _fanouts.get(logger)
    return (fanout is not None and sink in fanout.sinks
            and fanout in logging.getLogger(logger).handlers)


def sinks(logger: str) -> tuple[logging.Handler, ...]:
    """What hears ``logger`` through nbcompile's handler on it."""
    fanout = _fanouts.get(logger)
    return fanout.sinks if fanout is not None else ()


@contextlib.contextmanager
def filtering(logger: str, tap: _F) -> Iterator[_F]:
    """``tap`` on torch's ``logger`` as a filter (it sees each record before the logger's
    handlers and may hold it back), registered, for the block only."""
    target = logging.getLogger(logger)

    def rearm() -> None:
        if tap not in target.filters:
            target.addFilter(tap)

    remove = add(rearm, tap)
    rearm()
    try:
        yield tap
    finally:
        target.removeFilter(tap)
        remove()
