"""How long JupyterLab's main thread stalls on a notebook: Lab is loaded first with the
Compile inspector open (its start-up excluded), then the notebook is opened through
Lab's command and every long task (PerformanceObserver 'longtask', > 50 ms) is recorded
until the page is quiet, with the longest run of nbcompile's own scripts
('long-animation-frame' script attribution); then it is closed. The baseline is the largest
record's bytes under a MIME type no renderer knows (what Lab itself costs). Shared by
test_fuzz_records.py and ``python -m tests.browser.stalls [OUT.json] [--whole]`` (prints
the figures; run by hand, ``JUPYTER_PATH`` pointing at a build to compare builds).
"""

from __future__ import annotations

import json
import secrets
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import big_records, hostile
from .fuzz_driver import INSPECTOR_TAB, NO_KERNEL, _dismiss_kernel_dialog, no_windowing

#: Lab exposes its application object to the page (to open notebooks by command).
EXPOSE = ["--LabApp.expose_app_in_browser=True"]
UNKNOWN_MIME = "application/x-nbcompile-baseline+json"
_OBSERVE = """
window.__nbcLong = [];
window.__nbcOurs = [];
new PerformanceObserver(list => {
  for (const e of list.getEntries()) { window.__nbcLong.push(e.duration); }
}).observe({ type: 'longtask', buffered: true });
new PerformanceObserver(list => {
  for (const e of list.getEntries()) {
    for (const s of e.scripts || []) {
      if ((s.sourceURL || '').includes('nbcompile')) { window.__nbcOurs.push(s.duration); }
    }
  }
}).observe({ type: 'long-animation-frame', buffered: true });
"""


@dataclass
class Stall:
    notebook: str
    #: From the open command to every record rendered, seconds.
    render_s: float | None = None
    #: Longest main-thread task while opening and rendering (seconds), and all of them.
    longest_s: float = 0.0
    total_s: float = 0.0
    #: Longest run of nbcompile's own scripts (long-animation-frame script attribution).
    ours_s: float = 0.0
    errors: list[str] = field(default_factory=list)
    #: Records shown as not shown (refused by the validator), with their reasons.
    refused: list[str] = field(default_factory=list)


def write_baseline(path: Path, cases: list[hostile.Case]) -> None:
    """``cases`` with each record under a MIME type Lab has no renderer for."""
    hostile.write_notebook(path, cases)
    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        data = cell["outputs"][0]["data"]
        data[UNKNOWN_MIME] = data.pop(hostile.MIME)
        data["text/plain"] = "baseline"
    path.write_text(json.dumps(nb, separators=(",", ":")))


def _quiet(page, quiet_s: float = 1.5, limit_s: float = 60) -> None:
    """Wait until no long task came for `quiet_s` (or `limit_s` passed)."""
    deadline = time.monotonic() + limit_s
    seen, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        n = page.evaluate("() => window.__nbcLong.length")
        if n != seen:
            seen, since = n, time.monotonic()
        elif time.monotonic() - since >= quiet_s:
            return
        page.wait_for_timeout(250)


def _take(page) -> list[float]:
    return [d / 1000 for d in page.evaluate("() => window.__nbcLong.splice(0)")]


def _ours(page) -> float:
    return max(page.evaluate("() => window.__nbcOurs.splice(0)"), default=0.0) / 1000


