"""After each cell, CUDA-graph outputs a call overwrote while a name still held them, and
names that hold one output a replay handed back again
(``core/notebook/cudagraphs/hazard.py``), reported at that cell; and torch's error on
reading one, explained (``explanation``, for ``errors.py``). The user's namespace goes to
core without IPython's hidden names; nothing runs unless a target asked for CUDA graphs
and CUDA is available."""

from __future__ import annotations

from typing import Any

from ..core.notebook.capture.session import get_session
from ..core.notebook.cudagraphs import outcome as cudagraphs
from ..core.notebook.cudagraphs.hazard import (
    get_watch,
    in_use,
    is_overwritten_error,
    keep,
    owners,
)
from ..display.hazard import (
    explanation_text,
    report_bundle,
    report_record,
    shared_bundle,
    shared_record,
)


def _namespace(shell: Any) -> dict[str, Any]:
    hidden = getattr(shell, "user_ns_hidden", {})
    return {k: v for k, v in shell.user_ns.items()
            if not k.startswith("_") and k not in hidden}


def _resolve(filename: str, line: int) -> str | None:
    target = get_session().target_for_stack([{"filename": filename, "line": line}])
    return target.name if target is not None else None


def before_cell(shell: Any, info: Any = None) -> None:
    """Before each cell: the CUDA-graph trees' generation noted (which call overwrote)."""
    if in_use(get_session().targets, cudagraphs.asked_for):
        get_watch().before_cell()


def after_cell(shell: Any, result: Any = None) -> None:
    """Report the names the cell's calls overwrote (displayed in the cell's output)."""
    if not in_use(get_session().targets, cudagraphs.asked_for):
        return
    cell = getattr(result, "execution_count", None)
    report, shared = get_watch().cell_ended(cell, _namespace(shell), _resolve)
    session = get_session()
    found = [(report_record(report), [*report.calls,
                                      *(o.message.produced_in for o in report.names)])
             ] if report is not None else []
    if shared is not None:
        found.append((shared_record(shared), list(shared.producers)))
    for record, functions in found:  # kept per target: the summary and inspector show it
        for target in owners(functions, session.targets, cudagraphs.asked_for):
            keep(target, record)
            session.listeners.notify(target)
    if report is not None or shared is not None:
        from IPython.display import display

        for bundle in (report_bundle(report) if report else None,
                       shared_bundle(shared) if shared else None):
            if bundle is not None:
                display(bundle, raw=True)


def explanation(shell: Any, error: BaseException) -> str | None:
    """torch's error on an overwritten CUDA-graph output, explained; None otherwise."""
    text = str(error)
    if not is_overwritten_error(text):
        return None
    found = get_watch().explain(text, _namespace(shell))
    return explanation_text(found) if found is not None else None
