"""``nbcompile.inspect(f)`` in a real JupyterLab and Notebook 7, in Debian's Chromium:

- A snapshot says it is one: taken before a recompile, the view says "as of cell [4]"
  and keeps 0 recompiles; its *Refresh* button asks the kernel to read the target again,
  and the view then shows the recompile, as of the last cell run.
- Keys stay in the pane: in Notebook 7, after clicking a source line, ArrowDown moves to
  the next source line and Enter selects it, in the inspector; the notebook's active cell
  stays where it was and no cell opens for editing. The same in the code pane.
"""

from __future__ import annotations

import re
import secrets
from pathlib import Path

import nbformat
import pytest

from .conftest import lab_server
from .test_frontends import kept_on_failure, nbcompile_errors, new_page
from .test_inline_inspector import COMPILE_CELL
from .test_sidebar import cells, run_cell, wait_idle_status

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(600)]

NOTEBOOK = "snapshot.ipynb"
FIRST_CALL = "y = gelu_chain(torch.randn(8, 64))"
INSPECT = "import nbcompile\nnbcompile.inspect(gelu_chain)"
RECOMPILE = "y = gelu_chain(torch.randn(8, 64, dtype=torch.float64))"
#: The inspect cell: the fourth run, so its prompt is [4].
INSPECT_AT = 3


def make_notebook(path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in
                ("%load_ext nbcompile", COMPILE_CELL, FIRST_CALL, INSPECT, RECOMPILE)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    nbformat.write(nb, path)


def open_and_inspect(page, server, runs: int):
    page.goto(server.lab_url(NOTEBOOK))
    cells(page).nth(4).wait_for(timeout=60_000)
    server.wait_kernel_idle(NOTEBOOK)
    if server.app == "jupyterlab":  # Notebook 7 has no status bar: the kernel told idle
        wait_idle_status(page)
    for i in range(runs):
        run_cell(page, i)
    widget = cells(page).nth(INSPECT_AT).locator(".nbc-widget")
    widget.wait_for(timeout=60_000)
    return widget


def recompiles(widget) -> str:
    count = widget.locator('.nbc-section[data-section="recompiles"] .nbc-count')
    return count.inner_text() if count.count() else "0"


def test_a_snapshot_says_so_and_refreshes(browser, tmp_path, artifacts):
    root = tmp_path / "root"
    root.mkdir()
    make_notebook(root / NOTEBOOK)
    console: list[str] = []
    context, page = new_page(browser, console)
    with kept_on_failure(context, page, console, artifacts, "inspector-snapshot"):
        with lab_server(root, tmp_path / "state", secrets.token_hex(16)) as server:
            widget = open_and_inspect(page, server, runs=5)
            line = widget.locator(".nbc-widget-snapshot")
            line.wait_for()
            assert "as of cell [4]" in line.inner_text(), line.inner_text()
            # The recompile in cell [5] came after the snapshot: not in it.
            assert recompiles(widget) == "0"
            line.get_by_role("button", name="Refresh").click()
            widget.locator(".nbc-widget-snapshot", has_text="as of cell [5]").wait_for()
            widget.locator('.nbc-section[data-section="recompiles"] .nbc-count').wait_for()
            assert recompiles(widget) != "0"
            page.screenshot(path=str(artifacts / "inspector-snapshot.png"))
    assert not nbcompile_errors(console), console


def active_cell(page) -> int:
    return page.evaluate("""() => [...document.querySelectorAll(
        '.jp-NotebookPanel .jp-Notebook .jp-Cell')].findIndex(
        c => c.classList.contains('jp-mod-active'))""")


def focused_line(page) -> str | None:
    return page.evaluate("""() => document.activeElement?.closest?.('.nbc-map-row')
        ?.dataset.lineno ?? null""")


def check_keys_stay(page, widget) -> None:
    """ArrowDown and Enter after a click on a source line, then in the code pane."""
    widget.locator('.nbc-widget-tab[data-view="map"]').click()
    source_map = widget.locator(".nbc-widget-map")
    hot = source_map.locator(".nbc-map-row.nbc-map-hot")
    source_map.locator(".nbc-map-row", has_text="torch.sin(x)").click()
    assert [r.split()[0] for r in hot.all_inner_texts()] == ["4"]
    assert active_cell(page) == INSPECT_AT
    page.keyboard.press("ArrowDown")
    assert focused_line(page) == "5"
    page.keyboard.press("Enter")
    assert [r.split()[0] for r in hot.all_inner_texts()] == ["5"]
    assert active_cell(page) == INSPECT_AT
    assert page.locator(".jp-Notebook.jp-mod-editMode").count() == 0
    # The code pane: a click on a line, then ArrowDown moves its cursor, not the notebook.
    code = source_map.locator(".nbc-linecode-lines")
    code.locator(".nbc-codeline").first.click()
    cursor = code.locator(".nbc-codeline.nbc-codeline-cursor")
    first = cursor.get_attribute("data-line")
    page.keyboard.press("ArrowDown")
    assert cursor.get_attribute("data-line") == str(int(first or 0) + 1)
    assert active_cell(page) == INSPECT_AT
    assert page.locator(".jp-Notebook.jp-mod-editMode").count() == 0


def test_keys_stay_in_the_pane_in_notebook7(browser, tmp_path, artifacts):
    root = tmp_path / "root"
    root.mkdir()
    make_notebook(root / NOTEBOOK)
    console: list[str] = []
    context, page = new_page(browser, console)
    with kept_on_failure(context, page, console, artifacts, "inspector-keys"):
        with lab_server(root, tmp_path / "state", secrets.token_hex(16),
                        app="notebook") as server:
            widget = open_and_inspect(page, server, runs=4)
            assert page.locator(".jp-LabShell").count() == 0  # Notebook 7
            assert re.search(r"/notebooks/", page.url)
            check_keys_stay(page, widget)
    assert not nbcompile_errors(console), console
