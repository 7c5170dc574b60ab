"""Every Jupyter front end people use, each in Debian's Chromium:

- Jupyter Notebook 7: the inline summary and the Compile inspector in its right panel,
  live from a real kernel.
- A kernel restarted from outside Lab (the REST API, as another client would) clears the
  inspector's live records; it refills as the new kernel compiles.
- Without JavaScript (nbconvert HTML, as VS Code, GitHub or an untrusted notebook show
  it): an executed tutorial exported with ``jupyter nbconvert --to html`` reads right from
  nbcompile's ``text/html`` fallback alone — graph breaks with their lines, kernel counts.
"""

from __future__ import annotations

import re
import secrets
from contextlib import contextmanager
from pathlib import Path

import nbformat
import pytest
from nbconvert import HTMLExporter

from tests.support.kernel import execute_notebook

from .conftest import lab_server
from .test_sidebar import cells, run_cell, wait_idle_status

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = "frontends_demo.ipynb"
COMPILE_CELL = '''%%compile
import torch
def gelu_chain(x):
    y = torch.sin(x) * 2
    print("debug")          # a graph break
    return torch.relu(y) + 1'''
CALL_CELL = "y = gelu_chain(torch.randn(8, 64))\ny.shape"


def make_notebook(path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src)
                for src in ("%load_ext nbcompile", COMPILE_CELL, CALL_CELL)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    nbformat.write(nb, path)


@contextmanager
def kept_on_failure(context, page, console: list[str], artifacts: Path, name: str):
    """Run a browser session's steps; on a failure keep the page's picture and its console
    (``<name>-failure.png``, ``<name>-console.log`` under ``artifacts``); close the
    context either way."""
    try:
        yield
    except BaseException:
        page.screenshot(path=str(artifacts / f"{name}-failure.png"))
        (artifacts / f"{name}-console.log").write_text("\n".join(console))
        raise
    finally:
        context.close()


def new_page(browser, console: list[str], viewport: dict[str, int] | None = None, **options):
    """A page in a new context (1400x900 unless ``viewport``) whose console messages and
    page errors go to ``console``, with a 30 s default timeout."""
    context = browser.new_context(viewport=viewport or {"width": 1400, "height": 900},
                                  **options)
    page = context.new_page()
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
    page.set_default_timeout(30_000)
    return context, page


def nbcompile_errors(console: list[str]) -> list[str]:
    return [c for c in console
            if "nbcompile" in c.lower() and c.startswith(("error", "pageerror"))]


def run_compile_cells(page) -> None:
    for i in range(3):
        run_cell(page, i)
    cells(page).nth(1).locator(".nbc-inline .nbc-status-compiled").wait_for(timeout=60_000)


def test_notebook7_inline_summary_and_inspector(browser, tmp_path, artifacts):
    root = tmp_path / "root"
    root.mkdir()
    make_notebook(root / NOTEBOOK)
    console: list[str] = []
    context, page = new_page(browser, console)
    try:
        with lab_server(root, tmp_path / "state", secrets.token_hex(16),
                        app="notebook") as server:
            page.goto(server.lab_url(NOTEBOOK))
            cells(page).nth(2).wait_for(timeout=60_000)
            server.wait_kernel_idle(NOTEBOOK)
            run_compile_cells(page)
            inline = cells(page).nth(1).locator(".nbc-inline")
            assert "gelu_chain" in inline.inner_text()
            inline.get_by_role("button", name="Inspect").click()
            sidebar = page.locator("#nbcompile-inspector")
            sidebar.wait_for(state="visible")
            row = sidebar.locator(".nbc-target-row", has_text="gelu_chain")
            row.locator(".nbc-status-compiled").wait_for(timeout=30_000)
            brk = sidebar.locator(".nbc-break").first
            assert 'print("debug")' in brk.locator(".nbc-line").inner_text()
            assert brk.locator(".nbc-lineno").inner_text() == "line 5"
            names = sidebar.locator(".nbc-kernel-row .nbc-kernel-name").all_inner_texts()
            assert any(n.startswith("cpp_fused") for n in names), names
            # It is Notebook 7's right side panel, not JupyterLab.
            # Notebook 7's own right panel (#jp-right-stack), not JupyterLab's sidebar.
            assert page.locator("#jp-right-stack #nbcompile-inspector").count() == 1
            assert page.locator(".jp-LabShell").count() == 0
            assert "/notebooks/" in page.url
            page.screenshot(path=str(artifacts / "notebook7-inspector.png"))
    except BaseException:
        page.screenshot(path=str(artifacts / "notebook7-failure.png"))
        raise
    finally:
        context.close()
    assert not nbcompile_errors(console), console