def open_lab(browser, server):
    """A page of Lab, loaded and quiet, the Compile inspector open (so that opening a
    notebook renders its records inline and in the inspector)."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.add_init_script(_OBSERVE)
    page.set_default_timeout(120_000)
    page.goto(f"{server.url}/lab?token={server.token}&reset")
    page.wait_for_function("() => window.jupyterapp && document.querySelector('.jp-Launcher')")
    page.locator(INSPECTOR_TAB).click()
    page.locator("#nbcompile-inspector").wait_for()
    return page


def measure(page, name: str, cells: int, *,
            selector: str = ".nbc-inline:not(:empty)") -> Stall:
    """Open `name` in the loaded Lab of `page`: the long tasks until `cells` outputs
    matching `selector` rendered and the page is quiet; then close it again."""
    run = Stall(name)
    errors = lambda e: run.errors.append(str(e)[:300])  # noqa: E731
    page.on("pageerror", errors)
    try:
        _dismiss_kernel_dialog(page)
        _quiet(page)
        _take(page)
        _ours(page)
        t0 = time.monotonic()
        page.evaluate("p => { void window.jupyterapp.commands.execute('docmanager:open', "
                      "{ path: p }); }", name)
        done = f"""name => {{
            const w = window.jupyterapp.shell.currentWidget;
            return !!w && !!w.context && w.context.path === name &&
                w.node.querySelectorAll('.jp-OutputArea {selector}').length >= {cells}; }}"""
        page.wait_for_function(done, arg=name, timeout=120_000, polling=100)
        run.render_s = time.monotonic() - t0
        _dismiss_kernel_dialog(page, wait_ms=1_000)
        _quiet(page)
        tasks = _take(page)
        run.longest_s, run.total_s = max(tasks, default=0.0), sum(tasks)
        run.ours_s = _ours(page)
        run.refused = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .nbc-invalid") \
            .all_inner_texts()
    except Exception as err:  # noqa: BLE001 - recorded: the caller asserts
        run.errors.append(str(err)[:300])
    finally:
        page.remove_listener("pageerror", errors)
        _dismiss_kernel_dialog(page)
        # Closed without asking (a notebook Lab could not start a kernel for may ask).
        page.evaluate("""() => { for (const w of [...window.jupyterapp.shell.widgets('main')]) {
            if (w.context) { w.dispose(); } } }""")
        page.wait_for_function("() => !document.querySelector('.jp-NotebookPanel')")
    return run


#: The baseline of rows measured without one: Lab's own cost taken as nothing.
NOT_MEASURED = ""


def measure_cases(browser, server, names: list[tuple[str, str]],
                  baseline: str | None) -> list[dict]:
    """For each (case, notebook stem) nbcompile's rendering, and Lab's own cost (notebook
    `baseline`: the records' bytes under a MIME type no renderer knows) before and after
    the cases (the longer counts: noise on a loaded machine); with no `baseline`, Lab's
    own cost is not measured and counts as nothing (a row's ``baseline`` is empty)."""
    page = open_lab(browser, server)
    measured: list[Stall] = []
    try:
        if baseline is not None:
            measured.append(measure(page, baseline, 1, selector=".jp-OutputArea-output"))
        runs = [(case, measure(page, f"{stem}.ipynb", 1)) for case, stem in names]
        if baseline is not None:
            measured.append(measure(page, baseline, 1, selector=".jp-OutputArea-output"))
    finally:
        page.context.close()
    base = max(measured, key=lambda r: r.longest_s, default=Stall(NOT_MEASURED))
    base.errors = [e for r in measured for e in r.errors]
    return [{"case": case, "baseline": asdict(base), "nbcompile": asdict(run)}
            for case, run in runs]


def write_cases(root: Path, cases: list[hostile.Case]) -> tuple[list[tuple[str, str]], str]:
    """Each case as a notebook, and a baseline notebook of the largest one's bytes under
    a MIME type no renderer knows: the (case, notebook stem) pairs and the baseline's
    name."""
    names = []
    for i, case in enumerate(cases):
        hostile.write_notebook(root / f"big{i}.ipynb", [case])
        names.append((case[0], f"big{i}"))
    largest = max(cases, key=lambda c: len(json.dumps(c[1], separators=(",", ":"))))
    write_baseline(root / "big-base.ipynb", [largest])
    return names, "big-base.ipynb"


def summary(row: dict) -> dict:
    base, run = row["baseline"], row["nbcompile"]
    base_longest = (None if base["notebook"] == NOT_MEASURED else round(base["longest_s"], 2))
    return {"case": row["case"], "base_longest_s": base_longest,
            "longest_s": round(run["longest_s"], 2), "ours_s": round(run["ours_s"], 2),
            "total_s": round(run["total_s"], 2),
            "render_s": run["render_s"] and round(run["render_s"], 2),
            "errors": run["errors"] + base["errors"], "refused": run["refused"]}


def main() -> None:
    """Print the stalls of each big record (clipped to the validator's cap unless
    ``--whole``) and of its baseline; write them as JSON to the first argument."""
    from playwright.sync_api import sync_playwright

    from .conftest import CHROMIUM, CHROMIUM_ARGS, lab_server

    whole = "--whole" in sys.argv
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    cases = big_records.cases(None if whole else big_records.max_record_bytes())
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        root = Path(tmp) / "root"
        root.mkdir()
        names, baseline = write_cases(root, cases)
        no_windowing(Path(tmp) / "state")
        with lab_server(root, Path(tmp) / "state", secrets.token_hex(8),
                        NO_KERNEL + EXPOSE) as server:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                        headless=True)
            rows = measure_cases(browser, server, names, baseline)
            browser.close()
    for row in rows:
        print(json.dumps(summary(row)), flush=True)
    if args:
        Path(args[0]).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
