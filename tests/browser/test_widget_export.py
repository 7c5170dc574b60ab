"""A notebook with ``nbcompile.inspect`` outputs, executed in a real kernel (nbclient, which
saves the widget state), exported with ``nbconvert --to html`` and read in Chromium.

- The saved widget state holds the inspector's module once, however many inspectors the
  notebook shows; each inspector's own state is its record and a 1 KB loader.
- Scripts off: the page shows the ``%%compile`` summary's static HTML; the inspectors'
  outputs are empty (nbconvert's template shows a widget, never the HTML beside it, where
  the notebook has widget state).
- Scripts on: nbconvert's page loads require.js, Jupyter's HTML widget manager and
  anywidget from CDNs; here each address is answered from the npm packages in
  ``labextension/node_modules`` (the same files those CDNs serve) and every other request
  is refused, so nothing reaches a network. The inspector draws from the saved state: its
  break at its line, a click on it showing the line beside its kernels. A record in the
  state crafted to carry markup shows the markup as text and runs nothing.
"""

from __future__ import annotations

import json
import re

import nbformat
import pytest
from nbconvert import HTMLExporter

from tests.support import ROOT
from tests.support.kernel import execute_notebook

from .test_frontends import kept_on_failure, nbcompile_errors, new_page
from .test_inline_inspector import CALL_CELL, COMPILE_CELL, INSPECT_CELL, check_break_and_map

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


def executed_notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in
                ("%load_ext nbcompile", COMPILE_CELL, CALL_CELL, INSPECT_CELL, INSPECT_CELL)]
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


def test_an_exported_notebook_keeps_the_module_once_and_shows_the_inspector(
        browser, tmp_path, artifacts):
    for _, path in CDN_FILES:
        assert path.is_file(), f"{path} is missing: `cd labextension && npm ci`"
    nb = executed_notebook()
    state = models(nb)
    holders = [m for m in state.values() if "code" in m["state"]]
    inspectors = [m for m in state.values() if "record" in m["state"]]
    assert len(holders) == 1 and len(inspectors) == 2
    module_ref = f"IPY_MODEL_{next(k for k, m in state.items() if 'code' in m['state'])}"
    for inspector in inspectors:
        assert inspector["state"]["module"] == module_ref
        own = len(json.dumps(inspector["state"])) - len(json.dumps(inspector["state"]["record"]))
        assert own < 4_000, own
    # The whole saved state: the module once, each record, and little else.
    saved = len(json.dumps(nb.metadata["widgets"]))
    records = sum(len(json.dumps(m["state"]["record"])) for m in inspectors)
    module = len(json.dumps(holders[0]["state"]["code"]))
    assert saved < module + records + 2 * 4_000 + 2_000, (saved, module, records)

    # A crafted record in the saved state: its markup must stay text.
    inspectors[1]["state"]["record"]["targets"][0]["name"] = HOSTILE
    html, _ = HTMLExporter().from_notebook_node(nb)
    page_path = tmp_path / "exported.html"
    page_path.write_text(html, encoding="utf-8")

    # Scripts off: the summary's static HTML; the inspectors' outputs stay empty.
    context, page = new_page(browser, [], java_script_enabled=False)
    try:
        page.goto(page_path.as_uri())
        summary = page.locator(".jp-OutputArea-output", has_text="gelu_chain").first
        assert "graph break" in summary.inner_text().lower()
        assert page.locator(".nbc-widget").count() == 0
        page.screenshot(path=str(artifacts / "widget-export-scripts-off.png"))
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
        widgets.nth(1).wait_for(timeout=60_000)
        assert widgets.count() == 2
        check_break_and_map(widgets.first)
        assert HOSTILE in widgets.nth(1).locator(".nbc-widget-header").inner_text()
        assert page.evaluate("window.__nbcPwned") is None
        assert page.locator(".nbc-widget img").count() == 0
        page.screenshot(path=str(artifacts / "widget-export-scripts-on.png"))
    assert not dialogs
    assert not nbcompile_errors(console), console
