"""The Compile inspector in a real JupyterLab, driven in Debian's Chromium.

One story, as a user lives it: run a ``%%compile`` cell with a graph break and a call
cell; the inline summary's button opens the sidebar, which lists the target, the break's
source line and the generated kernels; clicking the break scrolls the notebook back to
that line; a kernel restart clears the sidebar, which refills from the outputs; save,
shut the kernel down, reopen the saved notebook where no kernel can
start: the sidebar refills from the saved outputs.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from pathlib import Path

import nbformat
import pytest

from .conftest import lab_server

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(600)]

MIME = "application/vnd.nbcompile.v1+json"
NOTEBOOK = "compile_demo.ipynb"
COMPILE_CELL = '''%%compile
import torch
def gelu_chain(x):
    y = torch.sin(x) * 2
    print("debug")          # a graph break
    return torch.relu(y) + 1'''
CALL_CELL = "y = gelu_chain(torch.randn(8, 64))\ny.shape"
# A recompile published under a tiny output budget (the saved record is cut), then the
# budget restored (the next update publishes it whole again).
CUT_CELL = "%nbcompile config --output-budget 16K\ny = gelu_chain(torch.randn(16, 64))"
RESTORE_CELL = ("%nbcompile config --output-budget 256K\n"
                "y = gelu_chain(torch.randn(8, 64, dtype=torch.float64))")
# Long enough that the notebook scrolls away from the %%compile cell.
FILLER_CELL = 5
FILLER = "## Notes\n\n" + "\n\n".join(f"Line {i} of a long markdown cell." for i in range(60))


def make_notebook(path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext nbcompile"),
        nbformat.v4.new_code_cell(COMPILE_CELL),
        nbformat.v4.new_code_cell(CALL_CELL),
        nbformat.v4.new_code_cell(CUT_CELL),
        nbformat.v4.new_code_cell(RESTORE_CELL),
        nbformat.v4.new_markdown_cell(FILLER),
    ]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    nbformat.write(nb, path)


def read_saved(path: Path) -> dict | None:
    """The notebook as saved, or None while a save is writing it: Jupyter writes a notebook
    in place (a backup copy kept until the write ends), so a read can see it part-written."""
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError:
        return None


def cells(page):
    return page.locator(".jp-NotebookPanel:visible .jp-Notebook .jp-Cell")


def wait_idle_status(page, timeout=60_000) -> None:
    page.locator("#jp-main-statusbar").get_by_text(re.compile(r"\bIdle\b")).first.wait_for(
        timeout=timeout)


def prompt_text(page, index: int) -> str:
    return cells(page).nth(index).locator(".jp-InputPrompt").first.inner_text().strip()


def run_cell(page, index: int, timeout: float = 240) -> None:
    """Select cell `index` in command mode, Shift+Enter, wait for its `[n]:` prompt: up to
    `timeout` seconds once it started, however busy the machine. A fresh kernel can look
    idle before it is (platform notes) and miss the key: a cell not started within 30 s
    is run once more, and then has the whole `timeout` to start."""
    for attempt in range(2):
        cells(page).nth(index).locator(".jp-InputPrompt").first.click()
        page.keyboard.press("Escape")
        page.keyboard.press("Shift+Enter")
        pressed, started = time.monotonic(), None
        while True:
            text = prompt_text(page, index)
            if re.fullmatch(r"\[\d+\]:", text):
                return
            now = time.monotonic()
            if started is None and text == "[*]:":
                started = now
            if started is not None and now - started > timeout:
                raise AssertionError(f"cell {index} still running after {timeout} s")
            if started is None and now - pressed > (timeout if attempt else 30):
                break  # never started: pressed once more (the first time)
            time.sleep(0.05)  # one read of the prompt: the next step starts at once
    raise AssertionError(f"cell {index} did not start: prompt {prompt_text(page, index)!r}")


def in_viewport(inner: dict, outer: dict) -> bool:
    return (inner["y"] < outer["y"] + outer["height"] and inner["y"] + inner["height"] > outer["y"]
            and inner["height"] > 0)


def wait_scroll_settled(page, needs: str = "", frames: int = 5) -> None:
    """Until the notebook's scroll position has held for `frames` animation frames (with
    the element `needs`, a selector, present): a scroll ended, however long it took."""
    page.evaluate("window.__nbcScroll = { top: null, still: 0 }")
    page.wait_for_function("""([needs, frames]) => {
        const e = document.querySelector(
            '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer');
        const s = window.__nbcScroll;
        const held = e.scrollTop === s.top && (!needs || document.querySelector(needs));
        s.still = held ? s.still + 1 : 0;
        s.top = e.scrollTop;
        return s.still >= frames;
    }""", arg=[needs, frames], polling="raf", timeout=10_000)


def open_sidebar_tab(page) -> None:
    sidebar = page.locator("#nbcompile-inspector")
    if not sidebar.is_visible():
        tab = '.jp-SideBar.jp-mod-right .lm-TabBar-tab[data-id="nbcompile-inspector"]'
        page.locator(tab).click()
    sidebar.wait_for(state="visible", timeout=15_000)


def widen_sidebar(page, pixels: int = 220) -> None:
    """Drag the handle left of the right sidebar, as a user would, for readable shots."""
    left = page.locator("#nbcompile-inspector").bounding_box()["x"]
    for handle in page.locator("#jp-main-split-panel > .lm-SplitPanel-handle").all():
        box = handle.bounding_box()
        if box and abs(box["x"] + box["width"] / 2 - left) < 12:
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            page.mouse.move(x, y)
            page.mouse.down()
            page.mouse.move(x - pixels, y, steps=5)
            page.mouse.up()
            return


def test_sidebar_live_jump_and_reopen(browser, tmp_path, artifacts):
    root = tmp_path / "root"
    root.mkdir()
    state = tmp_path / "state"
    make_notebook(root / NOTEBOOK)
    token = secrets.token_hex(16)
    console: list[str] = []
    timings: dict[str, float] = {}
    t0 = time.monotonic()

    context = browser.new_context(viewport={"width": 1500, "height": 950})
    page = context.new_page()
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
    page.set_default_timeout(30_000)
    try:
        # ---- 1. Live: run the cells, open the inspector from the inline summary. ----
        with lab_server(root, state, token) as server:
            page.goto(server.lab_url(NOTEBOOK))
            cells(page).nth(FILLER_CELL).wait_for(timeout=60_000)
            server.wait_kernel_idle(NOTEBOOK)
            wait_idle_status(page)
            timings["lab ready"] = time.monotonic() - t0

            run_cell(page, 0)
            run_cell(page, 1)
            inline = cells(page).nth(1).locator(".nbc-inline")
            inline.wait_for(timeout=30_000)
            assert "gelu_chain" in inline.inner_text()
            run_cell(page, 2)
            timings["cells run"] = time.monotonic() - t0

            # The inline summary follows update_display_data: compiled after the call.
            inline.locator(".nbc-status-compiled").wait_for(timeout=60_000)
            inline.get_by_role("button", name="Inspect").click()

            sidebar = page.locator("#nbcompile-inspector")
            sidebar.wait_for(state="visible")
            widen_sidebar(page)
            row = sidebar.locator(".nbc-target-row", has_text="gelu_chain")
            row.locator(".nbc-status-compiled").wait_for(timeout=60_000)
            assert "kernel" in sidebar.locator(".nbc-state").inner_text()
            assert sidebar.locator(".nbc-target-title").inner_text() == "gelu_chain"

            # The graph break, with its source line and where it is.
            brk = sidebar.locator(".nbc-break").first
            brk.wait_for()
            assert 'print("debug")' in brk.locator(".nbc-line").inner_text()
            assert brk.locator(".nbc-lineno").inner_text() == "line 5"
            assert "print" in brk.locator(".nbc-reason").inner_text()

            # Generated code: the kernels list and the C++ source in CodeMirror.
            names = sidebar.locator(".nbc-kernel-row .nbc-kernel-name").all_inner_texts()
            assert any(n.startswith("cpp_fused") for n in names), names
            code = sidebar.locator('.nbc-codeview[data-view="code"]')
            assert 'extern "C"' in code.locator(".cm-content").inner_text()
            # Highlighted by JupyterLab's C++ language support (tokens get classes).
            assert code.locator(".cm-content span[class]").count() > 5
            # The whole output code, searched with CodeMirror's search panel.
            sidebar.locator(".nbc-all-code").click()
            code.get_by_role("button", name="Find").click()
            search = code.locator(".cm-search input[name=search]")
            search.type("cpp_fused")
            search.press("Enter")
            assert code.locator(".cm-searchMatch").count() >= 1
            assert "cpp_fused" in code.locator(".cm-content").inner_text()
            page.keyboard.press("Escape")
            # The FX graph as torch wrote it, its `# File:` comments naming the cell as
            # the kernel does (the record keeps torch's ipykernel temp path verbatim).
            graphs = sidebar.locator('.nbc-section[data-section="graphs"]')
            graphs.locator(":scope > summary").click()
            graph = graphs.locator('.nbc-codeview .cm-content')
            graph.wait_for()
            graph_text = graph.inner_text()
            assert "# File: cell [2], line 4 in gelu_chain" in graph_text, graph_text[:2000]
            assert "ipykernel_" not in graph_text, graph_text[:2000]
            graphs.locator(":scope > summary").click()  # folded again, as it was
            page.screenshot(path=str(artifacts / "sidebar-live.png"))
            timings["sidebar checked"] = time.monotonic() - t0

            # ---- 1b. A record cut to fit the output budget: the inspector asks the live
            # kernel for it whole; the saved output stays cut. ----
            run_cell(page, 3)
            page.wait_for_function(
                """() => document.querySelector('#nbcompile-inspector '
                    + '.nbc-section[data-section="compiles"] .nbc-count')?.textContent === '4'""",
                timeout=60_000)
            assert sidebar.locator(".nbc-omitted").count() == 0
            page.keyboard.press("Control+s")
            deadline = time.monotonic() + 30
            cut = None
            while time.monotonic() < deadline:
                book = read_saved(root / NOTEBOOK)
                outs = book["cells"][1].get("outputs", []) if book else []
                records = [o["data"][MIME]["targets"][0] for o in outs
                           if MIME in o.get("data", {})]
                if records and records[0]["recompile_count"] == 2:
                    cut = records[0]
                    break
                time.sleep(0.1)
            assert cut is not None and cut["omitted"] and len(cut["compiles"]) < 4, cut
            run_cell(page, 4)
            page.wait_for_function(
                """() => document.querySelector('#nbcompile-inspector '
                    + '.nbc-section[data-section="compiles"] .nbc-count')?.textContent === '6'""",
                timeout=60_000)
            timings["whole record fetched"] = time.monotonic() - t0

            # ---- 2. Click the break: the notebook scrolls back to that cell and line. ----
            # Make the last cell active and scroll to the bottom of the notebook.
            cells(page).nth(FILLER_CELL).locator(".jp-InputPrompt").first.click()
            scroller = page.locator(".jp-NotebookPanel:visible .jp-WindowedPanel-outer")
            scroller.evaluate("e => { e.scrollTop = e.scrollHeight; }")
            wait_scroll_settled(page)
            compile_cell = cells(page).nth(1)
            assert not in_viewport(compile_cell.bounding_box(), scroller.bounding_box()), \
                "the filler should have scrolled the %%compile cell out of view"
            assert "jp-mod-active" not in (compile_cell.get_attribute("class") or "")
            brk.locator(".nbc-source-link").click()
            page.wait_for_function(
                """() => {
                    const c = document.querySelector(
                        '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell.jp-mod-active');
                    return c && c.textContent.includes('%%compile');
                }""", timeout=10_000)
            # The smooth scroll and the line's selection (set once the cell is in view).
            wait_scroll_settled(page, ".jp-Cell.jp-mod-active .cm-selectionBackground")
            assert in_viewport(compile_cell.bounding_box(), scroller.bounding_box())
            line = compile_cell.locator(".cm-line", has_text='print("debug")')
            assert in_viewport(line.bounding_box(), scroller.bounding_box())
            # The break's line is selected in the cell editor.
            selected = compile_cell.evaluate("""c => {
                const sel = c.querySelector('.cm-selectionBackground');
                return sel ? sel.getBoundingClientRect().top : null; }""")
            line_top = line.bounding_box()["y"]
            assert selected is not None and abs(selected - line_top) < 12, (selected, line_top)
            page.screenshot(path=str(artifacts / "sidebar-jump.png"))

            # ---- 3. Restart the kernel: the sidebar clears, then refills from the outputs. ----
            marker = "window.__nbcSidebarCleared"
            page.evaluate(f"""() => {{
                {marker} = false;
                const body = document.querySelector('#nbcompile-inspector .nbc-body');
                new MutationObserver(() => {{
                    if (!body.querySelector('.nbc-target-row')) {{ {marker} = true; }}
                }}).observe(body, {{ childList: true, subtree: true }});
            }}""")
            page.locator(".lm-MenuBar-itemLabel", has_text="Kernel").click()
            page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Restart Kernel…$")).click()
            page.locator(".jp-Dialog button.jp-mod-accept").click()
            page.wait_for_function(f"() => {marker} === true", timeout=30_000)
            wait_idle_status(page)
            sidebar.locator(".nbc-badge-saved").wait_for(timeout=30_000)
            assert sidebar.locator(".nbc-target-row", has_text="gelu_chain").count() == 1
            assert "from saved outputs" in sidebar.locator(".nbc-state").inner_text()
            timings["restarted"] = time.monotonic() - t0

            # ---- 4. Save, shut the kernel down. ----
            page.keyboard.press("Control+s")
            deadline = time.monotonic() + 30
            saved = None
            while time.monotonic() < deadline:
                saved = read_saved(root / NOTEBOOK)
                outs = saved["cells"][1].get("outputs", []) if saved else []
                if any(MIME in o.get("data", {}) and
                       o["data"][MIME]["targets"][0]["status"] == "compiled" for o in outs):
                    break
                time.sleep(0.1)
            else:
                raise AssertionError(f"not saved with the record: {saved and saved['cells'][1]}")
            for s in server.sessions():
                server.api(f"/api/sessions/{s['id']}", method="DELETE")
            assert server.sessions() == []
            timings["saved"] = time.monotonic() - t0

        # ---- 5. Reopen the saved notebook where no kernel can start. ----
        with lab_server(root, state, token,
                        ["--KernelSpecManager.allowed_kernelspecs=nbcompile-no-kernel"]) as server:
            page.goto(server.lab_url(NOTEBOOK))
            cells(page).nth(FILLER_CELL).wait_for(timeout=60_000)
            # JupyterLab asks for a kernel (python3 is not available): choose none.
            dialog = page.locator(".jp-Dialog")
            try:
                dialog.wait_for(timeout=8_000)
            except Exception:  # noqa: BLE001 - no dialog is fine too
                pass
            if dialog.count():
                no_kernel = dialog.get_by_role("button", name=re.compile("no kernel", re.I))
                if no_kernel.count():
                    no_kernel.first.click()
                else:
                    dialog.locator("button.jp-mod-reject").first.click()
                dialog.wait_for(state="detached")
            open_sidebar_tab(page)
            sidebar = page.locator("#nbcompile-inspector")
            row = sidebar.locator(".nbc-target-row", has_text="gelu_chain")
            row.wait_for(timeout=20_000)
            assert row.locator(".nbc-status-compiled").count() == 1
            assert "no kernel" in sidebar.locator(".nbc-state").inner_text()
            assert sidebar.locator(".nbc-badge-saved").count() == 1
            assert 'print("debug")' in sidebar.locator(".nbc-break .nbc-line").first.inner_text()
            names = sidebar.locator(".nbc-kernel-row .nbc-kernel-name").all_inner_texts()
            assert any(n.startswith("cpp_fused") for n in names), names
            assert server.sessions() == [] or all(not s.get("kernel") for s in server.sessions())
            # The inline summary renders from the saved output too (no kernel, untrusted).
            assert cells(page).nth(1).locator(".nbc-inline .nbc-status-compiled").count() == 1
            page.screenshot(path=str(artifacts / "sidebar-reopened.png"))
            timings["reopened"] = time.monotonic() - t0
    except BaseException:
        page.screenshot(path=str(artifacts / "sidebar-failure.png"))
        for log in state.glob("lab-*.log"):
            (artifacts / f"sidebar-failure-{log.name}").write_text(log.read_text())
        raise
    finally:
        (artifacts / "sidebar-console.log").write_text("\n".join(console) + "\n")
        (artifacts / "sidebar-timings.json").write_text(json.dumps(timings, indent=1) + "\n")
        context.close()

    errors = [c for c in console
              if "nbcompile" in c.lower() and c.startswith(("error", "pageerror"))]
    assert not errors, errors
