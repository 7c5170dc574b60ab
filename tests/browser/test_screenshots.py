"""The documentation's screenshots, taken from a real notebook in a real JupyterLab, each
with the text of the view it shows beside it.

The tour (``tests/support/tour.py``: ``%%compile`` with a graph break, a call, ``report``,
``%compare``, ``%kprun``, ``%suggest``, ``%diagnose``, ``%compile_time``, ``%%stance``,
``%nbcompile open`` on a two-rank TORCH_TRACE job recorded by ``torchrun``, ``%nbcompile
cache``, ``%nbcompile config``) runs cell by cell in JupyterLab (light theme, a fixed
viewport) in Debian's Chromium; each shot waits for what it shows (so a UI change that
breaks a picture fails here), then saves it and, beside it, its view's text
(``tests/support/view_text.py``: ``kprun.txt`` beside ``kprun.png``).
``make screenshots`` (``NBCOMPILE_SCREENSHOTS=docs``) writes them where the docs use them,
``docs/_static/screenshots/``; ``NBCOMPILE_SCREENSHOTS=artifacts`` to
``test-artifacts/screenshots/``. Without it the test is skipped: it runs every command for
its picture (two and a half minutes of a 2-core machine). ``make test`` runs the same tour
in ``test_report_views``, which checks each view in a real Lab and fails when one reads
differently from the text its picture was shot with: then re-shoot them here.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tests.support import view_text
from tests.support.tour import (
    CELLS,
    CLI_HTML,
    INSPECTED,
    INSPECTOR,
    REFUSED,
    SOURCE_KERNELS,
    TRACE_DIR,
    shots,
)

from .conftest import ROOT, lab_server
from .test_sidebar import (
    cells,
    open_sidebar_tab,
    run_cell,
    wait_idle_status,
    widen_sidebar,
)

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(1800),
              pytest.mark.skipif(not os.environ.get("NBCOMPILE_SCREENSHOTS"),
                                 reason="the docs' pictures: `make screenshots` takes them")]

DOCS_SHOTS = ROOT / "docs" / "_static" / "screenshots"
VIEWPORT = {"width": 1360, "height": 860}
NOTEBOOK = "nbcompile-tour.ipynb"
#: What each command's view waits for before its picture (else its inline view).
SHOWS = {"open-trace.png": ".nbc-trace", "cache.png": ".jp-OutputArea-output",
         "config.png": ".jp-OutputArea-output", "stance.png": ".jp-OutputArea-output"}


def shots_dir(artifacts: Path) -> Path:
    out = DOCS_SHOTS if os.environ.get("NBCOMPILE_SCREENSHOTS") == "docs" else (
        artifacts / "screenshots")
    out.mkdir(parents=True, exist_ok=True)
    return out


def make_notebook(path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src, _ in CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    nbformat.write(nb, path)


def shoot_cells(page, first: int, last: int, path: Path, max_height: int = 780) -> None:
    """The cells ``first..last`` with their outputs, from the top of the notebook panel."""
    top = cells(page).nth(first)
    top.evaluate("e => e.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(400)  # the scroll settles, lazy outputs paint
    a = top.bounding_box()
    b = cells(page).nth(last).bounding_box()
    panel = page.locator(".jp-NotebookPanel:visible .jp-WindowedPanel-outer").bounding_box() \
        or page.locator(".jp-NotebookPanel:visible").bounding_box()
    assert a and b and panel
    y = max(a["y"] - 6, panel["y"])
    height = min(b["y"] + b["height"] - y, max_height, panel["y"] + panel["height"] - y)
    page.screenshot(path=str(path), clip={"x": panel["x"], "y": y,
                                         "width": panel["width"], "height": height})


def test_screenshots(browser, tmp_path, artifacts, runs):
    out = shots_dir(artifacts)
    root = tmp_path / "root"
    root.mkdir()
    state = tmp_path / "state"
    make_notebook(root / NOTEBOOK)
    # A real two-rank job (torchrun, gloo) whose rank 1 recompiled: the trace to open
    # (recorded once per run for every test that reads it: conftest's ``runs``).
    shutil.copytree(runs("ddp_divergent"), root / TRACE_DIR)

    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        with lab_server(root, state, secrets.token_hex(16)) as server:
            page.goto(server.lab_url(NOTEBOOK))
            cells(page).nth(len(CELLS) - 1).wait_for(timeout=60_000)
            server.wait_kernel_idle(NOTEBOOK)
            wait_idle_status(page)
            assert page.evaluate("document.body.dataset.jpThemeLight") == "true"
            page.keyboard.press("Control+b")  # fold the file browser: room for the notebook

            for index in range(3):
                run_cell(page, index, timeout=600)
            inline = cells(page).nth(1).locator(".nbc-inline")
            inline.locator(".nbc-status-compiled").first.wait_for(timeout=120_000)
            summary = CELLS[2][1]
            assert summary
            shoot_cells(page, summary.first, 2, out / summary.name)
            view_text.save(summary.name, view_text.cells_text(cells(page), summary, 2), out)

            # The inspector beside the notebook, then source and kernels in a tab.
            inline.get_by_role("button", name="Inspect").first.click()
            sidebar = page.locator("#nbcompile-inspector")
            sidebar.wait_for(state="visible")
            widen_sidebar(page, 260)
            sidebar.locator(".nbc-target-row", has_text=INSPECTED).first.click()
            sidebar.locator(".nbc-break").first.wait_for()
            sidebar.locator(".nbc-kernel-row").first.wait_for()
            cells(page).nth(1).evaluate("e => e.scrollIntoView({block: 'start'})")
            page.wait_for_timeout(500)
            page.screenshot(path=str(out / INSPECTOR.name))
            view_text.save(INSPECTOR.name, view_text.read(page.locator(INSPECTOR.view)), out)

            sidebar.locator(".nbc-open-tab").click()
            tab = page.locator(".nbc-tabview")
            tab.wait_for()
            open_sidebar_tab(page)  # (a no-op: it is open) then fold it away for the tab
            page.locator('.jp-SideBar.jp-mod-right .lm-TabBar-tab'
                         '[data-id="nbcompile-inspector"]').click()
            sidebar.wait_for(state="hidden")
            tab.locator(".nbc-map-row").filter(has_text="torch.sin(x)").first.click()
            tab.locator(".nbc-map-code .cm-line.nbc-map-hot").first.wait_for()
            page.wait_for_timeout(300)
            page.screenshot(path=str(out / SOURCE_KERNELS.name))
            view_text.save(SOURCE_KERNELS.name, view_text.read(page.locator(SOURCE_KERNELS.view)),
                           out)
            page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text=NOTEBOOK).click()

            # Every other command, its cell and output.
            for index in range(3, len(CELLS)):
                run_cell(page, index, timeout=600)
                shot = CELLS[index][1]
                if shot is None:
                    continue
                cell = cells(page).nth(index)
                cell.locator(SHOWS.get(shot.name, ".nbc-inline")).first.wait_for(timeout=60_000)
                text = cell.locator(".jp-Cell-outputWrapper").inner_text()
                if index == REFUSED:  # the refusal is the point: torch's error, in words
                    assert "fail_on_recompile" in text and "MODE" in text, text[:3000]
                else:
                    assert "Traceback" not in text and "UsageError" not in text, text[:3000]
                if shot.name == "report.png":  # open the compile phases
                    cell.locator(".nbc-inline details > summary").first.click()
                shoot_cells(page, shot.first, index, out / shot.name)
                view_text.save(shot.name, view_text.cells_text(cells(page), shot, index), out)

        # The command line's self-contained page, as a browser shows it.
        html = tmp_path / "trace.html"
        subprocess.run([sys.executable, "-m", "nbcompile", "open", str(root / TRACE_DIR),
                        "--html", str(html)], check=True, cwd=ROOT, timeout=300,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
        page.goto(html.as_uri())
        page.wait_for_timeout(500)
        page.screenshot(path=str(out / CLI_HTML.name))
        view_text.save(CLI_HTML.name, view_text.read(page.locator(CLI_HTML.view)), out)
    except BaseException:
        page.screenshot(path=str(artifacts / "screenshots-failure.png"))
        for log in state.glob("lab-*.log"):
            print(log.read_text()[-4000:])
        raise
    finally:
        context.close()
    names = sorted(p.name for p in out.glob("*.png"))
    assert [s.name for s in shots() if s.name not in names] == []
    assert [s.name for s in shots() if not view_text.path(s.name, out).exists()] == []
