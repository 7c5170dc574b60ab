"""The live summary under a ``%%compile`` cell, updated through its ``display_id``."""

from __future__ import annotations

import threading
import time
from typing import Any

from IPython.display import display

from ..core.notebook.session import CaptureSession
from ..core.notebook.snapshot import target_record
from ..core.notebook.targets import Target
from .annotate import annotated_html, annotated_text
from .bundle import summary_bundle

TICK_SECONDS = 1.0


class LiveSummary:
    """Shows the targets of one cell and refreshes when their compiles start and end.

    While a compile runs (first compiles take 10 s and more) a daemon thread refreshes
    the display every second so the elapsed time is visible.
    """

    def __init__(self, session: CaptureSession, targets: list[Target], cell: dict[str, Any],
                 annotate: bool = False):
        self.annotate = annotate  # --annotate: the annotated source follows the summary
        self.session = session
        self.targets = targets
        self.cell = cell
        self._ticker: threading.Thread | None = None
        self.handle = display(self.bundle(), raw=True, display_id=True)
        self._unsubscribe = session.subscribe(self._changed) if targets else None

    def bundle(self) -> dict[str, Any]:
        records = [target_record(t) for t in self.targets]
        bundle = summary_bundle(records, self.cell)
        if self.annotate:
            bundle["text/html"] += "".join(annotated_html(r) for r in records if r.compiles)
            bundle["text/plain"] += "".join("\n\n" + annotated_text(r)
                                            for r in records if r.compiles)
            if not any(r.compiles for r in records):
                bundle["text/html"] += ("<div class='nbcompile-annotate'>annotated source: "
                                        "shown here once the first call compiles.</div>")
        return bundle

    def refresh(self) -> None:
        if self.handle is not None:
            self.handle.update(self.bundle(), raw=True)

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _changed(self, target: Target) -> None:
        if target not in self.targets:
            return
        if not any(t in self.session.targets for t in self.targets):
            self.close()  # the cell was re-run: its new summary takes over
            return
        self.refresh()
        if target.status == "compiling" and (self._ticker is None or not self._ticker.is_alive()):
            self._ticker = threading.Thread(target=self._tick, daemon=True, name="nbcompile-tick")
            self._ticker.start()

    def _tick(self) -> None:
        while True:
            time.sleep(TICK_SECONDS)
            if not any(t.status == "compiling" for t in self.targets):
                return
            self.refresh()
