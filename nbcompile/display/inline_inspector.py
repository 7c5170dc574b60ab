"""The Compile inspector inside a cell: ``nbcompile.inspect(x)``'s widget (anywidget).

The front end is the labextension's own views bundled into one ES module
(``static/inspector.js``, built by ``labextension/scripts/build-widget.mjs``, shipped in
the wheel). That module (about 190 KB) is held once per kernel by one ``InspectorModule``
widget; each inspector carries only ``static/loader.js`` (about 1 KB), which imports the
module from that widget, so a notebook saved with its widget state keeps the module once
however many inspectors it shows.

An inspector's state holds the published record, within the output budget as every
output (``budget.py``); a record cut to that budget is completed over the widget's own
messages: the front end sends ``{"type": "whole"}`` and the kernel answers, per target
shown, with the whole record of ``inspector.whole_record`` (the sidebar comm's answer,
bounded the same way).

Displayed, an inspector is two outputs: the widget's (its view and a line of text) and,
after it, the static report (``text/html`` under a line saying the interactive view needs
widgets, and ``text/plain``) for every place no widget runs: GitHub, an untrusted
notebook, nbconvert's page with scripts off or the widgets' CDN unreachable (nbconvert
shows a widget's view, never the HTML beside it in the same output, once the notebook has
widget state). The widget's stylesheet hides that second output where the widget runs.
That second output also carries the record (the sidebar reads it there) and, in its
metadata, the sentences of a saved view (``SavedView``): where nbcompile's extension
runs and the widget's model is gone (a notebook saved without widget state, reopened
with a new kernel), the extension draws the inspector from that record in place of the
static report, with a button that asks the running kernel for its targets.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import anywidget
import ipywidgets as widgets
import traitlets
from IPython.display import display

from ..core.notebook.cells.running import running_cell
from ..core.records import MIME_TYPE, SCHEMA_VERSION
from .budget import json_size, output_budget
from .inspector import AGAIN_LABEL, MAX_AGAIN, live_bundle, whole_record
from .payload import summary_within
from .text import escape

#: The bundled front-end module (gitignored build output, listed in the wheel's artifacts).
MODULE = Path(__file__).parent / "static" / "inspector.js"
#: Each inspector's own ``_esm``: imports ``MODULE`` from the kernel's module widget.
LOADER = Path(__file__).parent / "static" / "loader.js"
#: Record kinds the front end shows (``labextension/src/records/schema.ts``).
KINDS = frozenset({"summary", "timing", "trace", "profile", "suggestions", "diagnosis",
                   "compile_time"})

_TARGET_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")
#: The widget output's ``text/plain`` (its static report follows in the next output).
WIDGET_TEXT = "Compile inspector (an interactive Jupyter widget)"
#: The line above the static report; seen only where the widget does not draw: no widgets
#: run (scripts off, their code not loaded), or its model is gone (a notebook saved
#: without widget state, reopened with a new kernel).
NEEDS_WIDGETS = ("The interactive Compile inspector is not shown here (Jupyter widgets do not "
                 "run, or the notebook was saved without its widget state): its static "
                 "report follows. Run the cell again to inspect it live.")
#: What a saved view (the inspector drawn by the extension from the record its static
#: output keeps, its widget gone) says of itself.
SAVED_TEXT = ("Drawn from the record saved in this output: the interactive inspector's widget "
              "did not come back (the notebook was saved without its widget state, or its "
              "kernel is gone).")
#: What a saved view of targets adds: its button.
SAVED_AGAIN = f"{AGAIN_LABEL} asks the running kernel for this target."
#: What a saved view of a report adds (a report is not asked for again).
SAVED_REPORT = "Run the cell again to inspect it live."
#: What a saved view says when no kernel answers its button.
NO_ANSWER = ("No kernel answered: none is running, or nbcompile is not loaded in it (run "
             "%load_ext nbcompile and the cells that compile this target, then "
             f"{AGAIN_LABEL}).")
#: The snapshot button's label; what it does is said by ``snapshot_text``.
REFRESH_LABEL = "Refresh"
#: The class of the static report's output, which the widget's stylesheet hides where the
#: widget runs (``labextension/style/widget.css``).
FALLBACK_CLASS = "nbcompile-widget-fallback"


@functools.cache
def module_text(path: Path = MODULE) -> str:
    """A built widget module (``MODULE`` or ``LOADER``); a checkout must have built it
    (``make labextension``)."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(
            f"nbcompile's inspector widget module is missing ({path}): in a checkout, "
            "build it with `make labextension` (or `cd labextension && npm run "
            "build:widget`); an installed wheel carries it") from None


