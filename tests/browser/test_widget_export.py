"""A notebook with ``nbcompile.inspect`` outputs, executed in a real kernel (nbclient, which
saves the widget state), exported with ``nbconvert --to html`` and read in Chromium.

- The saved widget state holds the inspector's module once, however many inspectors the
  notebook shows; each inspector's own state is its record and a 1 KB loader.
- Scripts off: the page shows the ``%%compile`` summary's static HTML, its notes aligned
  left whatever the page's CSS does to table cells; each inspector (``inspect()`` and a
  ``%%compile --inspect`` cell) shows its static report under a line saying the interactive
  view needs widgets (the output after the widget's, since nbconvert shows a widget's view,
  never the HTML beside it, where the notebook has widget state). The same where scripts
  run and the widgets' CDN is unreachable.
- Scripts on: nbconvert's page loads require.js, Jupyter's HTML widget manager and
  anywidget from CDNs; here each address is answered from the npm packages in
  ``labextension/node_modules`` (the same files those CDNs serve) and every other request
  is refused, so nothing reaches a network. The inspector draws from the saved state: its
  break at its line, a click on it showing the line beside its kernels, one view per tab;
  the static reports are not shown beside the widgets. A record in the state crafted to
  carry markup shows the markup as text and runs nothing.
"""

from __future__ import annotations

import json
import re

import nbformat
import pytest
from nbconvert import HTMLExporter

from nbcompile.display.inline_inspector import NEEDS_WIDGETS
from tests.support import ROOT
from tests.support.kernel import execute_notebook

from .test_frontends import kept_on_failure, nbcompile_errors, new_page
from .test_inline_inspector import (
    CALL_CELL,
    COMPILE_CELL,
    COMPILE_INSPECT_CELL,
    COS_CALL_CELL,
    INSPECT_CELL,
    check_break_and_map,
)

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(600)]

NODE_MODULES = ROOT / "labextension" / "node_modules"
STATE_MIME = "application/vnd.jupyter.widget-state+json"
#: What nbconvert's page asks the CDNs for, answered from the same npm packages.
CDN_FILES = [
    (re.compile(r"/require(\.min)?\.js$"), NODE_MODULES / "requirejs" / "require.js"),
    (re.compile(r"/@jupyter-widgets/html-manager@[^/]*/dist/embed-amd\.js$"),
     NODE_MODULES / "@jupyter-widgets" / "html-manager" / "dist" / "embed-amd.js"),
    (re.compile(r"/anywidget@[^/]*/dist/index\.js$"),
     NODE_MODULES / "anywidget" / "dist" / "index.js"),
]
HOSTILE = '<img src=x onerror="window.__nbcPwned=1">'
FALLBACK = ".nbcompile-widget-fallback"


def executed_notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in
                ("%load_ext nbcompile", COMPILE_CELL, CALL_CELL, INSPECT_CELL, INSPECT_CELL,
                 COMPILE_INSPECT_CELL, COS_CALL_CELL)]
    return execute_notebook(nb)


def models(nb: nbformat.NotebookNode) -> dict[str, dict]:
    return nb.metadata["widgets"][STATE_MIME]["state"]


def answer_from_node_modules(route) -> None:
    url = route.request.url
    for pattern, path in CDN_FILES:
        if pattern.search(url.split("?")[0]):
            route.fulfill(path=str(path), content_type="text/javascript")
            return
    route.abort()


def check_static_reports(page) -> None:
    """Each inspector's output shows its static report, under the line saying why."""
    fallbacks = page.locator(FALLBACK)
    assert fallbacks.count() == 3
    for i, name in enumerate(("gelu_chain", "gelu_chain", "cos_plus")):
        shown = fallbacks.nth(i)
        assert shown.is_visible()
        text = shown.inner_text()
        assert NEEDS_WIDGETS in text and name in text, text[:300]
    assert "graph break" in fallbacks.first.inner_text()
    assert page.locator(".nbc-widget").count() == 0


