"""The IPython cell events nbcompile listens to, registered in one place.

Each job that runs around a cell (torch's log filter put back before it, the cell history
opened and closed, CUDA-graph hazards reported, cache keys saved after it) is a
``CellHook``: its event and a function of ``(shell, info_or_result)``. ``install`` registers
the list once per shell, in order; ``uninstall`` removes exactly those. A hook that raises
never breaks the cell: the error is swallowed there (each job says its own problems in its
records, e.g. the cache keys' ``problem``).

Usage::

    install(shell, [CellHook("pre_run_cell", "history", open_history), ...])
    uninstall(shell)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Event = Literal["pre_run_cell", "post_run_cell"]


@dataclass(frozen=True)
class CellHook:
    """One job around each cell: ``run(shell, info)`` before it (IPython's
    ``ExecutionInfo``) or ``run(shell, result)`` after it (its ``ExecutionResult``)."""

    event: Event
    name: str  # what it does, for a reader of ``installed``
    run: Callable[[Any, Any], None]


#: Per shell: the IPython callbacks registered, with their event, in order.
_installed: dict[int, list[tuple[Event, Callable[..., None]]]] = {}


def _guarded(shell: Any, hook: CellHook) -> Callable[..., None]:
    def callback(arg: Any = None) -> None:
        try:
            hook.run(shell, arg)
        except Exception:  # noqa: BLE001 - nbcompile's bookkeeping must never break a cell
            pass

    callback.__name__ = f"nbcompile_{hook.name}"
    return callback


def install(shell: Any, hooks: Sequence[CellHook]) -> None:
    """Register ``hooks`` with ``shell.events`` (once per shell: a second call is a no-op)."""
    if id(shell) in _installed:
        return
    registered: list[tuple[Event, Callable[..., None]]] = []
    for hook in hooks:
        callback = _guarded(shell, hook)
        shell.events.register(hook.event, callback)
        registered.append((hook.event, callback))
    _installed[id(shell)] = registered


def uninstall(shell: Any) -> None:
    """Unregister what ``install`` registered on ``shell`` (nothing when it did not)."""
    for event, callback in _installed.pop(id(shell), []):
        try:
            shell.events.unregister(event, callback)
        except ValueError:
            pass


def installed(shell: Any) -> list[str]:
    """The registered hooks' names on ``shell``, in order (``event:name``)."""
    return [f"{event}:{cb.__name__.removeprefix('nbcompile_')}"
            for event, cb in _installed.get(id(shell), [])]