def check_record(value: Any, budget: int | None = None) -> dict[str, Any]:
    """``value`` if it is a record the widget may hold, else ``TraitError`` saying why:
    an nbcompile record of this schema version, of a kind the front end shows, within
    ``budget`` bytes (default: the output budget, since the widget state is saved)."""
    if not isinstance(value, dict):
        raise traitlets.TraitError(f"not a record: {type(value).__name__}")
    if value.get("schema_version") != SCHEMA_VERSION:
        raise traitlets.TraitError(
            f"schema version {value.get('schema_version')!r} is not {SCHEMA_VERSION}")
    if value.get("record") not in KINDS:
        raise traitlets.TraitError(f"record kind {str(value.get('record'))[:40]!r} "
                                   "is not one the inspector shows")
    limit = output_budget() if budget is None else budget
    size = json_size(value)
    if size > limit:
        raise traitlets.TraitError(
            f"record of {size} bytes is over the output budget ({limit} bytes)")
    return value


@dataclass(frozen=True)
class SavedView:
    """The sentences of an inspector drawn from its saved output (the output's metadata,
    under ``MIME_TYPE``'s ``"inspector"`` key): its line, the button's label (empty for a
    report: nothing to ask for) and what it says when no kernel answers."""

    text: str
    again_label: str
    no_answer: str

    @classmethod
    def of(cls, record: dict[str, Any]) -> SavedView:
        if record.get("record") == "summary" and record.get("targets"):
            return cls(f"{SAVED_TEXT} {SAVED_AGAIN}", AGAIN_LABEL, NO_ANSWER)
        return cls(f"{SAVED_TEXT} {SAVED_REPORT}", "", "")

    def metadata(self) -> dict[str, Any]:
        return {MIME_TYPE: {"inspector": asdict(self)}}


class InspectorModule(anywidget.AnyWidget):
    """The inspector's front-end code, held once per kernel (``code``: ``MODULE``'s text);
    never displayed: inspectors import their views from it."""

    _esm = "export default {};"
    code = traitlets.Unicode().tag(sync=True)


_module: InspectorModule | None = None


def shared_module() -> InspectorModule:
    """This kernel's module widget, made at the first inspector (again after a close)."""
    global _module
    if _module is None or _module.comm is None:
        _module = InspectorModule(code=module_text(MODULE))
    return _module


def cell_number() -> int | None:
    """The ``In [N]`` number of the cell running now (found by its code's filename in a
    caller frame), else of the last cell run; ``None`` outside IPython."""
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        return None
    filename_map = getattr(getattr(shell, "compile", None), "_filename_map", {})
    number = running_cell(filename_map, sys._getframe(1))
    if number is not None:
        return number
    count = getattr(shell, "execution_count", None)  # counted before a cell runs
    return count - 1 if isinstance(count, int) else None


def snapshot_text(cell: int | None, held: bool = True) -> str:
    """What a snapshot's view says of itself: of which cell, and how to see it now."""
    when = f"as of cell [{cell}]" if cell is not None else "taken once"
    if not held:
        return (f"A snapshot {when}: this kernel no longer holds its target, so it cannot "
                "be refreshed.")
    return (f"A snapshot {when}: later compiles and calls are not in it. "
            f"{REFRESH_LABEL} reads the target again from the kernel.")


