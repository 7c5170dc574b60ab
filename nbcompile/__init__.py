"""nbcompile: see what torch.compile did, from a Jupyter notebook.

``%load_ext nbcompile`` registers ``%%compile`` and starts capturing compile events;
``nbcompile.report(obj)`` returns everything captured for a compiled target;
``nbcompile.inspect(obj)`` shows it in the Compile inspector's views inside the cell;
``nbcompile.open_trace(path)`` reads a ``TORCH_TRACE`` run (a log file or a directory);
``nbcompile.trace(dir)`` writes one from the running kernel.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .core.records import MIME_TYPE, SCHEMA_VERSION

if TYPE_CHECKING:
    from .api import (
        Comparison,
        CompileReport,
        CompileTime,
        Diagnosis,
        Profile,
        Repro,
        Suggestions,
        compare,
        compile_time,
        diagnose,
        inspect,
        profile,
        report,
        repro,
        suggest,
        trace,
    )
    from .core.logs.divergence import Divergence
    from .core.logs.record import TraceCompile
    from .trace_report import TraceReport, open_trace

# The public names are imported on first use (PEP 562): reading logs (``open_trace``,
# ``python -m nbcompile open``) imports no torch; any other name imports ``api`` (torch).
_TORCH_FREE = {"open_trace": ".trace_report", "TraceReport": ".trace_report",
               "Divergence": ".core.logs.divergence",
               "TraceCompile": ".core.logs.record"}

__version__ = "0.1.0"
__all__ = [
    "MIME_TYPE",
    "SCHEMA_VERSION",
    "CompileReport",
    "Comparison",
    "CompileTime",
    "Diagnosis",
    "Divergence",
    "Profile",
    "Suggestions",
    "TraceCompile",
    "TraceReport",
    "compare",
    "compile_time",
    "diagnose",
    "inspect",
    "open_trace",
    "profile",
    "report",
    "repro",
    "Repro",
    "suggest",
    "trace",
]


def __getattr__(name: str) -> Any:
    if name in _TORCH_FREE:
        value = getattr(importlib.import_module(_TORCH_FREE[name], __name__), name)
    elif name.startswith("_") or name == "trace_report":  # (modules import on their own)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    else:  # api, and, as before, the subpackages it imports
        api = importlib.import_module(".api", __name__)
        value = globals()[name] if name in globals() else getattr(api, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def load_ipython_extension(shell: Any) -> None:
    from .magics import load_ipython_extension as load

    load(shell)


def unload_ipython_extension(shell: Any) -> None:
    from .magics import unload_ipython_extension as unload

    unload(shell)


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    return [{"src": "labextension", "dest": "nbcompile-labextension"}]
