"""nbcompile: see what torch.compile did, from a Jupyter notebook.

``%load_ext nbcompile`` registers ``%%compile`` and starts capturing compile events;
``nbcompile.report(obj)`` returns everything captured for a compiled target;
``nbcompile.open_trace(path)`` reads a ``TORCH_TRACE`` run (a log file or a directory).
"""

from __future__ import annotations

from typing import Any

from .api import (
    Comparison,
    CompileReport,
    Diagnosis,
    Profile,
    Suggestions,
    TraceReport,
    compare,
    diagnose,
    open_trace,
    profile,
    report,
    suggest,
)
from .core.logs.run import Divergence, TraceCompile
from .core.records import MIME_TYPE, SCHEMA_VERSION

__version__ = "0.1.0"
__all__ = [
    "MIME_TYPE",
    "SCHEMA_VERSION",
    "CompileReport",
    "Comparison",
    "Diagnosis",
    "Divergence",
    "Profile",
    "Suggestions",
    "TraceCompile",
    "TraceReport",
    "compare",
    "diagnose",
    "open_trace",
    "profile",
    "report",
    "suggest",
]


def load_ipython_extension(shell: Any) -> None:
    from .magics import load_ipython_extension as load

    load(shell)


def unload_ipython_extension(shell: Any) -> None:
    from .magics import unload_ipython_extension as unload

    unload(shell)


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    return [{"src": "labextension", "dest": "nbcompile-labextension"}]
