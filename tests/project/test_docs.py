"""The documentation site (docs/, Sphinx + MyST-NB) builds, and its links lead somewhere.

The build runs with warnings as errors: a link to a page, heading anchor or image that
does not exist, a page outside every table of contents, a docstring that does not parse
all fail it. It reads the tutorials executed by ``tests/kernel/test_notebooks.py``
(``docs/tutorials/``; those missing or stale are executed first, those running in
another test process waited for) and needs no network.
The README is the landing page: short, every relative link and image present, every
command's page linked.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.support import ROOT, tour, tutorials
from tests.support.readme import blocks

DOCS = ROOT / "docs"
README = ROOT / "README.md"
GUIDE = ["compile", "report", "compare", "kprun", "suggest", "diagnose", "open-trace",
         "inspector", "cache", "configuration", "compile-time", "stance"]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _relative_links(path) -> list[str]:
    text = re.sub(r"^```.*?^```", "", path.read_text(), flags=re.M | re.S)
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]


def test_readme_is_a_short_landing_page_whose_links_exist():
    lines = README.read_text().splitlines()
    assert len(lines) <= 120, f"README.md has {len(lines)} lines: move the detail to docs/"
    links = _relative_links(README)
    missing = [t for t in links if not (ROOT / t.split("#")[0]).exists()]
    assert not missing, f"README.md links to missing files: {missing}"
    assert "docs/_static/screenshots/inspector.png" in links
    for page in GUIDE:
        assert f"docs/guide/{page}.md" in links, f"the README's table lacks {page}"


def test_readme_example_is_the_screenshots_program():
    """The README's "In 30 seconds" cells are the cells its picture was shot from."""
    code = [c.rstrip("\n") for _, lang, c in blocks(README) if lang == ""]
    assert code[1:3] == [tour.COMPILE_CELL, tour.CALL_CELL], code[:3]
    text = README.read_text()
    assert "screenshots/compile-summary.png" in text.split("## In 30 seconds")[1].split("##")[0]


@pytest.mark.parametrize("page", GUIDE)
def test_every_command_page_shows_a_screenshot(page):
    images = [t for t in _relative_links(DOCS / "guide" / f"{page}.md")
              if t.endswith(".png")]
    assert images, f"docs/guide/{page}.md has no screenshot"
    for image in images:
        assert (DOCS / "guide" / image).resolve().is_file(), image


@pytest.mark.slow
def test_the_site_builds_without_warnings(tmp_path):
    for source in tutorials.tutorials():  # waits for those running in another process
        tutorials.execute_if_stale(source)
    out = tmp_path / "html"
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(DOCS), str(out)],
        capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-6000:]
    # The tutorials are there with nbcompile's outputs (their text/html fallbacks) and
    # no error output.
    page = (out / "tutorials" / "01-getting-started.html").read_text()
    assert "nbcompile-summary" in page and "gelu_tanh" in page
    for html in (out / "tutorials").glob("0*.html"):
        assert "Traceback (most recent call last)" not in html.read_text(), html.name
    # The API reference has the public names' docstrings.
    api = (out / "reference" / "api.html").read_text()
    for name in ("report", "compare", "profile", "suggest", "diagnose", "open_trace"):
        assert f'id="nbcompile.{name}"' in api, name
