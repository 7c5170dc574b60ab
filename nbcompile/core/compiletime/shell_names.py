"""The names the notebook's shell put in the user's namespace and builtins (IPython:
``open``, ``exit``, ``get_ipython``, ``In``, ``Out``, ``display``...), and which of them a
fresh Python process resolves itself: ``%compile_time``'s fresh process has no shell.
``magics/`` tells where they come from (core knows no IPython)."""

from __future__ import annotations

import builtins
import types
from collections.abc import Callable, Mapping
from typing import Any

#: name -> the value the shell put there; empty outside a shell
_provider: list[Callable[[], Mapping[str, Any]]] = []
#: Names ``site`` gives a fresh interpreter (a shell replaces some with its own).
_SITE_BUILTINS = frozenset({"exit", "quit", "help", "copyright", "credits", "license"})
_ABSENT: Any = object()
#: Why a name only the shell has cannot be carried (after the name).
SHELLS_ONLY = ("is the notebook shell's own (IPython puts it in the namespace); a fresh "
               "Python process has no such name")


def use(provider: Callable[[], Mapping[str, Any]] | None) -> None:
    """Where the shell's own names come from (None: no shell)."""
    _provider[:] = [provider] if provider is not None else []


def shells(name: str, value: Any) -> bool:
    """Whether ``value``, found for ``name``, is what the shell put there."""
    if not _provider:
        return False
    try:
        found = _provider[0]().get(name, _ABSENT)
    except Exception:  # noqa: BLE001 - a shell that cannot say: the name is the user's
        return False
    # a bound method (``get_ipython``) is a new object at each lookup: equal, not the same
    return found is value or (isinstance(value, types.MethodType) and found == value)


def python_has(name: str) -> bool:
    """Whether a fresh Python process resolves ``name`` itself: Python's own builtin
    (``open``), not one the shell put in builtins (``display``, ``get_ipython``)."""
    found = getattr(builtins, name, _ABSENT)
    return name in _SITE_BUILTINS or (found is not _ABSENT and not shells(name, found))


def python_resolves(name: str, namespace: Mapping[str, Any]) -> bool | None:
    """For a global ``name`` read from ``namespace``: None when it is not the shell's;
    else whether a fresh Python process resolves it itself (``open``: True;
    ``get_ipython``: False)."""
    here = namespace.get(name, getattr(builtins, name, _ABSENT))
    if here is _ABSENT or not shells(name, here):
        return None
    return python_has(name)
