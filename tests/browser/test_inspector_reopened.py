"""A notebook with inspectors (``nbcompile.inspect`` and a ``%%compile --inspect`` cell)
run in JupyterLab or Notebook 7, saved there (without its widget state, as both save by
default), its kernel shut down, and reopened with a new kernel, in Debian's Chromium.

ipywidgets draws "Error displaying widget: model not found" in each widget's output (its
model lived in the old kernel). Where nbcompile's extension runs, that error is not shown
and each inspector is drawn from the record its static output carries, by the widget's own
views (a break at its line, a source line beside its kernels), under the kernel's line
saying what it is; its *Inspect again* asks the new kernel for the target: no answer
before nbcompile is loaded, "does not hold this target yet" before the cell that compiles
it runs, then the target as the kernel holds it (waiting for its first call, then
compiled with its break). Without the extension the reader sees the error and, below it,
the static report under the line saying how to get the interactive view back.
"""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path

import nbformat
import pytest

from nbcompile.display.inline_inspector import (
    FALLBACK_CLASS,
    NEEDS_WIDGETS,
    NO_ANSWER,
    SAVED_AGAIN,
    SAVED_TEXT,
)
from nbcompile.display.inspector import AGAIN_LABEL, HELD_NOW, NOT_HELD

from .conftest import lab_server
from .test_frontends import kept_on_failure, nbcompile_errors, new_page
from .test_inline_inspector import (
    CALL_CELL,
    COMPILE_CELL,
    COMPILE_INSPECT_CELL,
    COS_CALL_CELL,
    INSPECT_CELL,
    check_break_and_map,
    disable_extension,
)
from .test_sidebar import cells, read_saved, run_cell, wait_idle_status

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(600)]

NOTEBOOK = "reopened.ipynb"
#: The cells holding an inspector.
INSPECTORS = (3, 4)
ERROR = ".jp-OutputArea-output.jupyter-widgets"
#: The inspector the extension draws from a saved output.
SAVED = ".nbc-saved-view"


