"""The *Runs as* view: what torch runs in place of a function with a ``print`` break, in
the sidebar and in ``nbcompile.inspect`` (the same view), in a real JupyterLab.

Exercised: the steps (graph, the Python at the break, the resume function) and the
decompiled source; a graph step opening its FX graph and its kernels; a resume step
leading to the resume function's own compile; a Python step marking its line beside its
kernels (the widget) .
"""

from __future__ import annotations

import secrets
from pathlib import Path

import nbformat
import pytest

from .conftest import lab_server
from .test_frontends import kept_on_failure, nbcompile_errors, new_page
from .test_sidebar import cells, open_sidebar_tab, run_cell, wait_idle_status

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(600)]

NOTEBOOK = "runs_as.ipynb"
COMPILE_CELL = '''%%compile
import torch
def gelu_chain(x):
    y = torch.sin(x) * 2
    print("debug")          # a graph break
    return torch.relu(y) + 1'''
CALL_CELL = "y = gelu_chain(torch.randn(8, 64))"
INSPECT_CELL = "import nbcompile\nnbcompile.inspect(gelu_chain)"
RESUME = "torch_dynamo_resume_in_gelu_chain_at_5"


def make_notebook(path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src)
                for src in ("%load_ext nbcompile", COMPILE_CELL, CALL_CELL, INSPECT_CELL)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    nbformat.write(nb, path)


def code_text(section) -> str:
    """The text of a section's code view: CodeMirror (sidebar) or DOM lines (widget)."""
    view = section.locator(".nbc-codeview").first
    view.wait_for()
    lines = view.locator(".nbc-codeline-text")
    if lines.count():
        return "\n".join(lines.all_inner_texts())
    return view.locator(".cm-content").inner_text()


def check_runs_as(root) -> None:
    """Open *Runs as* under ``root`` (the sidebar or the widget): the first compile's steps
    and source; its graph step opens the FX graph; its resume step leads to the resume
    function's compile."""
    section = root.locator('.nbc-section[data-section="runs_as"]')
    assert section.locator(".nbc-count").inner_text() == "2"
    section.locator(":scope > summary").click()
    view = section.locator(".nbc-runs-as")
    view.wait_for()
    assert view.get_attribute("data-compile-id") == "0/0"
    steps = view.locator(".nbc-runs-as-step")
    assert [steps.nth(i).get_attribute("data-kind") for i in range(steps.count())] == [
        "graph", "python", "resume"]
    texts = [t.strip() for t in steps.locator(".nbc-step-text").all_inner_texts()]
    assert texts[0].startswith("graph of 0/0 (2 ops: sin, mul)"), texts
    assert texts[1] == "print(\"debug\") in Python (line 5)", texts
    assert texts[2] == f"resume in {RESUME}", texts
    source = code_text(section)
    assert source.startswith("def gelu_chain(x):"), source[:500]
    assert "__compiled_fn_" in source and "__resume_at_" in source, source[:2000]
    assert "print" in source

    # The graph step: its FX graph in the FX graphs section, its kernels in generated code.
    steps.nth(0).locator(".nbc-step-graph-link").click()
    graphs = root.locator('.nbc-section[data-section="graphs"]')
    assert graphs.get_attribute("open") is not None
    assert "torch.sin" in code_text(graphs)
    steps.nth(0).locator(".nbc-step-kernels-link").click()
    code = root.locator('.nbc-section[data-section="code"]')
    code.locator(".nbc-kernel-row.nbc-selected .nbc-kernel-name",
                 has_text="sin").wait_for()

    # The resume step: the resume function's own compile, its steps and source.
    steps.nth(2).locator(".nbc-step-resume-link").click()
    section.locator('.nbc-runs-as[data-compile-id="1/0"]').wait_for()
    texts = section.locator(".nbc-runs-as-step .nbc-step-text").all_inner_texts()
    assert [t.strip() for t in texts] == ["graph of 1/0 (2 ops: relu, add)"], texts
    assert code_text(section).startswith(f"def {RESUME}("), code_text(section)[:500]


def test_runs_as_in_the_sidebar_and_the_widget(browser, tmp_path, artifacts):
    root = tmp_path / "root"
    root.mkdir()
    make_notebook(root / NOTEBOOK)
    console: list[str] = []
    context, page = new_page(browser, console)
    with kept_on_failure(context, page, console, artifacts, "runs-as"):
        with lab_server(root, tmp_path / "state", secrets.token_hex(16)) as server:
            page.goto(server.lab_url(NOTEBOOK))
            cells(page).nth(3).wait_for(timeout=60_000)
            server.wait_kernel_idle(NOTEBOOK)
            wait_idle_status(page)
            for i in range(3):
                run_cell(page, i)
            cells(page).nth(1).locator(".nbc-inline .nbc-status-compiled").wait_for(
                timeout=60_000)

            open_sidebar_tab(page)
            sidebar = page.locator("#nbcompile-inspector")
            sidebar.locator(".nbc-target-title", has_text="gelu_chain").wait_for()
            check_runs_as(sidebar)
            page.screenshot(path=str(artifacts / "runs-as-sidebar.png"))

            run_cell(page, 3)
            widget = cells(page).nth(3).locator(".nbc-widget")
            widget.wait_for(timeout=60_000)
            check_runs_as(widget)
            # The Python step marks its cell line beside its kernels, as a break does.
            section = widget.locator('.nbc-section[data-section="runs_as"]')
            section.locator("select.nbc-select").select_option("0")
            section.locator('.nbc-runs-as[data-compile-id="0/0"]').wait_for()
            section.locator(".nbc-step-python .nbc-step-text").click()
            source_map = widget.locator(".nbc-widget-map")
            source_map.wait_for(state="visible")
            hot = source_map.locator(".nbc-map-row.nbc-map-hot")
            assert [r.split()[0] for r in hot.all_inner_texts()] == ["5"]
            page.screenshot(path=str(artifacts / "runs-as-widget.png"))
    assert not nbcompile_errors(console), console
