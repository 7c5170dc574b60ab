"""The generated code reads right in every front end, in a real JupyterLab at 1280 px:

- a search in the code view covers every code piece of the target (the sidebar's
  CodeMirror search, the widget's find box): the pieces holding it are listed, with their
  compile and lines, and each leads to its match;
- each kernel row names its compile in the record's words (two `cpp_fused_mul_sin_0` of two
  compiles read apart), in the sidebar, the widget and the static report;
- kernel names are readable whole in the sidebar (wrapped, never cut);
- a module's static report and its sidebar Compiles table name its compile by the module
  (`model`), not by torch's `wrap_inline` frame (`inner`);
- in the source pane (the sidebar's tab, the widget's view), a long line scrolled sideways
  keeps its colour and kernel chips across the whole width; a module made of torch's
  layers, none of whose lines can light, shows the record's sentence saying so and why, in
  place of the lines.
"""

from __future__ import annotations

import re
import secrets
from pathlib import Path

import nbformat
import pytest

from .conftest import lab_server
from .test_frontends import kept_on_failure, nbcompile_errors, new_page
from .test_sidebar import cells, open_sidebar_tab, run_cell, wait_idle_status

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(600)]

NOTEBOOK = "code_search.ipynb"
# The sin line is long: it scrolls sideways in the source pane.
COMPILE_CELL = '''%%compile
import torch
def gelu_chain(x):
    y = torch.sin(x) * 2  # ''' + "a long comment that scrolls, " * 12 + '''
    print("debug")          # a graph break
    return torch.relu(y) + 1'''
# Two dtypes: each frame compiles twice, so each kernel name comes twice.
CALL_CELL = ("y = gelu_chain(torch.randn(8, 64))\n"
             "y = gelu_chain(torch.randn(8, 64, dtype=torch.float64))")
MODULE_CELL = "%%compile\nmodel = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.ReLU())"
# The static reports (the text/html a front end without nbcompile's extension shows).
REPORT_CELL = """import pathlib
import nbcompile
from nbcompile.display.report_html import report_bundle
out = model(torch.ones(2, 3))
for name in ("model", "gelu_chain"):
    page = report_bundle(nbcompile.report(globals()[name]))["text/html"]
    pathlib.Path(f"{name}_report.html").write_text(page)
pathlib.Path("model_no_lines.txt").write_text(nbcompile.report(model).no_kernel_lines)
pathlib.Path("recompiles.txt").write_text(
    "\\n".join(rc.text for rc in nbcompile.report(gelu_chain).recompiles))"""
INSPECT_CELL = "nbcompile.inspect(gelu_chain)"
INSPECT_MODULE_CELL = "nbcompile.inspect(model)"
ROW_JS = """rows => rows.map(r => ({
    index: r.dataset.index,
    name: r.querySelector('.nbc-kernel-title')?.textContent ?? '',
    compile: r.querySelector('.nbc-kernel-compile')?.textContent ?? ''}))"""
# The source pane scrolled to its right end: each row's box against the pane's scroll
# width, and its chips' boxes against the row's.
ROWS_JS = """src => {
    src.scrollLeft = src.scrollWidth;
    return {scrollWidth: src.scrollWidth, clientWidth: src.clientWidth,
            rows: [...src.querySelectorAll('.nbc-map-row')].map(r => {
                const box = r.getBoundingClientRect();
                return {line: r.dataset.lineno, width: box.width,
                        over: r.scrollWidth - r.clientWidth,
                        coloured: /\\bnbc-map-\\d\\b/.test(r.className),
                        chips: [...r.querySelectorAll('.nbc-map-chip')].map(c => {
                            const b = c.getBoundingClientRect();
                            return b.left >= box.left - 0.5 && b.right <= box.right + 0.5;
                        })};
            })};
}"""
# Name cells whose text does not fit (cut or hidden): none may be.
CUT_JS = """cells => cells.filter(c => c.scrollWidth > c.clientWidth + 1)
    .map(c => [c.textContent, c.scrollWidth, c.clientWidth])"""


def make_notebook(path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src)
                for src in ("%load_ext nbcompile", COMPILE_CELL, CALL_CELL, MODULE_CELL,
                            REPORT_CELL, INSPECT_CELL, INSPECT_MODULE_CELL)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    nbformat.write(nb, path)


def kernel_rows(code) -> list[dict]:
    code.locator(".nbc-kernel-row").first.wait_for()
    return code.locator(".nbc-kernel-row:not(.nbc-all-code)").evaluate_all(ROW_JS)


def check_rows_name_compiles(code) -> list[dict]:
    """Every row names its compile; rows of one kernel name name different compiles."""
    rows = kernel_rows(code)
    assert all(re.fullmatch(r"compile \d+/\d+", r["compile"]) for r in rows), rows
    sin = [r for r in rows if r["name"] == "cpp_fused_mul_sin_0"]
    assert len(sin) == 2 and sin[0]["compile"] != sin[1]["compile"], rows
    pairs = [(r["name"], r["compile"]) for r in rows]
    assert len(set(pairs)) == len(pairs), rows
    return rows


