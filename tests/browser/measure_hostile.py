"""Print how long JupyterLab takes on each hostile record of the security probe, one
notebook per case, with whichever nbcompile extension Jupyter finds (point JUPYTER_PATH at a
build to compare builds). Not a test: a measurement, run by hand.

    python -m tests.browser.measure_hostile [OUT.json [FIRST_CASE_INDEX [COUNT]]]

Each case gets a fresh browser: a tab that froze keeps a core busy after it is closed.
"""

from __future__ import annotations

import json
import secrets
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

from playwright.sync_api import sync_playwright

from . import hostile
from .conftest import CHROMIUM, CHROMIUM_ARGS, lab_server
from .fuzz_driver import NO_KERNEL, open_notebook


def main() -> None:
    # The real record first: what an ordinary notebook costs on this machine.
    cases = [("real record (control)", hostile.real_record()), *hostile.issue_cases()]
    first = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    last = first + int(sys.argv[3]) if len(sys.argv) > 3 else len(cases)
    runs = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        root = Path(tmp) / "root"
        root.mkdir()
        names = []
        for i, (name, record) in enumerate(cases[first:last], start=first):
            nb = f"case{i}.ipynb"
            hostile.write_notebook(root / nb, [(name, record)])
            names.append((name, nb))
        with lab_server(root, Path(tmp) / "state", secrets.token_hex(8), NO_KERNEL) as server:
            for name, nb in names:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                            headless=True)
                run = open_notebook(browser, server, nb, 1, render_timeout_s=60,
                                    inspector_timeout_s=30, click_timeout_s=30, max_clicks=4)
                row = {"case": name, **asdict(run)}
                runs.append(row)
                keys = ("case", "first_cell_s", "render_s", "inspector_s", "slowest_click_s",
                        "errors")
                print(json.dumps({k: row[k] for k in keys}), flush=True)
                browser.close()
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(json.dumps(runs, indent=1))


if __name__ == "__main__":
    main()
