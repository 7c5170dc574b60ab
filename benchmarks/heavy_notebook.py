"""10. A heavy notebook in a real JupyterLab: 50 ``%%compile`` targets, a recompile
storm of 500 compiles and a ~10k-line generated module, executed in a real kernel
(nbclient), saved, then opened in Lab in Debian's Chromium. Measured: saved size and
its growth per compile, the largest output, time to switch targets in the Compile
inspector (click in the list -> the new target's view), scrolling the code view over
the whole generated module, and the notebook's render time.

``python -m benchmarks --only 10`` (needs /usr/bin/chromium and playwright)

``heavy_notebook()`` and ``measure_inspector()`` also serve the browser test
(tests/browser/test_heavy_notebook.py) with smaller sizes.
"""

from __future__ import annotations

import secrets
import statistics
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

MIME = "application/vnd.nbcompile.v1+json"


def heavy_notebook(targets: int = 50, storm: int = 500, chain: int = 75) -> nbformat.NotebookNode:
    """``targets`` functions in one ``%%compile`` cell, each called once; a function
    recompiled ``storm`` times (one new input size per call, dynamic shapes off, the
    recompile limit raised; the eager backend, so the storm costs Dynamo only); a
    softmax chain of ``chain`` steps compiled by Inductor (~135 lines of C++ per step)."""
    cells = [
        "%load_ext nbcompile\nimport torch\n"
        f"torch._dynamo.config.recompile_limit = {storm + 10}\n"
        f"torch._dynamo.config.cache_size_limit = {storm + 10}\n"
        f"torch._dynamo.config.accumulated_recompile_limit = {storm + 10}\n"
        "torch._dynamo.config.automatic_dynamic_shapes = False",
        "%%compile --backend eager\nimport torch\n" + "".join(
            f"def f{i}(x):\n    return torch.sin(x) * {i} + {i}\n" for i in range(targets)),
        f"x = torch.randn(8)\nfor i in range({targets}):\n    globals()[f'f{{i}}'](x)",
        "%%compile --backend eager --no-dynamic\ndef storm(x):\n    return x.cos() + 1",
        f"for n in range(1, {storm + 1}):\n    storm(torch.randn(n))",
        "%%compile\ndef chain(x):\n"
        f"    for i in range({chain}):\n"
        "        x = torch.softmax(x * (i % 7 + 1), dim=-1) + x.mean(0)\n    return x",
        "y = chain(torch.randn(64, 64))",
    ]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    return nb


def execute(nb: nbformat.NotebookNode, cwd: Path, timeout: int = 1800) -> nbformat.NotebookNode:
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(cwd)}}).execute()
    return nb


def records(nb: nbformat.NotebookNode) -> list[tuple[int, dict]]:
    """(cell index, record) of every nbcompile output."""
    return [(i, o["data"][MIME]) for i, c in enumerate(nb.cells) for o in c.get("outputs", [])
            if MIME in o.get("data", {})]


def measure_inspector(page, names: list[str], switches: int = 20) -> dict:
    """In an open Lab page with the inspector shown: switch between targets ``names``
    (click a row, wait until the view shows it) and scroll the code view of the last
    one; milliseconds, measured in the page (performance.now)."""
    switch_ms = []
    for k in range(switches):
        name = names[k % len(names)]
        ms = page.evaluate("""async (name) => {
            const rows = [...document.querySelectorAll('#nbcompile-inspector .nbc-target-row')];
            const row = rows.find(r => r.querySelector('.nbc-target-name')?.textContent === name);
            if (!row) { return -1; }
            const t0 = performance.now();
            row.click();
            const title = () => document.querySelector('#nbcompile-inspector .nbc-target-title');
            while (title()?.textContent !== name) {
                await new Promise(r => requestAnimationFrame(r));
                if (performance.now() - t0 > 10000) { return -2; }
            }
            await new Promise(r => requestAnimationFrame(r));
            return performance.now() - t0;
        }""", name)
        if ms < 0:
            raise AssertionError(f"switching to {name} failed ({ms})")
        switch_ms.append(ms)
    return {"switch_ms": switch_ms}


def measure_scroll(page, view_selector: str, steps: int = 40) -> dict:
    """Scroll a CodeMirror view from top to bottom in ``steps``; frame times (ms)."""
    return page.evaluate("""async ([sel, steps]) => {
        const scroller = document.querySelector(sel + ' .cm-scroller');
        if (!scroller) { return null; }
        const frames = [];
        const max = scroller.scrollHeight - scroller.clientHeight;
        for (let i = 1; i <= steps; i++) {
            const t0 = performance.now();
            scroller.scrollTop = (max * i) / steps;
            await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
            frames.push(performance.now() - t0);
        }
        const lines = document.querySelector(sel + ' .cm-content').innerText.split('\\n').length;
        return { frames, height: scroller.scrollHeight, reached: scroller.scrollTop >= max - 2,
                 rendered_lines: lines };
    }""", [view_selector, steps])