def check_found(code, rows: list[dict]) -> list:
    """The search for "relu" lists every code piece holding it: both relu kernels (by
    name: their C++ code never says relu) and the wrappers calling them."""
    found = code.locator(".nbc-code-found-piece")
    found.first.wait_for()
    listed = {int(i) for i in found.evaluate_all("els => els.map(e => e.dataset.index)")}
    relu = {int(r["index"]) for r in rows if "relu" in r["name"]}
    assert len(relu) == 2 and relu <= listed, (listed, rows)
    head = code.locator(".nbc-code-found-head").inner_text()
    assert re.search(rf"in {len(listed)} of \d+ code pieces", head), head
    return found.all()


def check_sidebar(page) -> None:
    sidebar = page.locator("#nbcompile-inspector")
    sidebar.locator(".nbc-target-row", has_text="gelu_chain").click()
    sidebar.locator(".nbc-target-title", has_text="gelu_chain").wait_for()
    code = sidebar.locator('.nbc-section[data-section="code"]')
    rows = check_rows_name_compiles(code)
    cut = code.locator("td.nbc-kernel-name").evaluate_all(CUT_JS)
    assert not cut, cut

    # Searched in CodeMirror's own panel, over the kernel shown (the first sin kernel).
    view = code.locator('.nbc-codeview[data-view="code"]')
    view.get_by_role("button", name="Find").click()
    view.locator(".cm-search input[name=search]").press_sequentially("relu")
    pieces = check_found(code, rows)
    # A relu kernel, listed by its name: shown, its row selected.
    relu_piece = next(p for p in pieces if "relu" in p.locator(".nbc-kernel-title").inner_text())
    index = relu_piece.get_attribute("data-index")
    relu_piece.locator(".nbc-code-found-go").click()
    assert code.locator(".nbc-kernel-row.nbc-selected").get_attribute("data-index") == index
    # A line of a wrapper: shown with that match selected.
    line = code.locator(".nbc-code-found-line").first
    wrapper = line.locator("xpath=..").get_attribute("data-index")
    line.click()
    assert code.locator(".nbc-kernel-row.nbc-selected").get_attribute("data-index") == wrapper
    selected = view.locator(".cm-searchMatch-selected")
    selected.wait_for()
    assert selected.inner_text().lower() == "relu"

    # The module: its long kernel name whole; its graphs named by the module.
    sidebar.locator(".nbc-target-row", has_text="model").click()
    sidebar.locator(".nbc-target-title", has_text="model").wait_for()
    names = code.locator("td.nbc-kernel-name .nbc-kernel-title").all_inner_texts()
    assert any(len(n) > 30 for n in names), names
    cut = code.locator("td.nbc-kernel-name").evaluate_all(CUT_JS)
    assert not cut, cut
    graphs = sidebar.locator('.nbc-section[data-section="graphs"]')
    graphs.locator(":scope > summary").click()
    label = graphs.locator(".nbc-codeview-info").inner_text()  # one graph: no picker
    assert re.match(r"compile \d+/0 \(model\) · ", label), label
    # its Compiles table names the code by the module, torch's frame (inner) in the title
    compiles = sidebar.locator('.nbc-section[data-section="compiles"]')
    compiles.locator(":scope > summary").click()
    frame = compiles.locator("td.nbc-frame").first
    assert frame.inner_text() == "model", frame.inner_text()
    assert frame.get_attribute("title") == "torch's frame: inner"


def check_rows_span(pane) -> None:
    """The source pane holds a line wider than itself: scrolled to its end, every row (its
    colour) spans the whole scroll width, holds its text, and its chips are inside it."""
    source = pane.locator(".nbc-map-source")
    source.locator(".nbc-map-row").first.wait_for()
    got = source.evaluate(ROWS_JS)
    assert got["scrollWidth"] > got["clientWidth"] + 100, got  # the long line scrolls
    rows = got["rows"]
    assert rows and all(abs(r["width"] - got["scrollWidth"]) <= 1 and r["over"] <= 1
                        for r in rows), got
    long_row = next(r for r in rows if r["coloured"] and r["chips"])
    assert all(long_row["chips"]), got
    assert all(all(r["chips"]) for r in rows), got


def check_no_lines(pane, said: str) -> None:
    """A module of torch's layers: the record's sentence in place of lines that never light."""
    note = pane.locator(".nbc-map-source .nbc-map-none")
    note.wait_for()
    assert note.inner_text() == said, (note.inner_text(), said)
    assert pane.locator(".nbc-map-row").count() == 0


def check_sidebar_source_panes(page, said: str, artifacts: Path) -> None:
    sidebar = page.locator("#nbcompile-inspector")
    for name in ("gelu_chain", "model"):
        sidebar.locator(".nbc-target-row", has_text=name).click()
        sidebar.locator(".nbc-target-title", has_text=name).wait_for()
        sidebar.locator(".nbc-open-tab").click()
        tab = page.locator(".nbc-tabview:visible")
        tab.wait_for()
        if name == "model":
            check_no_lines(tab, said)
        else:
            check_rows_span(tab)
            page.screenshot(path=str(artifacts / "code-search-long-line.png"))