class Inspector(anywidget.AnyWidget):
    """The inline Compile inspector for one record (a target's, or a report's)."""

    record = traitlets.Dict().tag(sync=True)
    module = traitlets.Instance(InspectorModule).tag(sync=True, **widgets.widget_serialization)
    #: A snapshot's sentence (``snapshot_text``), empty for a live view or a report.
    snapshot = traitlets.Unicode("").tag(sync=True)
    #: The label of the button that refreshes a snapshot.
    refresh_label = traitlets.Unicode(REFRESH_LABEL).tag(sync=True)

    def __init__(self, bundle: dict[str, Any], snapshot: bool = False) -> None:
        """``bundle``: a MIME bundle nbcompile publishes (its record and fallbacks).
        ``snapshot``: the record is a target's as of now (``inspect(f)``), refreshed from
        the kernel when the front end asks (``{"type": "refresh"}``)."""
        self._esm = module_text(LOADER)
        super().__init__(record=bundle[MIME_TYPE], module=shared_module())
        self._bundle = bundle
        if snapshot and self.target_ids():
            self.snapshot = snapshot_text(cell_number())
        self.on_msg(self._on_message)

    def refresh(self) -> None:
        """A snapshot read again: the shown target's record as the kernel holds it now."""
        ids = self.target_ids()
        bundle = live_bundle(ids[0]) if len(ids) == 1 else None
        if bundle is None:
            self.snapshot = snapshot_text(cell_number(), held=False)
            return
        self.show(bundle)
        self.snapshot = snapshot_text(cell_number())

    def show(self, bundle: dict[str, Any]) -> None:
        """Show ``bundle``'s record now (a live view redraws); its fallbacks from the next
        display of this widget on."""
        self.record = bundle[MIME_TYPE]
        self._bundle = bundle

    @traitlets.validate("record")
    def _valid_record(self, proposal: Any) -> dict[str, Any]:
        return check_record(proposal["value"])

    def target_ids(self) -> list[str]:
        """The ids of the targets the record shows (none for a report)."""
        targets = self.record.get("targets") if self.record.get("record") == "summary" else None
        return [t["id"] for t in targets or [] if isinstance(t, dict)
                and isinstance(t.get("id"), str) and _TARGET_ID.fullmatch(t["id"])]

    def whole_messages(self) -> list[dict[str, Any]]:
        """What a ``{"type": "whole"}`` request gets: one message per target shown that
        this kernel knows, ``{"data": {MIME_TYPE: record}}`` as the sidebar's comm."""
        found = (whole_record(i) for i in self.target_ids()[:MAX_AGAIN])
        return [{"data": {MIME_TYPE: w.payload}} for w in found if w is not None]

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "whole":
            for message in self.whole_messages():
                self.send(message)
        elif isinstance(content, dict) and content.get("type") == "refresh" and self.snapshot:
            self.refresh()

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The widget's output: its view and ``WIDGET_TEXT`` (the record is the next
        output's)."""
        shown = super()._repr_mimebundle_(**kwargs)
        if shown is None:
            return None
        data, metadata = shown
        data["text/plain"] = WIDGET_TEXT
        return data, metadata

    def fallback_bundle(self) -> dict[str, Any]:
        """The output after the widget's: the static report under ``NEEDS_WIDGETS``, with
        the record's ``text/plain``, and the record itself (read by the sidebar, drawn by
        the extension where the widget's model is gone), the whole output within the
        output budget."""
        html = self._bundle.get("text/html") or ""
        data = {
            "text/html": (f"<div class='{FALLBACK_CLASS}'><p style='margin:0 0 4px;"
                          f"font-style:italic'>{escape(NEEDS_WIDGETS)}</p>{html}</div>"),
            "text/plain": self._bundle.get("text/plain") or NEEDS_WIDGETS,
        }
        record: dict[str, Any] | None = self.record
        room = output_budget() - json_size({MIME_TYPE: {}, **data})
        if record is not None and json_size(record) > room:
            # Within the budget as published, the line above the report is over it:
            # a summary's targets are cut a little further (marked), a report left out.
            record = summary_within(record, room) if record.get("record") == "summary" else None
        return {MIME_TYPE: record, **data} if record is not None else data

    def fallback_metadata(self) -> dict[str, Any]:
        """The static output's metadata: its saved view's sentences (``SavedView``)."""
        return SavedView.of(self.record).metadata()

    def widget_bundle(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The widget's output as ``(data, metadata)``."""
        shown = self._repr_mimebundle_()
        if shown is None:  # only a widget without a view, which an inspector never is
            raise RuntimeError("the inspector has no view")
        return shown

    def _ipython_display_(self) -> None:
        """Shown (``display``, or a cell's value): the widget's output, then its static
        report's."""
        data, metadata = self.widget_bundle()
        display(data, metadata=metadata, raw=True)
        display(self.fallback_bundle(), metadata=self.fallback_metadata(), raw=True)


def inspector_for(bundle: dict[str, Any]) -> Inspector:
    """The widget showing ``bundle``'s record (``TraitError`` if it is not one); a target's
    record is a snapshot, refreshed on request."""
    if MIME_TYPE not in bundle:
        raise TypeError("no nbcompile record to inspect in this object's display")
    return Inspector(bundle, snapshot=True)
