"""The sidebar after a page reload while the kernel keeps running, in a real JupyterLab
in Debian's Chromium: the outputs were never saved (autosave off), so the reloaded page's
outputs hold no record; the sidebar lists the kernel's target anyway, live, because it
asks the kernel for what it holds when it connects."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import nbformat
import pytest

from .conftest import lab_server
from .test_frontends import kept_on_failure, nbcompile_errors, new_page
from .test_sidebar import (
    CALL_CELL,
    COMPILE_CELL,
    MIME,
    cells,
    open_sidebar_tab,
    read_saved,
    run_cell,
    wait_idle_status,
)

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(600)]

NOTEBOOK = "reload_demo.ipynb"


def no_autosave(state: Path) -> None:
    """JupyterLab's document manager setting, in this server's settings directory: the
    outputs stay unsaved, so only the kernel holds the records."""
    docmanager = state / "settings" / "@jupyterlab" / "docmanager-extension"
    docmanager.mkdir(parents=True, exist_ok=True)
    (docmanager / "plugin.jupyterlab-settings").write_text(json.dumps({"autosave": False}))


def test_a_reloaded_page_lists_the_running_kernels_targets(browser, tmp_path, artifacts):
    root = tmp_path / "root"
    root.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src)
                for src in ("%load_ext nbcompile", COMPILE_CELL, CALL_CELL)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    nbformat.write(nb, root / NOTEBOOK)
    state = tmp_path / "state"
    no_autosave(state)
    console: list[str] = []
    context, page = new_page(browser, console)
    # The unsaved notebook's "leave the page?" question: yes.
    page.on("dialog", lambda d: d.accept())
    with kept_on_failure(context, page, console, artifacts, "sidebar-reload"):
        with lab_server(root, state, secrets.token_hex(16)) as server:
            page.goto(server.lab_url(NOTEBOOK))
            cells(page).nth(2).wait_for(timeout=60_000)
            server.wait_kernel_idle(NOTEBOOK)
            wait_idle_status(page)
            for i in range(3):
                run_cell(page, i)
            cells(page).nth(1).locator(".nbc-inline .nbc-status-compiled").wait_for(
                timeout=60_000)
            kernel = server.wait_kernel_idle(NOTEBOOK)["kernel"]["id"]
            saved = read_saved(root / NOTEBOOK)
            assert saved is not None and MIME not in json.dumps(saved), "the outputs were saved"

            page.reload()
            cells(page).nth(2).wait_for(timeout=60_000)
            # The page's outputs hold no record: only the kernel can tell the sidebar.
            assert cells(page).locator(".nbc-inline").count() == 0
            open_sidebar_tab(page)
            sidebar = page.locator("#nbcompile-inspector")
            row = sidebar.locator(".nbc-target-row", has_text="gelu_chain")
            row.locator(".nbc-status-compiled").wait_for(timeout=60_000)
            assert server.wait_kernel_idle(NOTEBOOK)["kernel"]["id"] == kernel
            assert "live" in sidebar.locator(".nbc-state").inner_text()
            assert sidebar.locator(".nbc-badge-saved").count() == 0
            assert 'print("debug")' in sidebar.locator(".nbc-break .nbc-line").first.inner_text()
            page.screenshot(path=str(artifacts / "sidebar-reload.png"))
    assert not nbcompile_errors(console), console