def check_widget_map(widget):
    """The widget's *Source ↔ kernels* view, selected."""
    widget.locator('.nbc-widget-tab[data-view="map"]').click()
    source_map = widget.locator(".nbc-widget-map")
    source_map.wait_for(state="visible")
    return source_map


def check_recompiles(widget, root: Path) -> None:
    """Each recompile in the record's words (the summary's), each cell a link."""
    said = (root / "recompiles.txt").read_text().split("\n")
    assert len(said) == 2 and all("the call in cell [" in s for s in said), said
    section = widget.locator('.nbc-section[data-section="recompiles"]')
    reasons = section.locator(".nbc-recompile .nbc-reason")
    reasons.first.wait_for()
    assert reasons.all_inner_texts() == said
    assert section.locator(".nbc-reason .nbc-link").count() == 2


def check_widget(widget) -> None:
    code = widget.locator('.nbc-section[data-section="code"]')
    rows = check_rows_name_compiles(code)
    cut = code.locator("td.nbc-kernel-name").evaluate_all(CUT_JS)
    assert not cut, cut
    code.locator(".nbc-linecode-find").fill("relu")
    pieces = check_found(code, rows)
    assert code.locator(".nbc-linecode-hits").inner_text() == "no match here"
    line = code.locator(".nbc-code-found-line").first
    wrapper = line.locator("xpath=..").get_attribute("data-index")
    assert wrapper in {p.get_attribute("data-index") for p in pieces}
    line.click()
    assert code.locator(".nbc-kernel-row.nbc-selected").get_attribute("data-index") == wrapper
    assert "relu" in code.locator(".nbc-search-current").inner_text().lower()
    assert re.fullmatch(r"\d+ of \d+", code.locator(".nbc-linecode-hits").inner_text())


def check_static_reports(context, root: Path) -> None:
    page = context.new_page()
    page.set_content((root / "model_report.html").read_text())
    text = page.locator("body").inner_text()
    graphs = re.findall(r"FX graph \d+ of [^\n]*", text)
    assert graphs and all(re.fullmatch(r"FX graph 0 of compile \d+/0 \(model\)", g)
                          for g in graphs), graphs
    assert "inner" not in text, re.findall(r".{40}inner.{20}", text)
    page.set_content((root / "gelu_chain_report.html").read_text())
    pieces = page.locator("summary", has_text="generated code: cpp_fused_mul_sin_0")
    compiles = [re.search(r"compile \d+/\d+", t) for t in pieces.all_inner_texts()]
    assert len(compiles) == 2 and all(compiles), pieces.all_inner_texts()
    assert compiles[0].group(0) != compiles[1].group(0)  # type: ignore[union-attr]
    page.close()


def test_code_search_compiles_and_names_in_every_front_end(browser, tmp_path, artifacts):
    root = tmp_path / "root"
    root.mkdir()
    make_notebook(root / NOTEBOOK)
    console: list[str] = []
    context, page = new_page(browser, console, viewport={"width": 1280, "height": 900})
    with kept_on_failure(context, page, console, artifacts, "code-search"):
        with lab_server(root, tmp_path / "state", secrets.token_hex(16)) as server:
            page.goto(server.lab_url(NOTEBOOK))
            cells(page).nth(5).wait_for(timeout=60_000)
            server.wait_kernel_idle(NOTEBOOK)
            wait_idle_status(page)
            for i in range(5):
                run_cell(page, i)
            cells(page).nth(3).locator(".nbc-inline .nbc-status-compiled").wait_for(
                timeout=60_000)
            open_sidebar_tab(page)
            check_sidebar(page)
            page.screenshot(path=str(artifacts / "code-search-sidebar.png"))

            said = (root / "model_no_lines.txt").read_text()
            assert said.startswith("No source line of `model` maps to a kernel: torch "
                                   "recorded no source line for any op of its graph"), said
            check_sidebar_source_panes(page, said, artifacts)
            page.screenshot(path=str(artifacts / "code-search-no-lines.png"))
            page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text=NOTEBOOK).click()

            run_cell(page, 5)
            widget = cells(page).nth(5).locator(".nbc-widget")
            widget.wait_for(timeout=60_000)
            check_widget(widget)
            check_recompiles(widget, root)
            page.screenshot(path=str(artifacts / "code-search-widget.png"))
            check_rows_span(check_widget_map(widget))
            page.screenshot(path=str(artifacts / "code-search-widget-long-line.png"))
            run_cell(page, 6)
            module_widget = cells(page).nth(6).locator(".nbc-widget")
            module_widget.wait_for(timeout=60_000)
            check_no_lines(check_widget_map(module_widget), said)
            check_static_reports(context, root)
    assert not nbcompile_errors(console), console