def test_rest_restart_clears_the_inspector_then_it_refills(browser, tmp_path, artifacts):
    root = tmp_path / "root"
    root.mkdir()
    make_notebook(root / NOTEBOOK)
    console: list[str] = []
    context, page = new_page(browser, console)
    with kept_on_failure(context, page, console, artifacts, "rest-restart"):
        with lab_server(root, tmp_path / "state", secrets.token_hex(16)) as server:
            page.goto(server.lab_url(NOTEBOOK))
            cells(page).nth(2).wait_for(timeout=60_000)
            session = server.wait_kernel_idle(NOTEBOOK)
            wait_idle_status(page)
            run_compile_cells(page)
            cells(page).nth(1).locator(".nbc-inline").get_by_role(
                "button", name="Inspect").click()
            sidebar = page.locator("#nbcompile-inspector")
            row = sidebar.locator(".nbc-target-row", has_text="gelu_chain")
            row.locator(".nbc-status-compiled").wait_for(timeout=30_000)
            assert sidebar.locator(".nbc-badge-saved").count() == 0  # live

            # Another client restarts the kernel through the REST API.
            kernel_id = session["kernel"]["id"]
            server.api(f"/api/kernels/{kernel_id}/restart", method="POST")
            # The old kernel's live records go: the new kernel's 'starting' status drops
            # them at once when it reaches Lab, at the latest the new kernel's first
            # message does (its own session id). Lab shows the kernel as "Starting" until
            # it next talks to it: the user runs a cell. What the outputs hold is shown
            # again, as saved records (without this, the stale live ones stayed).
            server.wait_kernel_idle(NOTEBOOK)
            run_cell(page, 0, timeout=120)
            sidebar.locator(".nbc-badge-saved").wait_for(timeout=30_000)
            assert "from saved outputs" in sidebar.locator(".nbc-state").inner_text()

            # The new kernel compiles: the inspector follows it live again.
            run_compile_cells(page)
            sidebar.locator(".nbc-target-row", has_text="gelu_chain").locator(
                ".nbc-status-compiled").wait_for(timeout=30_000)
            page.wait_for_function("""() => !document.querySelector(
                '#nbcompile-inspector .nbc-badge-saved')""", timeout=30_000)
            page.screenshot(path=str(artifacts / "rest-restart.png"))
    assert not nbcompile_errors(console), console


def test_nbconvert_html_reads_without_javascript(browser, tmp_path, artifacts):
    tutorial = ROOT / "notebooks" / "02-graph-breaks.ipynb"
    source = nbformat.read(tutorial, as_version=4)
    # The tutorial up to its %suggest (featurize compiled, called and reported): what this
    # page shows; the rest of it runs in tests/kernel/test_notebooks.py
    first_suggest = next(i for i, c in enumerate(source.cells) if "%suggest" in c.source)
    source.cells = source.cells[:first_suggest]
    nb = execute_notebook(source, cwd=tutorial.parent, timeout=600)
    executed = tmp_path / tutorial.name
    nbformat.write(nb, executed)
    # What `jupyter nbconvert --to html` writes (its exporter, from the file, byte for byte),
    # without a Python of its own to start (~1.5 s).
    page_path = executed.with_suffix(".html")
    page_path.write_text(HTMLExporter().from_filename(str(executed))[0], encoding="utf-8")
    # nbcompile's fallbacks bring no script and no external stylesheet.
    fallbacks = [o["data"]["text/html"] for c in nb.cells for o in c.get("outputs", [])
                 if "nbcompile" in str(o.get("data", {}).get("text/html", ""))]
    assert fallbacks, "no nbcompile HTML output in the executed tutorial"
    assert not any(re.search(r"<script|<link|@import|url\(", str(f)) for f in fallbacks)

    console: list[str] = []
    context, page = new_page(browser, console, java_script_enabled=False)
    try:
        page.goto(page_path.as_uri())
        assert page.evaluate("1 + 1") == 2  # our own evaluation still works
        assert page.locator("script").count() > 0  # the page has scripts; none ran
        summaries = page.locator(".nbcompile-summary")
        assert summaries.count() >= 1
        text = page.locator("body").inner_text()
        # The featurize example's breaks, each with its cell line.
        assert re.search(r"graph break[^\n]*line \d+", text, re.I), text[:3000]
        assert 'print("featurize: batch of", x.shape[0])' in text
        # Kernel counts: the summary table's "kernels" column holds a number per target.
        counts = page.evaluate("""() => [...document.querySelectorAll('.nbcompile-summary table')]
            .map(t => {
                const head = [...t.querySelectorAll('thead th')].map(th => th.innerText.trim());
                const col = head.indexOf('kernels');
                const row = t.querySelector('tbody tr');
                return col < 0 || !row ? null : [row.cells[0].innerText, row.cells[col].innerText];
            })""")
        featurize = [c for c in counts if c and c[0].startswith("featurize")]
        assert featurize and all(re.fullmatch(r"\d+", k) for _, k in featurize), counts
        assert re.search(r"\bcompiled\b", text)
        # Readable: the summaries take room and their text is not the page background.
        first = summaries.first
        box = first.bounding_box()
        assert box and box["height"] > 20 and box["width"] > 200
        colour, background = page.evaluate("""el => {
            const s = getComputedStyle(el);
            let b = el, bg = 'rgba(0, 0, 0, 0)';
            while (b && (bg === 'rgba(0, 0, 0, 0)' || bg === 'transparent')) {
                bg = getComputedStyle(b).backgroundColor; b = b.parentElement; }
            return [s.color, bg]; }""", first.element_handle())
        assert colour != background, (colour, background)
        first.scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / "nbconvert-no-js.png"))
    finally:
        context.close()
