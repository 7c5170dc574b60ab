"""What users read names a cell as ``cell [N]``, never ipykernel's temporary file
(``/tmp/ipykernel_<pid>/<hash>.py``): the live summary (torch's own warnings folded into
it) and a displayed ``report(f)`` (FX graphs' ``# File:`` comments). torch's text stays
verbatim in the record. A break's stack keeps the user's frames, not the kernel's own
(runpy, ipykernel, tornado, asyncio, IPython), and says how many it left out."""

from __future__ import annotations

import json

import pytest

from nbcompile.core.records import MIME_TYPE
from tests.support.kernel import execute_notebook, make_notebook, outputs_of

CELLS = [
    "%load_ext nbcompile",
    "%%compile --backend eager\nimport torch\ndef cp_item(x):\n    s = x.sum().item()\n"
    "    return x * s\n",
    "_ = cp_item(torch.ones(3))",
    "import nbcompile\nnbcompile.report(cp_item)",
    # torch's own answer for the same code: explain's user stack
    "import json\nex = torch._dynamo.explain(cp_item._torchdynamo_orig_callable)(torch.ones(3))\n"
    "print(json.dumps([[f.filename, f.lineno] for f in ex.break_reasons[0].user_stack]))\n"
    "gb = nbcompile.report(cp_item).graph_breaks[0]\n"
    "print(json.dumps([[f.filename, f.lineno] for f in gb.stack]), gb.stack_dropped)",
]


@pytest.fixture(scope="module")
def executed():
    return execute_notebook(make_notebook(CELLS))


def _shown(output: dict) -> str:
    data = output.get("data", {})
    return data.get("text/plain", "") + data.get("text/html", "")


def test_summary_and_report_name_the_cell(executed):
    summary = [o for o in outputs_of(executed.cells[1]) if MIME_TYPE in o.get("data", {})]
    report = [o for o in outputs_of(executed.cells[3]) if MIME_TYPE in o.get("data", {})]
    assert summary and report
    record = summary[-1]["data"][MIME_TYPE]
    # torch's own text, verbatim in the record: it names ipykernel's file
    logs = json.dumps(record.get("targets", [record])[0].get("torch_logs", []))
    assert "ipykernel_" in logs, logs[:2000]
    for output in (summary[-1], report[-1]):
        shown = _shown(output)
        assert "ipykernel_" not in shown, shown[:4000]
    assert "cell [2], line 4" in _shown(summary[-1]), _shown(summary[-1])[:4000]
    assert "# File: cell [2], line 4" in _shown(report[-1])


def test_a_breaks_stack_is_the_users_frames(executed):
    printed = "".join(o.get("text", "") for o in outputs_of(executed.cells[4]))
    explain_line, ours_line = printed.strip().splitlines()
    explained = json.loads(explain_line)
    ours, dropped = ours_line.rsplit(" ", 1)
    stack = json.loads(ours)
    assert explained and stack[-len(explained):] == explained, (stack, explained)
    # the calling cell's line, then the function's: every frame a cell's
    assert all("ipykernel_" in f for f, _ in stack) and len(stack) <= len(explained) + 1, stack
    assert int(dropped) >= 5  # runpy, ipykernel, tornado, asyncio, IPython
