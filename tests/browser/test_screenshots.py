"""The documentation's screenshots, taken from a real notebook in a real JupyterLab.

A notebook that uses every command (``%%compile`` with a graph break, a call, ``report``,
``%compare``, ``%kprun``, ``%suggest``, ``%diagnose``, ``%nbcompile open`` on a two-rank
TORCH_TRACE job recorded by ``torchrun``, ``%nbcompile cache``, ``%nbcompile config``) runs
cell by cell in JupyterLab (light theme, a fixed viewport) in Debian's Chromium; each shot
waits for what it shows (so a UI change that breaks a picture fails here), then saves it.
``make screenshots`` (``NBCOMPILE_SCREENSHOTS=docs``) writes them where the docs use them,
``docs/_static/screenshots/``; ``NBCOMPILE_SCREENSHOTS=artifacts`` to
``test-artifacts/screenshots/``. Without it the test is skipped: it runs every command for
its picture (two and a half minutes of a 2-core machine), while each view it shows is
checked in a real Lab by the other browser tests (``test_report_views``: trace, profile,
suggestions, compile time, comparison, diagnosis; ``test_sidebar``/``test_frontends``:
the summary, the inspector, source and kernels).
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

from tests.support.tour import CALL_CELL, COMPILE_CELL

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

SQUASH_CELL = '''def squash(x):                 # bfloat16 math: compiled keeps float32 inside
    y = x * 1.7 + 0.3
    y = torch.sin(y) * y
    y = torch.exp(y) / (1 + torch.exp(y))
    return torch.tanh(y * 3.1 - 0.2)
xb = torch.randn(4096, dtype=torch.bfloat16)
fast = torch.compile(squash)'''
BLOCKS_CELL = '''class Block(torch.nn.Module):  # six identical blocks: regional compilation's case
    def __init__(self):
        super().__init__()
        self.norm, self.up, self.down = (torch.nn.LayerNorm(32), torch.nn.Linear(32, 64),
                                         torch.nn.Linear(64, 32))
    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))
blocks = torch.nn.Sequential(*[Block() for _ in range(6)]).requires_grad_(False)
x32 = torch.randn(4, 32)'''
ACT_CELL = '''%%compile --backend eager
def act(x):
    return x.relu() if MODE == "relu" else x.tanh()'''

#: (source, the screenshot of the cell and its output, or None)
CELLS: list[tuple[str, str | None]] = [
    ("%load_ext nbcompile", None),
    (COMPILE_CELL, None),
    (CALL_CELL, "compile-summary.png"),  # the %%compile cell and this one, together
    ("nbcompile.report(gelu_chain)", "report.png"),
    ("%compare wave(big) --modes default,max-autotune-no-cudagraphs --budget 5",
     "compare.png"),
    ("%kprun scaled(big, 2.0) --repeat 10", "kprun.png"),
    ("%suggest gelu_chain(x) --budget 60", "suggest.png"),
    (SQUASH_CELL, None),
    ("%diagnose fast(xb) --budget 40", "diagnose.png"),
    (BLOCKS_CELL, None),
    ("%compile_time blocks(x32) --remedies regional --rounds 3", "compile-time.png"),
    (ACT_CELL, None),
    ('MODE = "relu"\nact(x);', None),
    ('MODE = "tanh"', None),
    ("%%stance fail_on_recompile\nact(x)", "stance.png"),  # refused: the guard, the cell
    ("%nbcompile open job_trace", "open-trace.png"),
    ("%nbcompile cache --info", "cache.png"),
    ("%nbcompile config", "config.png"),
]


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
    shutil.copytree(runs("ddp_divergent"), root / "job_trace")

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
            shoot_cells(page, 1, 2, out / "compile-summary.png")

            # The inspector beside the notebook, then source and kernels in a tab.
            inline.get_by_role("button", name="Inspect").first.click()
            sidebar = page.locator("#nbcompile-inspector")
            sidebar.wait_for(state="visible")
            widen_sidebar(page, 260)
            sidebar.locator(".nbc-target-row", has_text="gelu_chain").first.click()
            sidebar.locator(".nbc-break").first.wait_for()
            sidebar.locator(".nbc-kernel-row").first.wait_for()
            cells(page).nth(1).evaluate("e => e.scrollIntoView({block: 'start'})")
            page.wait_for_timeout(500)
            page.screenshot(path=str(out / "inspector.png"))

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
            page.screenshot(path=str(out / "source-kernels.png"))
            page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text=NOTEBOOK).click()

            # Every other command, its cell and output.
            shows = {"open-trace.png": ".nbc-trace", "cache.png": ".jp-OutputArea-output",
                     "config.png": ".jp-OutputArea-output",
                     "stance.png": ".jp-OutputArea-output"}
            #: the first cell of each shot when it is not the command's own
            starts = {"diagnose.png": 1, "compile-time.png": 1, "stance.png": 3}
            for index in range(3, len(CELLS)):
                run_cell(page, index, timeout=600)
                name = CELLS[index][1]
                if name is None:
                    continue
                cell = cells(page).nth(index)
                cell.locator(shows.get(name, ".nbc-inline")).first.wait_for(timeout=60_000)
                text = cell.locator(".jp-Cell-outputWrapper").inner_text()
                if name == "stance.png":  # the refusal is the point: torch's error, in words
                    assert "fail_on_recompile" in text and "MODE" in text, text[:3000]
                else:
                    assert "Traceback" not in text and "UsageError" not in text, text[:3000]
                if name == "report.png":  # open the compile phases
                    cell.locator(".nbc-inline details > summary").first.click()
                shoot_cells(page, index - starts.get(name, 0), index, out / name)

        # The command line's self-contained page, as a browser shows it.
        html = tmp_path / "trace.html"
        subprocess.run([sys.executable, "-m", "nbcompile", "open", str(root / "job_trace"),
                        "--html", str(html)], check=True, cwd=ROOT, timeout=300,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
        page.goto(html.as_uri())
        page.wait_for_timeout(500)
        page.screenshot(path=str(out / "cli-html.png"))
    except BaseException:
        page.screenshot(path=str(artifacts / "screenshots-failure.png"))
        for log in state.glob("lab-*.log"):
            print(log.read_text()[-4000:])
        raise
    finally:
        context.close()
    names = sorted(p.name for p in out.glob("*.png"))
    expected = sorted({n for _, n in CELLS if n} | {"inspector.png", "source-kernels.png",
                                                    "cli-html.png"})
    assert [n for n in expected if n not in names] == []