def bench_heavy_notebook() -> list[dict]:
    """Rows for ``python -m benchmarks``."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from playwright.sync_api import sync_playwright

    from nbcompile.display.budget import json_size
    from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, lab_server
    from tests.browser.test_sidebar import open_sidebar_tab, run_cell

    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        t0 = time.perf_counter()
        nb = execute(heavy_notebook(), root)
        run_s = time.perf_counter() - t0
        path = root / "heavy.ipynb"
        nbformat.write(nb, path)
        size = path.stat().st_size
        recs = records(nb)
        compiles = sum(len(t.get("compiles", [])) + sum(o["count"] for o in t.get("omitted", [])
                                                        if o["field"] == "compiles")
                       for _, r in recs if r.get("record") == "summary" for t in r["targets"])
        largest = max(json_size(dict(o)) for c in nb.cells for o in c.get("outputs", []))
        chain = next(t for _, r in recs if r.get("record") == "summary" for t in r["targets"]
                     if t["name"] == "chain")
        code_lines = chain["output_code"].count("\n")
        rows.append({"name": "10. heavy notebook saved size / compiles", "value": size / 1e3
                     / max(compiles, 1), "spread": None, "target": "bounded (KB per compile)",
                     "ok": largest <= 300_000,
                     "detail": f"{size / 1e6:.2f} MB for ~{compiles} compiles (executed in "
                               f"{run_s:.0f} s); largest output node {largest / 1e3:.0f} KB; "
                               f"chain's output code as saved (cut to the budget): "
                               f"{code_lines} lines"})
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1500, "height": 950}).new_page()
            with lab_server(root, Path(tmp) / "state", secrets.token_hex(16),
                            ["--KernelSpecManager.allowed_kernelspecs=nbcompile-no-kernel"]
                            ) as server:
                t0 = time.perf_counter()
                page.goto(server.lab_url("heavy.ipynb"))
                page.locator(".jp-Notebook .jp-Cell").nth(6).wait_for(timeout=120_000)
                page.locator(".nbc-inline").first.wait_for(timeout=120_000)
                render_s = time.perf_counter() - t0
                dialog = page.locator(".jp-Dialog")
                if dialog.count():
                    dialog.locator("button.jp-mod-reject").first.click()
                open_sidebar_tab(page)
                page.locator("#nbcompile-inspector .nbc-target-row").nth(51).wait_for(
                    timeout=60_000)
                names = ["f0", "storm", "f25", "chain", "f49"]
                switch = measure_inspector(page, names, switches=25)["switch_ms"]
                measure_inspector(page, ["chain"], switches=1)
                page.locator("#nbcompile-inspector .nbc-all-code").click()
                scroll = measure_scroll(
                    page, '#nbcompile-inspector .nbc-codeview[data-view="code"]')
                # A live kernel compiles the chain again: the inspector fetches its whole
                # record (every kernel), and the source <-> kernels tab lays them out.
            with lab_server(root, Path(tmp) / "state-live", secrets.token_hex(16)) as server:
                page.goto(server.lab_url("heavy.ipynb"))
                page.locator(".jp-Notebook .jp-Cell").nth(6).wait_for(timeout=120_000)
                server.wait_kernel_idle("heavy.ipynb")
                for index in (0, 5, 6):
                    run_cell(page, index, timeout=600)
                open_sidebar_tab(page)
                measure_inspector(page, ["chain"], switches=1)
                # The published record caps the kernel's text; the inspector fetches the
                # whole record from the live kernel: reopen the tab until it has arrived.
                deadline = time.monotonic() + 60
                while True:
                    page.locator("#nbcompile-inspector .nbc-open-tab").click()
                    page.locator(".nbc-tabview .nbc-map-code .cm-content").wait_for()
                    lines = int(page.locator(".nbc-tabview").get_attribute("data-code-lines"))
                    if lines > 5000 or time.monotonic() > deadline:
                        break
                    time.sleep(1)
                    open_sidebar_tab(page)
                page.locator('.jp-SideBar.jp-mod-right .lm-TabBar-tab'
                             '[data-id="nbcompile-inspector"]').click()
                tab_scroll = measure_scroll(page, ".nbc-tabview .nbc-map-code")
                tab_lines = page.locator(".nbc-tabview").get_attribute("data-code-lines")
                t0 = time.perf_counter()
                page.locator(".nbc-map-row", has_text="softmax").first.click()
                page.locator(".nbc-map-code .cm-line.nbc-map-hot").first.wait_for()
                light_s = time.perf_counter() - t0
            browser.close()
        med, worst = statistics.median(switch), max(switch)
        rows.append({"name": "10. inspector: switch targets (median of 25, 52 targets)",
                     "value": med, "unit": "ms", "spread": None, "target": "under 200 ms",
                     "ok": med < 200, "detail": f"max {worst:.0f} ms; notebook opened and "
                                                f"rendered in {render_s:.1f} s"})
        frames = scroll["frames"] if scroll else [float("nan")]
        rows.append({"name": f"10. code view: scroll the saved {code_lines}-line module, frame",
                     "value": statistics.median(frames), "unit": "ms", "spread": None,
                     "target": "under 50 ms", "ok": statistics.median(frames) < 50,
                     "detail": f"max {max(frames):.0f} ms over {len(frames)} steps; reached "
                               f"the end: {scroll and scroll['reached']}; lines in the DOM "
                               f"at once: {scroll and scroll['rendered_lines']}"})
        frames = tab_scroll["frames"] if tab_scroll else [float("nan")]
        rows.append({"name": "10. source<->kernels tab: scroll every kernel, frame (median)",
                     "value": statistics.median(frames), "unit": "ms", "spread": None,
                     "target": "under 50 ms", "ok": statistics.median(frames) < 50,
                     "detail": f"{tab_lines or '?'} lines of kernels (whole record from the "
                               f"live kernel); max {max(frames):.0f} ms; reached the end: "
                               f"{tab_scroll and tab_scroll['reached']}; a source line lights "
                               f"its kernels in {light_s * 1e3:.0f} ms (click to paint)"})
    return rows
