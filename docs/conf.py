"""Sphinx configuration of nbcompile's documentation site (``make docs``).

Sphinx + MyST-NB + the PyData theme, the convention of the Jupyter and PyTorch projects'
own documentation (IPython, ipywidgets, JupyterLab, PyTorch): Markdown pages, the
tutorials rendered as executed notebooks, the API reference from the docstrings. The
tutorials are not executed here (``nb_execution_mode = "off"``): the build reads the
copies that ``tests/kernel/test_notebooks.py`` saved in ``tutorials/`` when it ran them
(``python -m tests.support.tutorials`` executes those missing or stale). The build needs
no network: no intersphinx, no remote images, external links are not fetched.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import nbcompile  # noqa: E402

project = "nbcompile"
author = "nbcompile contributors"
copyright = "nbcompile contributors"  # noqa: A001 - Sphinx's name
release = version = nbcompile.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
]

exclude_patterns = ["_build", "**.ipynb_checkpoints", "tutorials/*.tmp"]

# MyST: ::: fences for directives (``` blocks in docs/*.md are run by the README test),
# anchors for headings so that `page.md#heading` links are checked.
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# The tutorials come executed (see the module docstring); nbcompile's outputs carry a
# self-styled text/html fallback that reads without JavaScript, chosen before text/plain.
nb_execution_mode = "off"
nb_execution_raise_on_error = True
nb_merge_streams = True
# MyST-NB parses every MIME type of an output before it picks one per builder, and warns
# on those it has no renderer for: nbcompile's own record type, which only the JupyterLab
# extension draws. The page shows the bundle's text/html fallback.
suppress_warnings = ["mystnb.unknown_mime_type"]

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_typehints_format = "short"

html_theme = "pydata_sphinx_theme"
html_title = "nbcompile"
html_static_path = ["_static"]
html_theme_options = {
    "navbar_align": "left",
    "header_links_before_dropdown": 4,
    "show_toc_level": 2,
    # The site must build offline: no version switcher JSON, no remote icons.
    "navigation_with_keys": False,
}
html_context = {"default_mode": "light"}

# Warnings are errors (-W); a missing cross-reference, heading anchor or image fails.
nitpicky = False
# linkcheck (``make docs`` runs it for internal links only): no network.
linkcheck_ignore = [r"https?://.*", r"mailto:.*"]