def make_notebook(path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in
                ("%load_ext nbcompile", COMPILE_CELL, CALL_CELL, INSPECT_CELL,
                 COMPILE_INSPECT_CELL, COS_CALL_CELL)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    nbformat.write(nb, path)


def run_save_reopen(page, server, root: Path) -> None:
    """Run every cell, save (Ctrl+S), shut the kernel down, open the notebook again: a new
    kernel starts and the saved outputs show."""
    page.on("dialog", lambda d: d.accept())  # a "leave the page?" question: yes
    page.goto(server.lab_url(NOTEBOOK))
    cells(page).nth(5).wait_for(timeout=60_000)
    server.wait_kernel_idle(NOTEBOOK)
    if server.app == "jupyterlab":  # Notebook 7 has no status bar: the kernel told idle
        wait_idle_status(page)
    for i in range(6):
        run_cell(page, i)
    for i in INSPECTORS:
        cells(page).nth(i).locator(".nbc-widget").wait_for(timeout=60_000)
    cells(page).nth(4).locator(".nbc-status-compiled").first.wait_for(timeout=60_000)
    page.keyboard.press("Control+s")
    deadline = time.monotonic() + 60
    while FALLBACK_CLASS not in json.dumps(read_saved(root / NOTEBOOK) or {}):
        assert time.monotonic() < deadline, "the notebook was not saved"
        time.sleep(0.1)
    saved = read_saved(root / NOTEBOOK)
    assert saved is not None and "widgets" not in saved["metadata"]
    session = server.wait_kernel_idle(NOTEBOOK)
    server.api(f"/api/sessions/{session['id']}", method="DELETE")
    page.reload()
    cells(page).nth(5).wait_for(timeout=60_000)
    assert server.wait_kernel_idle(NOTEBOOK)["kernel"]["id"] != session["kernel"]["id"]


def reopened_outputs(page, extension: bool) -> None:
    """Each inspector's cell, once ipywidgets has told its model is gone: with the
    extension, the inspector drawn from the saved record; without, the static report."""
    for i in INSPECTORS:
        cell = cells(page).nth(i)
        name = "gelu_chain" if i == 3 else "cos_plus"
        # ipywidgets' own words, once its manager has restored (a condition, not a time).
        error = cell.locator(ERROR, has_text="model not found")
        error.wait_for(state="attached", timeout=60_000)
        if extension:
            assert not error.is_visible(), f"cell {i} shows ipywidgets' error"
            view = cell.locator(SAVED)
            view.wait_for(state="visible")
            assert name in view.locator(".nbc-widget-header").inner_text()
            assert view.locator(".nbc-snapshot-text").inner_text() == f"{SAVED_TEXT} {SAVED_AGAIN}"
            assert view.locator(".nbc-snapshot-refresh").inner_text() == AGAIN_LABEL
            view.locator(".nbc-status-compiled").first.wait_for(state="attached")
            assert NEEDS_WIDGETS not in cell.inner_text()  # not the static report
            continue
        report = cell.locator(".nbcompile-widget-fallback")
        report.wait_for(state="visible")
        text = report.inner_text()
        assert NEEDS_WIDGETS in text
        assert name in text, text
        assert error.is_visible()


def inspect_again(page) -> None:
    """The saved inspector of ``inspect(gelu_chain)``: its views work from the saved record;
    its button asks the new kernel, which answers once nbcompile is loaded and shows the
    target as it holds it, each time asked."""
    view = cells(page).nth(3).locator(SAVED)
    check_break_and_map(view)
    line = view.locator(".nbc-snapshot-text")
    again = view.locator(".nbc-snapshot-refresh")
    again.click()  # nbcompile is not loaded in the new kernel: no answer
    view.locator(".nbc-snapshot-text", has_text=NO_ANSWER).wait_for(timeout=60_000)
    run_cell(page, 0)  # %load_ext nbcompile
    again.click()
    view.locator(".nbc-snapshot-text", has_text=NOT_HELD).wait_for(timeout=60_000)
    view.locator(".nbc-status-compiled").first.wait_for(state="attached")  # still the saved
    run_cell(page, 1)  # %%compile gelu_chain: held, not called yet
    again.click()
    view.locator(".nbc-status-pending").first.wait_for(state="attached", timeout=60_000)
    assert line.inner_text() == HELD_NOW
    assert view.locator('.nbc-section[data-section="breaks"] .nbc-count').inner_text() == "0"
    run_cell(page, 2)  # its calls: compiled, with its break
    again.click()
    view.locator(".nbc-status-compiled").first.wait_for(state="attached", timeout=60_000)
    assert line.inner_text() == HELD_NOW
    check_break_and_map(view)


@pytest.mark.parametrize("app", ["jupyterlab", "notebook"])
def test_a_reopened_notebook_shows_the_inspectors_not_errors(browser, tmp_path, artifacts, app):
    root = tmp_path / "root"
    root.mkdir()
    make_notebook(root / NOTEBOOK)
    console: list[str] = []
    context, page = new_page(browser, console)
    with kept_on_failure(context, page, console, artifacts, f"reopened-{app}"):
        with lab_server(root, tmp_path / "state", secrets.token_hex(16), app=app) as server:
            run_save_reopen(page, server, root)
            reopened_outputs(page, extension=True)
            page.screenshot(path=str(artifacts / f"reopened-{app}.png"))
            inspect_again(page)
    assert not nbcompile_errors(console), console


def test_a_reopened_notebook_without_the_extension(browser, tmp_path, artifacts):
    """What the guide says a reader sees where the extension does not run."""
    root = tmp_path / "root"
    root.mkdir()
    make_notebook(root / NOTEBOOK)
    state = tmp_path / "state"
    disable_extension(state)
    console: list[str] = []
    context, page = new_page(browser, console)
    with kept_on_failure(context, page, console, artifacts, "reopened-no-extension"):
        with lab_server(root, state, secrets.token_hex(16)) as server:
            run_save_reopen(page, server, root)
            reopened_outputs(page, extension=False)
            page.screenshot(path=str(artifacts / "reopened-no-extension.png"))
