"""torch's own log records about captured compiles go into the record, not to stderr;
``--torch-logs`` keeps them on stderr; other warnings pass through; unload restores
torch's logging exactly. The kernel runs with ``TORCH_LOGS=recompiles,output_code``: what
the user turned on reaches stderr whole, for a target as for a plain ``torch.compile``."""

from __future__ import annotations

import os
import re

import pytest

from nbcompile.core.records import MIME_TYPE
from tests.support.kernel import execute_notebook, make_notebook, outputs_of

ITEM_WARNING = "capture_scalar_outputs"

LIMIT_WARNING = "recompile_limit"
#: What the kernel's user asked torch for.
TORCH_LOGS = "recompiles,output_code"


def stderr_of(cell) -> str:
    return "".join(o.get("text", "") for o in outputs_of(cell)
                   if o.get("output_type") == "stream" and o.get("name") == "stderr")


@pytest.fixture(scope="module")
def executed():
    nb = make_notebook([
        "%load_ext nbcompile\nimport torch\ntorch._dynamo.config.recompile_limit = 1",
        "%%compile\ndef item_break(x):\n    y = x.sum().item()\n    return x * y",
        "r = item_break(torch.randn(4))",
        "%%compile --torch-logs --no-dynamic\ndef shown(x, k):\n    return x * k",
        "for k in range(3):\n    shown(torch.randn(3), k)",
        "%%compile --no-dynamic\ndef folded(x, k):\n    return x + k",
        "for k in range(3):\n    folded(torch.randn(3), k)",
        "import logging, warnings\nwarnings.warn('a user warning stays')\n"
        "logging.getLogger('torch._dynamo').warning('torch outside any compile stays')",
        "import nbcompile\n"
        "print([log.message for log in nbcompile.report(item_break).torch_logs])\n"
        "print([log.message for log in nbcompile.report(folded).torch_logs])\n"
        "print(len(nbcompile.report(shown).torch_logs))",
        "%%compile --no-dynamic\ndef logged(x, k):\n    return x - k",
        "torch._dynamo.config.recompile_limit = 8\nfor k in range(2):\n"
        "    logged(torch.randn(3), k)",
        "plain = torch.compile(lambda x, k: x - k, dynamic=False)\nfor k in range(2):\n"
        "    plain(torch.randn(3), k)",
        "print([log.message[:60] for log in nbcompile.report(logged).torch_logs])",
        # (this kernel reused) a cell named by its execution count, not ipykernel's file
        "from nbcompile.core.notebook.cells.cell_names import name_cells, place\n"
        "def here():\n    pass\n"
        "print(place(here.__code__.co_filename, 2), '|', name_cells(here.__code__.co_filename))",
    ])
    saved = os.environ.get("TORCH_LOGS")
    os.environ["TORCH_LOGS"] = TORCH_LOGS  # the kernel inherits it
    try:
        return execute_notebook(nb, timeout=600).cells
    finally:
        if saved is None:
            del os.environ["TORCH_LOGS"]
        else:
            os.environ["TORCH_LOGS"] = saved


def test_graph_break_warning_leaves_stderr_for_the_record(executed):
    assert ITEM_WARNING not in stderr_of(executed[2])
    printed = "".join(o.get("text", "") for o in outputs_of(executed[8]))
    first, second, third = printed.strip().splitlines()
    assert "Graph break from `Tensor.item()`" in first and ITEM_WARNING in first
    assert LIMIT_WARNING in second and "folded" in second
    assert third == "0"


def test_summary_shows_torch_logs_once_folded(executed):
    bundles = [o["data"] for o in outputs_of(executed[1]) if MIME_TYPE in o.get("data", {})]
    assert bundles, outputs_of(executed[1])
    text, html = bundles[-1]["text/plain"], bundles[-1]["text/html"]
    record = bundles[-1][MIME_TYPE]["targets"][0]
    messages = [log["message"] for log in record["torch_logs"]]
    # the .item() warning; a CUDA build of torch on this CPU also logs "No CUDA runtime"
    assert [m for m in messages if "No CUDA runtime" not in m] == [
        next(m for m in messages if ITEM_WARNING in m)]
    said = f"torch logged {len(messages)} message" + ("s" if len(messages) > 1 else "")
    assert re.findall(r"torch logged \d+ messages?", text) == [said]
    assert f"<details><summary>{said}" in html and ITEM_WARNING in html


def test_torch_logs_flag_keeps_torch_output(executed):
    assert LIMIT_WARNING in stderr_of(executed[4])
    assert LIMIT_WARNING not in stderr_of(executed[6])


def test_other_warnings_pass_through(executed):
    err = stderr_of(executed[7])
    assert "a user warning stays" in err and "torch outside any compile stays" in err


def test_logs_the_user_turned_on_reach_stderr_as_for_plain_torch_compile(executed):
    ours, theirs = stderr_of(executed[10]), stderr_of(executed[11])
    for err, name in ((ours, "logged"), (theirs, "<lambda>")):
        assert len(re.findall(rf"Recompiling function {name} in ", err)) == 1, err[-3000:]
        assert "triggered by the following guard failure(s)" in err
    # Inductor's generated module, whole, for the target as for the control: one per
    # compile (two calls, one recompile) that Inductor compiled or the FX graph cache
    # served; none for one the AOTAutograd cache served (torch 2.15 with a warm cache)
    for what in ("Output code: ", "def call("):
        assert 1 <= ours.count(what) == theirs.count(what) <= 2, (what, ours[-3000:])
    # where torch wrote it: once per compile that printed its module, and once more where
    # Inductor compiled it rather than loading it from its cache (the control runs the
    # same graph second)
    for err in (ours, theirs):
        modules = err.count("Output code: ")
        assert modules <= err.count("Output code written to: ") <= 2 * modules, err[-3000:]
    assert "cut here" not in ours
    printed = "".join(o.get("text", "") for o in outputs_of(executed[12]))
    assert "Recompiling" not in printed and "Output code" not in printed, printed


def test_a_kernel_cell_is_named_by_its_execution_count(executed):
    printed = "".join(o.get("text", "") for o in outputs_of(executed[13])).strip()
    number = executed[13]["execution_count"]
    assert printed == f"cell [{number}], line 2 | cell [{number}]", printed
