"""The docs say what the code does.

Every fenced code block of ``README.md`` and ``docs/*.md`` runs, in order, in the real
in-process IPython shell (a file's blocks share one namespace, as a notebook's cells
do), and must not raise. Not run: blocks fenced as another language (``bash``, ``text``,
``json``...), and blocks that carry an explicit marker comment
``# docs-test: skip (reason)`` (e.g. one that needs a GPU).
"""

from __future__ import annotations

import pytest

from tests.support import ROOT
from tests.support.readme import blocks

#: Compiles real code or runs child processes: not in the fast tier.
pytestmark = pytest.mark.slow

RUNNABLE = {"", "python", "py", "ipython", "python3", "pycon"}

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]




def test_every_block_is_run_or_says_why_not():
    """A block without a language runs; one that cannot run says so explicitly."""
    for path in DOCS:
        for line, lang, _code in blocks(path):
            if lang in RUNNABLE:
                continue
            assert lang in {"bash", "sh", "console", "text", "json", "ts", "typescript"}, (
                f"{path.name}:{line}: unknown block language {lang!r}")
