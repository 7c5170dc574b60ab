"""%compare in a real kernel (nbclient)."""

from __future__ import annotations

import pytest

import nbcompile
from tests.support.kernel import execute_notebook, make_notebook, outputs_of


@pytest.mark.slow
def test_compare_in_a_real_kernel():
    nb = make_notebook([
        "%load_ext nbcompile",
        "import torch\n"
        "def nb_chain(x):\n"
        "    for _ in range(4):\n"
        "        x = torch.sin(x) * 1.1 + torch.cos(x)\n"
        "    return x\n"
        "x = torch.randn(128, 512)",
        "%compare nb_chain(x) --modes eager,default --budget 1",
        "%compare nb_chain(x) --modes nonsense",
    ])
    execute_notebook(nb, allow_errors=True)
    outs = outputs_of(nb.cells[2])
    results = [o for o in outs if o["output_type"] == "execute_result"]
    assert results, outs
    data = results[0]["data"]
    assert {nbcompile.MIME_TYPE, "text/html", "text/plain", "image/png"} <= set(data)
    record = data[nbcompile.MIME_TYPE]
    assert record["record"] == "timing" and record["schema_version"] == 1
    assert [r["mode"] for r in record["rows"]] == ["eager", "default"]
    assert "<table>" in data["text/html"]
    errors = [o for o in outputs_of(nb.cells[3]) if o["output_type"] in ("error", "stream")]
    assert any("unknown mode 'nonsense'" in (o.get("text") or o.get("evalue") or "")
               for o in errors), outputs_of(nb.cells[3])
