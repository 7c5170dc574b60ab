"""The docs say what the code does.

Every fenced code block of ``README.md`` and ``docs/*.md`` runs, in order, in the real
in-process IPython shell (a file's blocks share one namespace, as a notebook's cells
do), and must not raise. Not run: blocks fenced as another language (``bash``, ``text``,
``json``...), and blocks that carry an explicit marker comment
``# docs-test: skip (reason)`` (e.g. one that needs a GPU).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import nbcompile
from tests.support import ROOT
from tests.support.readme import blocks

RUNNABLE = {"", "python", "py", "ipython", "python3", "pycon"}

SKIP = re.compile(r"#\s*docs-test:\s*skip\b")

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]




def runnable(path: Path) -> list[tuple[int, str]]:
    return [(line, code) for line, lang, code in blocks(path)
            if lang in RUNNABLE and not SKIP.search(code)]


@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_the_code_blocks_run(ip, path):
    ran = 0
    for line, code in runnable(path):
        result = ip.run_cell(code)
        assert result.error_before_exec is None and result.error_in_exec is None, (
            f"{path.name}:{line}: {result.error_before_exec or result.error_in_exec!r}\n{code}")
        ran += 1
    if path.name == "README.md":
        assert ran >= 3, "the README's first example is a code block"
        report = nbcompile.report(ip.user_ns["gelu_chain"])
        # what the README says of the example: it compiled, the print is a graph break
        assert report.status_text == "compiled" and report.graph_count == 2, report
        assert [b.line for b in report.graph_breaks] == ['print("debug")          # a graph break']
