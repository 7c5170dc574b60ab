"""Open a notebook of hostile records in real JupyterLab and time what a user would wait
for: every output rendered, the Compile inspector opened, clicks answered. Shared by
test_fuzz_records.py (asserts the limits) and measure_hostile.py (prints the times)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

# Lab started with no kernel allowed: the notebooks open from their saved outputs only.
NO_KERNEL = ["--KernelSpecManager.allowed_kernelspecs=nbcompile-no-kernel"]
INSPECTOR_TAB = '.jp-SideBar.jp-mod-right .lm-TabBar-tab[data-id="nbcompile-inspector"]'


@dataclass
class Run:
    notebook: str
    cells: int
    # From asking for the notebook: its first cell shown, then every record rendered.
    first_cell_s: float | None = None
    render_s: float | None = None
    inspector_s: float | None = None
    slowest_click_s: float = 0.0
    clicks: int = 0
    pwned: bool = False
    errors: list[str] = field(default_factory=list)
    inline_notes: list[str] = field(default_factory=list)


def _dismiss_kernel_dialog(page, wait_ms: int = 0) -> None:
    """Answer Lab's "select a kernel" dialogs (no kernel can start here) with no kernel."""
    dialog = page.locator(".jp-Dialog")
    try:
        dialog.first.wait_for(timeout=max(wait_ms, 1))
    except Exception:  # noqa: BLE001 - no dialog is fine too
        return
    for _ in range(5):
        if not dialog.count():
            return
        try:
            no_kernel = dialog.first.get_by_role("button", name=re.compile("no kernel", re.I))
            if no_kernel.count():
                no_kernel.first.click(timeout=5_000)
            else:
                dialog.first.locator("button.jp-mod-reject").first.click(timeout=5_000)
            page.wait_for_timeout(300)
        except Exception:  # noqa: BLE001 - a busy page: the caller's timing says so
            return


def _answered(page, timeout_s: float) -> bool:
    """Whether the page runs a script (its main thread is free) within `timeout_s`."""
    try:
        page.wait_for_function("() => true", timeout=timeout_s * 1000)
        return True
    except Exception:  # noqa: BLE001 - busy or frozen
        return False


def _timed(page, action, run: Run) -> None:
    """Do `action`, then wait for the page to answer; record the round trip."""
    _dismiss_kernel_dialog(page)
    t = time.monotonic()
    action()
    _answered(page, 30)
    run.slowest_click_s = max(run.slowest_click_s, time.monotonic() - t)
    run.clicks += 1


def open_notebook(browser, server, name: str, cells: int, *, render_timeout_s: float = 10,
                  inspector_timeout_s: float = 2, click_timeout_s: float = 5,
                  max_clicks: int = 12, screenshot: Path | None = None) -> Run:
    """Open `name`, wait for `cells` rendered outputs, open the inspector and click around."""
    run = Run(name, cells)
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.on("pageerror", lambda e: run.errors.append(str(e)[:300]))
    page.on("console", lambda m: run.errors.append(m.text[:300])
            if m.type == "error" and "nbcompile" in m.text.lower() else None)
    try:
        page.set_default_timeout(60_000)
        t0 = time.monotonic()
        # `reset`: a fresh workspace, or Lab would reopen the notebooks of earlier runs.
        page.goto(server.lab_url(name) + "&reset")
        try:
            page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for(timeout=60_000)
        except Exception:  # noqa: BLE001 - recorded as never shown
            run.errors.append("the notebook did not show within 60 s")
            return run
        run.first_cell_s = time.monotonic() - t0
        done = f"""() => document.querySelectorAll(
            '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea .nbc-inline:not(:empty)'
        ).length >= {cells}"""
        try:
            page.wait_for_function(done, timeout=render_timeout_s * 1000 + 30_000, polling=100)
            run.render_s = time.monotonic() - t0
        except Exception:  # noqa: BLE001 - recorded as not rendered
            return run
        # The dialog comes once Lab gave up on starting a kernel.
        _dismiss_kernel_dialog(page, wait_ms=10_000)
        run.inline_notes = page.locator(".nbc-inline .nbc-invalid").all_inner_texts()
        # The inspector: open its tab, wait for the body to show the records.
        t1 = time.monotonic()
        try:
            page.locator(INSPECTOR_TAB).click(timeout=click_timeout_s * 1000)
            page.wait_for_function(
                """() => { const b = document.querySelector('#nbcompile-inspector .nbc-body');
                           return b && b.offsetParent && b.querySelector(
                             '.nbc-target-row, .nbc-note, .nbc-section, .nbc-empty'); }""",
                timeout=inspector_timeout_s * 1000 + 10_000, polling=50)
            run.inspector_s = time.monotonic() - t1
        except Exception:  # noqa: BLE001 - recorded as not opened
            return run
        sidebar = page.locator("#nbcompile-inspector")
        page.set_default_timeout(click_timeout_s * 1000)
        try:
            _click_around(page, sidebar, run, max_clicks)
        except Exception as err:  # noqa: BLE001 - a click that got no answer
            run.errors.append(f"no answer to a click: {str(err)[:200]}")
        if screenshot is not None:
            page.screenshot(path=str(screenshot))
    finally:
        if _answered(page, 5):
            run.pwned = bool(page.evaluate("() => window.__pwned !== undefined"))
        else:
            run.errors.append("the page did not answer within 5 s")
        context.close()
    return run


def _click(locator):
    """Click the way a user's click lands, but through toasts that may cover it."""
    return lambda: locator.evaluate("e => e.click()")


def _click_around(page, sidebar, run: Run, max_clicks: int) -> None:
    """Select targets, open every section, jump to a line, page a long list."""
    rows = sidebar.locator(".nbc-target-row")
    for i in range(min(3, rows.count())):
        _timed(page, _click(rows.nth(i)), run)
        closed = sidebar.locator("details.nbc-section:not([open]) > summary")
        for _ in range(min(6, closed.count())):
            if run.clicks >= max_clicks:
                break
            _timed(page, _click(closed.first), run)
        links = sidebar.locator(".nbc-source-link")
        if links.count() and run.clicks < max_clicks + 2:
            _timed(page, _click(links.first), run)
    more = sidebar.locator(".nbc-more")
    if more.count():
        _timed(page, _click(more.first), run)


def no_windowing(state: Path) -> None:
    """Lab settings in `state` under which every cell renders, in view or not."""
    tracker = state / "settings" / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True, exist_ok=True)
    (tracker / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
