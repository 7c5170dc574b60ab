"""A notebook with inspectors (``nbcompile.inspect`` and a ``%%compile --inspect`` cell)
run in JupyterLab or Notebook 7, saved there (without its widget state, as both save by
default), its kernel shut down, and reopened with a new kernel, in Debian's Chromium.

ipywidgets draws "Error displaying widget: model not found" in each widget's output (its
model lived in the old kernel). Where nbcompile's extension runs, that error is not shown
and each inspector's static report (the output after the widget's) is, under the line
saying how to get the interactive view back; without the extension the reader sees the
error and, below it, the same report and line.
"""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path

import nbformat
import pytest

from nbcompile.display.inline_inspector import FALLBACK_CLASS, NEEDS_WIDGETS

from .conftest import lab_server
from .test_frontends import kept_on_failure, nbcompile_errors, new_page
from .test_inline_inspector import (
    CALL_CELL,
    COMPILE_CELL,
    COMPILE_INSPECT_CELL,
    COS_CALL_CELL,
    INSPECT_CELL,
    disable_extension,
)
from .test_sidebar import cells, read_saved, run_cell, wait_idle_status

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(600)]

NOTEBOOK = "reopened.ipynb"
#: The cells holding an inspector.
INSPECTORS = (3, 4)
ERROR = ".jp-OutputArea-output.jupyter-widgets"


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
    """Each inspector's cell, once ipywidgets has told its model is gone."""
    for i in INSPECTORS:
        cell = cells(page).nth(i)
        # ipywidgets' own words, once its manager has restored (a condition, not a time).
        error = cell.locator(ERROR, has_text="model not found")
        error.wait_for(state="attached", timeout=60_000)
        report = cell.locator(".nbcompile-widget-fallback")
        report.wait_for(state="visible")
        text = report.inner_text()
        assert NEEDS_WIDGETS in text
        assert ("gelu_chain" if i == 3 else "cos_plus") in text, text
        if extension:
            assert not error.is_visible(), f"cell {i} shows ipywidgets' error"
        else:
            assert error.is_visible()


@pytest.mark.parametrize("app", ["jupyterlab", "notebook"])
def test_a_reopened_notebook_shows_the_static_reports_not_errors(browser, tmp_path, artifacts,
                                                                 app):
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
