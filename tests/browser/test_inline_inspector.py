"""``nbcompile.inspect(f)``: the Compile inspector's views inside the cell, as a widget,
where nbcompile's JupyterLab extension is not installed (it is disabled here): JupyterLab
and Notebook 7 from one server and one kernel, in Debian's Chromium.

Exercised: a break and its line (clicking it selects the line beside its kernels), a
source line lighting up its kernels' code, the code search, a diff between two compiles.
"""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path

import nbformat
import pytest

from .conftest import lab_server
from .test_frontends import kept_on_failure, nbcompile_errors, new_page
from .test_sidebar import cells, run_cell, wait_idle_status

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(600)]

NOTEBOOK = "inline_inspector.ipynb"
COMPILE_CELL = '''%%compile
import torch
def gelu_chain(x):
    y = torch.sin(x) * 2
    print("debug")          # a graph break
    return torch.relu(y) + 1'''
# Two dtypes: a recompile, so the record holds diffs between compiles.
CALL_CELL = ("y = gelu_chain(torch.randn(8, 64))\n"
             "y = gelu_chain(torch.randn(8, 64, dtype=torch.float64))")
INSPECT_CELL = "import nbcompile\nnbcompile.inspect(gelu_chain)"
# The summary itself as the inline inspector, live while its target compiles.
COMPILE_INSPECT_CELL = "%%compile --inspect\ndef cos_plus(x):\n    return torch.cos(x) + 1"
COS_CALL_CELL = "z = cos_plus(torch.randn(8))"


def make_notebook(path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src)
                for src in ("%load_ext nbcompile", COMPILE_CELL, CALL_CELL, INSPECT_CELL,
                            COMPILE_INSPECT_CELL, COS_CALL_CELL)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    nbformat.write(nb, path)


def disable_extension(state: Path) -> None:
    """What ``jupyter labextension disable nbcompile-labextension`` writes, in this
    server's own configuration directory."""
    config = state / "config" / "labconfig"
    config.mkdir(parents=True, exist_ok=True)
    (config / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {"nbcompile-labextension": True}}))


def check_fallback_hidden(cell) -> None:
    """The static report published after the widget's output is not shown beside it."""
    fallback = cell.locator(".nbcompile-widget-fallback")
    assert fallback.count() == 1
    fallback.wait_for(state="hidden")


def check_one_view(widget, shown: str) -> None:
    """The tab ``shown`` (``views`` or ``map``) is selected, its pane drawn, the other
    pane takes no room."""
    panes = {"views": widget.locator(".nbc-widget-views"),
             "map": widget.locator(".nbc-widget-map")}
    tab = widget.locator(f'.nbc-widget-tab[data-view="{shown}"]')
    assert tab.get_attribute("aria-selected") == "true"
    assert panes[shown].is_visible()
    for name, pane in panes.items():
        if name != shown:
            box = pane.bounding_box()
            assert not pane.is_visible() and (box is None or box["height"] == 0), (name, box)


def check_break_and_map(widget) -> None:
    """The break at its line; clicking it selects the line beside its kernels; a source
    line lights up its kernels' code. Each tab shows one view."""
    breaks = widget.locator('.nbc-section[data-section="breaks"]')
    brk = breaks.locator(".nbc-break").first
    brk.wait_for()
    check_one_view(widget, "views")
    assert 'print("debug")' in brk.locator(".nbc-line").inner_text()
    assert brk.locator(".nbc-lineno").inner_text() == "line 5"
    brk.locator(".nbc-source-link").first.click()
    source_map = widget.locator(".nbc-widget-map")
    source_map.wait_for(state="visible")
    check_one_view(widget, "map")
    hot_rows = source_map.locator(".nbc-map-row.nbc-map-hot")
    assert [r.split()[0] for r in hot_rows.all_inner_texts()] == ["5"]
    source_map.locator(".nbc-map-row", has_text="torch.sin(x)").click()
    assert [r.split()[0] for r in hot_rows.all_inner_texts()] == ["4"]
    hot_code = source_map.locator(".nbc-codeline.nbc-map-hot")
    assert re.search(r"cpp_fused_\w*sin", hot_code.first.inner_text()), \
        hot_code.first.inner_text()
    # Back: a line of the other kernel's code lights up the line it came from.
    source_map.locator(".nbc-codeline", has_text=re.compile(r"def cpp_fused_\w*relu|"
                                                            r"cpp_fused_\w*relu")).first.click()
    assert [r.split()[0] for r in hot_rows.all_inner_texts()] == ["6"]


