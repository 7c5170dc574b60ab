"""The tour's views in a real JupyterLab, driven in Debian's Chromium, and the
documentation's pictures of them checked against today's.

The tour (``tests/support/tour.py``: the README's program, then ``report``, ``%compare``,
``%kprun``, ``%suggest``, ``%diagnose``, ``%compile_time``, a refused recompile under
``%%stance``, ``%nbcompile open`` on a two-rank TORCH_TRACE job recorded by torchrun,
``%nbcompile cache --info`` and ``config``) runs in a real kernel (nbclient). Saved, then
opened in Lab where no kernel can start: each output renders inline from the saved record
(trace grid with the divergent compile marked, the source painted by measured time, the
proven fix with its change), and the Compile inspector shows the same records: clicking a
grid cell opens that rank's compile (phases, FX graph in the code view), the notebook's
breaks are ranked by measured cost with their documentation link, and the target's
compiles show phase bars.

The same program is what ``make screenshots`` shoots (``tests/browser/test_screenshots.py``),
keeping each view's text beside its picture: each view here, read the same way, must read
as its picture's (``tests/support/view_text.py``), or the picture is stale.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tests.support import ROOT, view_text
from tests.support.kernel import execute_notebook
from tests.support.tour import (
    CELLS,
    CLI_HTML,
    INSPECTED,
    INSPECTOR,
    SOURCE_KERNELS,
    TRACE_DIR,
    ci_cells,
    shots,
)

from .conftest import lab_server
from .test_frontends import new_page
from .test_sidebar import cells, open_sidebar_tab, widen_sidebar

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(600)]

NOTEBOOK = "nbcompile-tour.ipynb"
# The cells of the tour the views below are read from.
COMPILE, REPORT, COMPARE, KPRUN, SUGGEST, DIAGNOSE, COMPILE_TIME, TRACE = 1, 3, 4, 5, 6, 8, 10, 15


def make_notebook(root: Path) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in ci_cells()]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    execute_notebook(nb, cwd=root, allow_errors=True)  # the %%stance cell's refusal
    path = root / NOTEBOOK
    nbformat.write(nb, path)
    return path


def choose_no_kernel(page) -> None:
    dialog = page.locator(".jp-Dialog")
    try:
        dialog.wait_for(timeout=8_000)
    except Exception:  # noqa: BLE001 - no dialog is fine too
        return
    no_kernel = dialog.get_by_role("button", name=re.compile("no kernel", re.I))
    (no_kernel.first if no_kernel.count() else dialog.locator("button.jp-mod-reject").first).click()
    dialog.wait_for(state="detached")


def test_tour_views_and_their_pictures(browser, tmp_path, artifacts, runs):
    root = tmp_path / "root"
    root.mkdir()
    # A real two-rank job (torchrun, gloo) whose rank 1 recompiled (recorded once per run
    # for every test that reads it: conftest's ``runs``).
    shutil.copytree(runs("ddp_divergent"), root / TRACE_DIR)
    nb_path = make_notebook(root)
    saved = nbformat.read(nb_path, as_version=4)
    mime = "application/vnd.nbcompile.v1+json"
    kinds = [o["data"][mime]["record"] for c in saved.cells for o in c.get("outputs", [])
             if mime in o.get("data", {})]
    assert {"summary", "profile", "suggestions", "trace", "compile_time", "timing",
            "diagnosis"} <= set(kinds), kinds
    # %compare's result as the kernel displayed it: the record, its fallbacks and the chart
    (timing,) = [o["data"] for o in saved.cells[COMPARE].get("outputs", [])
                 if o.get("output_type") == "execute_result"]
    assert {mime, "text/html", "text/plain", "image/png"} <= set(timing), set(timing)
    assert [r["mode"] for r in timing[mime]["rows"]] == [
        "eager", "default", "max-autotune-no-cudagraphs"]
    assert timing[mime]["schema_version"] == 1 and "<table>" in timing["text/html"]
    remedies = [r["kind"] for c in saved.cells for o in c.get("outputs", [])
                if o.get("data", {}).get(mime, {}).get("record") == "compile_time"
                for r in o["data"][mime]["remedies"]]
    assert "regional" in remedies, remedies
    logs = {t["name"]: len(t["torch_logs"]) for c in saved.cells for o in c.get("outputs", [])
            if o.get("data", {}).get(mime, {}).get("record") == "summary"
            for t in o["data"][mime]["targets"]}
    stale: list[str] = []  # the pictures whose view reads differently today

    today = artifacts / "view-text"  # each view's text today, beside the failure
    today.mkdir(exist_ok=True)

    def check(shot, text: str) -> None:
        view_text.save(shot.name, text, today)
        why = view_text.stale(shot.name, text)
        if why:
            stale.append(why)

    console: list[str] = []
    context, page = new_page(browser, console, viewport={"width": 1500, "height": 1000})
    state = tmp_path / "state"
    try:
        with lab_server(root, state, secrets.token_hex(16),
                        ["--KernelSpecManager.allowed_kernelspecs=nbcompile-no-kernel"]) as server:
            page.goto(server.lab_url(NOTEBOOK))
            cells(page).nth(len(CELLS) - 1).wait_for(timeout=60_000)
            choose_no_kernel(page)

            # ---- Inline, from the saved outputs, no kernel. ----
            # Each view's text first, as the pictures show them (phases folded but the
            # report's), then the views' behaviour.
            for index, (_, shot) in enumerate(CELLS):
                if shot is not None:
                    cells(page).nth(index).scroll_into_view_if_needed()
                    cells(page).nth(index).locator(".jp-OutputArea-output:visible").first.wait_for(
                        timeout=20_000)
                    if index == REPORT:  # its picture shows the compile phases open
                        cells(page).nth(index).locator(
                            ".nbc-inline details > summary").first.click()
                    check(shot, view_text.cells_text(cells(page), shot, index))
            phases = cells(page).nth(COMPILE).locator(".nbc-inline .nbc-inline-phases").first
            phases.wait_for(timeout=20_000)
            phases.scroll_into_view_if_needed()
            phases.locator("summary").click()
            assert phases.locator(".nbc-phase-bar").count() >= 2  # gelu_chain's two compiles
            assert "Dynamo tracing" in phases.locator(".nbc-phase-legend").inner_text()
            cells(page).nth(TRACE).scroll_into_view_if_needed()  # drawn in view
            trace = cells(page).nth(TRACE).locator(".nbc-inline .nbc-trace")
            trace.wait_for(timeout=20_000)
            assert "ranks compiled differently" in (trace.text_content() or "")
            grid = trace.locator(".nbc-trace-grid")
            assert grid.locator("tbody tr").count() == 2  # rank 0, rank 1
            assert grid.locator(".nbc-trace-cell.nbc-divergent").count() >= 1
            cells(page).nth(KPRUN).scroll_into_view_if_needed()  # drawn in view
            profile = cells(page).nth(KPRUN).locator(".nbc-inline .nbc-profile")
            src = profile.locator(".nbc-profile-lines tr", has_text=".item()")
            assert src.count() == 1
            painted = profile.locator(".nbc-profile-src[style*='background']")
            assert painted.count() >= 1
            assert profile.locator(".nbc-profile-kernels tbody tr").count() >= 2
            cells(page).nth(SUGGEST).scroll_into_view_if_needed()  # drawn in view
            sugg = cells(page).nth(SUGGEST).locator(".nbc-inline .nbc-suggestions")
            proven = sugg.locator(".nbc-suggestion-verified")
            assert proven.count() >= 1
            assert "reorderable_logging_functions" in (sugg.text_content() or "")
            proven_text = proven.first.text_content() or ""
            assert "before" in proven_text and "after" in proven_text
            cells(page).nth(COMPILE_TIME).scroll_into_view_if_needed()  # drawn in view
            ct = cells(page).nth(COMPILE_TIME).locator(".nbc-inline .nbc-compile-time")
            ct.wait_for(timeout=20_000)
            assert ct.locator('tr[data-kind="regional"]').count() == 1
            cells(page).nth(COMPARE).scroll_into_view_if_needed()  # drawn in view
            timing = cells(page).nth(COMPARE).locator(".nbc-inline .nbc-timing")
            timing.wait_for(timeout=20_000)
            assert timing.locator("tbody tr").count() >= 3  # eager and the two modes
            assert "default" in (timing.text_content() or "")
            cells(page).nth(DIAGNOSE).scroll_into_view_if_needed()  # drawn in view
            diagnosis = cells(page).nth(DIAGNOSE).locator(".nbc-inline .nbc-diagnosis")
            diagnosis.wait_for(timeout=20_000)
            assert "float64" in (diagnosis.text_content() or "")

            # ---- The inspector shows the same records. ----
            open_sidebar_tab(page)
            widen_sidebar(page, 320)
            sidebar = page.locator("#nbcompile-inspector")
            # The inspector and the tab as their pictures show them: the README's target.
            inspected = sidebar.locator(".nbc-target-row", has_text=INSPECTED).first
            inspected.wait_for(timeout=20_000)
            inspected.click()
            sidebar.locator(".nbc-break").first.wait_for()
            sidebar.locator(".nbc-kernel-row").first.wait_for()
            check(INSPECTOR, view_text.read(page.locator(INSPECTOR.view)))
            sidebar.locator(".nbc-open-tab").click()
            tab = page.locator(".nbc-tabview:visible")
            tab.wait_for()
            tab.locator(".nbc-map-row").filter(has_text="torch.sin(x)").first.click()
            tab.locator(".nbc-map-code .cm-line.nbc-map-hot").first.wait_for()
            check(SOURCE_KERNELS, view_text.read(tab))
            page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text=NOTEBOOK).click()
            sidebar.locator(".nbc-target-row", has_text="scaled").first.click()

            # The trace: click rank 1's first compile in the grid -> its compile view.
            section = sidebar.locator('.nbc-section[data-section="trace"]')
            section.wait_for()
            assert "ranks differ" in section.locator(":scope > summary").inner_text()
            rank1 = section.locator(".nbc-trace-grid tbody tr").nth(1)
            assert rank1.locator("th").inner_text() == "rank 1"
            rank1.locator(".nbc-trace-compiled").first.click()
            head = section.locator(".nbc-trace-compile-head")
            assert "rank 1" in head.inner_text()
            assert section.locator(".nbc-trace-compile .nbc-phase-bar .nbc-phase").count() >= 1
            code = section.locator(".nbc-codeview .cm-content")
            code.wait_for()
            assert "def forward" in code.inner_text()
            # The stack of frames that compiled lists both programs' frames.
            frames = section.locator(".nbc-trace-frames")
            frames.locator("summary").click()
            frames.locator(".nbc-frame-compiles .nbc-button").first.wait_for()
            assert frames.locator(".nbc-frame-compiles .nbc-button").count() >= 3

            # Profile and suggestions sections.
            prof = sidebar.locator('.nbc-section[data-section="profile"]')
            assert prof.locator(".nbc-profile-kernels tbody tr").count() >= 2
            sug = sidebar.locator('.nbc-section[data-section="suggestions"]')
            assert "reorderable_logging_functions" in sug.inner_text()
            # The compile-time record: its name, one row per remedy, the inline view's.
            ctime = sidebar.locator('.nbc-section[data-section="compile-time"]')
            assert "Compile time: Sequential" in ctime.locator(":scope > summary").inner_text()
            assert ctime.locator(":scope > summary .nbc-count").inner_text() == str(
                len(remedies))
            regional = ctime.locator('.nbc-compile-time-remedies tr[data-kind="regional"]')
            assert "regional" in regional.inner_text()
            ctime.screenshot(path=str(artifacts / "compile-time-section.png"))

            # The notebook's breaks, ranked by measured cost (a profile saw the break).
            ranked = sidebar.locator('.nbc-section[data-section="ranked-breaks"]')
            assert "measured cost" in ranked.locator(":scope > summary").inner_text()
            ranked.locator(":scope > summary").click()
            row = ranked.locator(".nbc-break").first
            row.wait_for()
            assert ".item()" in row.inner_text()
            assert "between graphs" in row.inner_text()
            link = row.locator("a.nbc-link")
            assert re.fullmatch(r"GB\d+", link.inner_text())
            assert link.get_attribute("href").startswith("https://")
            assert link.get_attribute("rel") == "noopener noreferrer"

            # The target's compiles with their phase bars.
            compiles = sidebar.locator('.nbc-section[data-section="compiles"]')
            compiles.locator(":scope > summary").click()
            compiles.locator(".nbc-compiles .nbc-phase-bar").first.wait_for()
            assert compiles.locator(".nbc-phase-legend li").count() >= 2
            # torch's own log records about the compiles, as many as the record holds.
            torch_logs = sidebar.locator('.nbc-section[data-section="torch-logs"]')
            assert torch_logs.locator(".nbc-count").inner_text() == str(logs["scaled"])
            page.screenshot(path=str(artifacts / "report-views.png"))

            # ---- Source and kernels side by side, in a tab. ----
            sidebar.locator(".nbc-open-tab").click()
            tab = page.locator(".nbc-tabview:visible")
            tab.wait_for()
            # Room for the tab: fold the right sidebar away.
            page.locator('.jp-SideBar.jp-mod-right .lm-TabBar-tab[data-id="nbcompile-inspector"]'
                         ).click()
            sidebar.wait_for(state="hidden")
            rows = tab.locator(".nbc-map-row")
            sin_row = rows.filter(has_text="torch.sin(x) * scale")
            sin_row.click()
            hot_code = tab.locator(".nbc-map-code .cm-line.nbc-map-hot")
            hot_code.first.wait_for()
            assert "cpp_fused_mul_sin_sum_0" in hot_code.first.inner_text()
            assert tab.locator(".nbc-map-row.nbc-map-hot").all_inner_texts()[0].split()[0] == "10"
            # Back: a line of the other kernel's code lights up the line it came from.
            tab.locator(".nbc-map-code .cm-line", has_text="cpp_fused_add_relu_0").first.click()
            hot_rows = tab.locator(".nbc-map-row.nbc-map-hot")
            hot_rows.first.wait_for()
            assert [r.split()[0] for r in hot_rows.all_inner_texts()] == ["12"]
            assert "cpp_fused_add_relu_0" in tab.locator(
                ".nbc-map-code .cm-line.nbc-map-hot").first.inner_text()
            # Keyboard: from line 10, ArrowDown then Enter selects line 11.
            sin_row.focus()
            page.keyboard.press("ArrowDown")
            page.keyboard.press("Enter")
            assert [r.split()[0] for r in hot_rows.all_inner_texts()] == ["11"]
            page.screenshot(path=str(artifacts / "tab-view-light.png"))
            assert page.evaluate("document.body.dataset.jpThemeLight") == "true"
            page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
            page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Theme$")).hover()
            page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^JupyterLab Dark$")).click()
            page.wait_for_function("document.body.dataset.jpThemeLight === 'false'")
            # Lab shows its splash over a theme change and fades it out (200 ms) once drawn.
            page.locator("#jupyterlab-splash").wait_for(state="detached")
            page.screenshot(path=str(artifacts / "tab-view-dark.png"))
            # Readable in the dark theme: the source text is light on a dark pane.
            colours = page.evaluate("""() => {
                const row = document.querySelector('.nbc-map-row code');
                const pane = document.querySelector('.nbc-tabview');
                return [getComputedStyle(row).color, getComputedStyle(pane).backgroundColor];
            }""")
            text_rgb, back_rgb = ([int(v) for v in re.findall(r"\d+", c)[:3]] for c in colours)
            assert sum(text_rgb) > 380 and sum(back_rgb) < 250, colours

        # The command line's self-contained page, as a browser shows it.
        html = tmp_path / "trace.html"
        subprocess.run([sys.executable, "-m", "nbcompile", "open", str(root / TRACE_DIR),
                        "--html", str(html)], check=True, cwd=ROOT, timeout=300,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
        page.goto(html.as_uri())
        check(CLI_HTML, view_text.read(page.locator(CLI_HTML.view)))
    except BaseException:
        page.screenshot(path=str(artifacts / "report-views-failure.png"))
        for log in state.glob("lab-*.log"):
            (artifacts / f"report-views-failure-{log.name}").write_text(log.read_text())
        raise
    finally:
        (artifacts / "report-views-console.log").write_text("\n".join(console) + "\n")
        context.close()
    errors = [c for c in console
              if "nbcompile" in c.lower() and c.startswith(("error", "pageerror"))]
    assert not errors, errors
    assert not stale, (f"{len(stale)} of {len(shots())} pictures of the docs no longer show "
                       f"the product ({view_text.RESHOOT}):\n" + "\n".join(stale))
