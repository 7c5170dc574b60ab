"""``%kprun``, ``%suggest`` and ``%diagnose`` name a cell as the summary does (``cell [N]``,
N the execution count the cell ran as), never by the code filename IPython gave it;
the records keep that filename for tools."""

from __future__ import annotations

import nbcompile
from nbcompile.core.notebook.cells.cell_names import name_cells, names_in, place
from nbcompile.display.diagnose import diagnosis_bundle
from nbcompile.display.profile import profile_bundle
from nbcompile.display.suggest import suggestions_bundle

RAW = ("ipython-input", "ipykernel_")

CELL = """\
import torch

@torch.library.custom_op("nbcompile_cellnames::doubled", mutates_args=())
def cn_doubled(x: torch.Tensor) -> torch.Tensor:  # no fake kernel: Dynamo cannot trace it
    return x * 2

def cn_f(x):
    y = cn_doubled(x)
    return y + 1

def cn_g(x):
    y = x.sin()
    n = int(x.sum())
    return y.cos() + n

x_cn = torch.randn(8)
"""


def _shown(bundle: dict) -> tuple[str, str]:
    return bundle["text/plain"], bundle["text/html"]


def test_commands_name_the_cell_as_the_summary_does(ip):
    number = ip.execution_count  # the count the cell runs as: the summary's cell [N]
    ip.run_cell(CELL, store_history=True).raise_error()
    cell = f"cell [{number}]"
    filename = ip.user_ns["cn_g"].__code__.co_filename

    prof = ip.run_line_magic("kprun", "cn_g(x_cn) --repeat 2 --no-memory")
    assert isinstance(prof, nbcompile.Profile) and prof.filename == filename  # kept for tools
    bundle = profile_bundle(prof)
    for shown in _shown(bundle):
        assert f"source ({cell})" in shown and not any(r in shown for r in RAW), shown
    # the record keeps the filename (its breaks' too) and names the cell beside it
    record = bundle[nbcompile.MIME_TYPE]
    assert record["graph_breaks"] and record["graph_breaks"][0]["filename"] == filename
    assert record["cell_names"] == {filename: cell}

    sug = ip.run_line_magic("suggest", "cn_g(x_cn) --budget 20")
    assert isinstance(sug, nbcompile.Suggestions) and sug.items
    assert sug.items[0].problem.filename == filename
    sug_bundle = suggestions_bundle(sug)
    for shown in _shown(sug_bundle):
        assert f"{cell}, line 13: n = int(x.sum())" in shown, shown
        assert not any(r in shown for r in RAW), shown
    # the inspector's suggestions view names the cell from the record, as the profile's
    assert sug_bundle[nbcompile.MIME_TYPE]["cell_names"] == {filename: cell}

    d = ip.run_line_magic("diagnose", "cn_f(x_cn) --budget 30")
    assert isinstance(d, nbcompile.Diagnosis) and d.kind == "crash"
    assert d.filename == filename and d.lineno == 8  # the raw place, for tools
    d_bundle = diagnosis_bundle(d)
    text, html = _shown(d_bundle)
    assert f"{cell}, line 8: y = cn_doubled(x)" in text and f"{cell}, line 8" in html
    assert d_bundle[nbcompile.MIME_TYPE]["cell_names"].get(filename) == cell
    for shown in (text, html, d.error_detail, d.error):
        assert not any(r in shown for r in RAW), shown


def test_place_and_name_cells_follow_one_rule(ip):
    code = compile("1\n", "<ipython-input-41-0123abcd>", "exec")
    assert place(code.co_filename, 2) == "cell [41], line 2"
    assert place("/x/lib/mod.py", 7) == "/x/lib/mod.py:7" and place(None, 3) == "line 3"
    # an ipykernel file IPython does not know: a cell, not its temporary file
    text = 'File "/tmp/ipykernel_99/123.py", line 5, in f\n  # /tmp/ipykernel_99/123.py:6 in f'
    assert name_cells(text) == "a notebook cell, line 5, in f\n  # a notebook cell, line 6 in f"
    # the names a record carries beside torch's text: each cell file as written there
    record = {"graphs": ["# File: /tmp/ipykernel_99/123.py:4 in f, code: y = x"],
              "filename": "<ipython-input-41-0123abcd>", "other": "/x/lib/mod.py:7"}
    assert names_in(record) == {"/tmp/ipykernel_99/123.py": "a notebook cell",
                                "<ipython-input-41-0123abcd>": "cell [41]"}