def test_an_exported_notebook_keeps_the_module_once_and_shows_the_inspector(
        browser, tmp_path, artifacts):
    for _, path in CDN_FILES:
        assert path.is_file(), f"{path} is missing: `cd labextension && npm ci`"
    nb = executed_notebook()
    state = models(nb)
    holders = [m for m in state.values() if "code" in m["state"]]
    inspectors = [m for m in state.values() if "record" in m["state"]]
    assert len(holders) == 1 and len(inspectors) == 3
    module_ref = f"IPY_MODEL_{next(k for k, m in state.items() if 'code' in m['state'])}"
    for inspector in inspectors:
        assert inspector["state"]["module"] == module_ref
        own = len(json.dumps(inspector["state"])) - len(json.dumps(inspector["state"]["record"]))
        assert own < 4_000, own
    # The whole saved state: the module once, each record, and little else.
    saved = len(json.dumps(nb.metadata["widgets"]))
    records = sum(len(json.dumps(m["state"]["record"])) for m in inspectors)
    module = len(json.dumps(holders[0]["state"]["code"]))
    assert saved < module + records + 3 * 4_000 + 2_000, (saved, module, records)

    # A crafted record in the saved state: its markup must stay text.
    inspectors[1]["state"]["record"]["targets"][0]["name"] = HOSTILE
    html, _ = HTMLExporter().from_notebook_node(nb)
    page_path = tmp_path / "exported.html"
    page_path.write_text(html, encoding="utf-8")

    # Scripts off: the summary's static HTML, its notes aligned left though the page
    # right-aligns table cells; each inspector's static report.
    context, page = new_page(browser, [], java_script_enabled=False)
    try:
        page.goto(page_path.as_uri())
        summary = page.locator(".jp-OutputArea-output", has_text="gelu_chain").first
        assert "graph break" in summary.inner_text().lower()
        note = summary.locator(".nbcompile-summary td[colspan] li",
                               has_text="graph break at line").first
        assert note.evaluate("e => getComputedStyle(e).textAlign") in ("left", "start")
        check_static_reports(page)
        page.screenshot(path=str(artifacts / "widget-export-scripts-off.png"), full_page=True)
    finally:
        context.close()

    # Scripts on, the widgets' CDN unreachable: the static reports again.
    refused: list[str] = []
    context, page = new_page(browser, [])
    context.route("**/*", lambda route: route.continue_()
                  if route.request.url.startswith("file:")
                  else (refused.append(route.request.url), route.abort()))
    try:
        page.goto(page_path.as_uri())
        # The widget manager was asked for and refused: no widget can draw after this.
        page.wait_for_function("() => [...document.scripts].some("
                               "s => /embed-amd|require/.test(s.src))")
        page.wait_for_load_state("load")
        assert any(re.search(r"embed-amd|require", u) for u in refused), refused
        check_static_reports(page)
    finally:
        context.close()

    # Scripts on, CDN addresses answered from node_modules, nothing else reachable.
    console: list[str] = []
    context, page = new_page(browser, console)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    context.route("**/*", lambda route: route.continue_()
                  if route.request.url.startswith("file:") else answer_from_node_modules(route))
    with kept_on_failure(context, page, console, artifacts, "widget-export"):
        page.goto(page_path.as_uri())
        widgets = page.locator(".nbc-widget")
        widgets.nth(2).wait_for(timeout=60_000)
        assert widgets.count() == 3
        # Where the widgets run, their static reports are not shown.
        fallbacks = page.locator(FALLBACK)
        assert fallbacks.count() == 3
        for i in range(3):
            fallbacks.nth(i).wait_for(state="hidden")
        assert "cos_plus" in widgets.nth(2).locator(".nbc-widget-header").inner_text()
        check_break_and_map(widgets.first)
        assert HOSTILE in widgets.nth(1).locator(".nbc-widget-header").inner_text()
        assert page.evaluate("window.__nbcPwned") is None
        assert page.locator(".nbc-widget img").count() == 0
        page.screenshot(path=str(artifacts / "widget-export-scripts-on.png"))
    assert not dialogs
    assert not nbcompile_errors(console), console