def test_inspect_in_jupyterlab_and_notebook7_without_the_extension(browser, tmp_path, artifacts):
    root = tmp_path / "root"
    root.mkdir()
    make_notebook(root / NOTEBOOK)
    state = tmp_path / "state"
    disable_extension(state)
    console: list[str] = []
    context, page = new_page(browser, console)
    with kept_on_failure(context, page, console, artifacts, "inline-inspector"):
        # Notebook 7's server serves JupyterLab too: one server, one kernel, both UIs.
        with lab_server(root, state, secrets.token_hex(16), app="notebook") as server:
            page.goto(f"{server.url}/lab/tree/{NOTEBOOK}?token={server.token}")
            cells(page).nth(3).wait_for(timeout=60_000)
            server.wait_kernel_idle(NOTEBOOK)
            wait_idle_status(page)
            for i in range(4):
                run_cell(page, i)
            widget = cells(page).nth(3).locator(".nbc-widget")
            widget.wait_for(timeout=60_000)
            # The extension is off: no sidebar, no inline summary renderer.
            assert page.locator("#nbcompile-inspector").count() == 0
            assert page.locator(".nbc-inline").count() == 0
            assert "gelu_chain" in widget.locator(".nbc-widget-header").inner_text()
            check_fallback_hidden(cells(page).nth(3))
            check_break_and_map(widget)

            # A diff between the two compiles, in the same code pane.
            source_map = widget.locator(".nbc-widget-map")
            picker = source_map.locator(".nbc-tab-toolbar select")
            diffs = picker.locator("option").all_inner_texts()[1:]
            assert diffs and all(d.startswith("diff ") for d in diffs), diffs
            picker.select_option("0")
            assert source_map.get_attribute("data-pane") == "0"
            lines = source_map.locator(".nbc-codeline-text").all_inner_texts()
            assert any(t.startswith(("+", "-")) for t in lines), lines[:20]

            # Back to the sections: the generated code, searched.
            widget.locator('.nbc-widget-tab[data-view="views"]').click()
            check_one_view(widget, "views")
            code = widget.locator('.nbc-section[data-section="code"]')
            code.locator(".nbc-kernel-row").first.wait_for()
            code.locator(".nbc-linecode-find").fill("sin")
            hits = code.locator(".nbc-codeline.nbc-search-hit")
            assert hits.count() >= 1
            assert "sin" in code.locator(".nbc-search-current").inner_text()
            assert re.fullmatch(r"1 of \d+", code.locator(".nbc-linecode-hits").inner_text())
            # The compiles, with phases and the recompile's reason.
            assert widget.locator('.nbc-section[data-section="recompiles"] .nbc-count'
                                  ).inner_text() != "0"
            page.screenshot(path=str(artifacts / "inline-inspector-lab.png"))

            # %%compile --inspect: the cell's summary is the inspector, redrawn as it compiles.
            run_cell(page, 4)
            run_cell(page, 5)
            live = cells(page).nth(4).locator(".nbc-widget")
            live.wait_for(timeout=60_000)
            assert "cos_plus" in live.locator(".nbc-widget-header").inner_text()
            live.locator(".nbc-status-compiled").first.wait_for(timeout=60_000)
            check_fallback_hidden(cells(page).nth(4))

            # Notebook 7, same kernel: the inspect cell again.
            page2 = context.new_page()
            page2.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
            page2.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
            page2.set_default_timeout(30_000)
            page2.goto(server.lab_url(NOTEBOOK))
            cells(page2).nth(3).wait_for(timeout=60_000)
            assert page2.locator(".jp-LabShell").count() == 0
            run_cell(page2, 3)
            widget2 = cells(page2).nth(3).locator(".nbc-widget")
            widget2.wait_for(timeout=60_000)
            check_fallback_hidden(cells(page2).nth(3))
            check_break_and_map(widget2)
            page2.screenshot(path=str(artifacts / "inline-inspector-notebook7.png"))
    assert not nbcompile_errors(console), console
