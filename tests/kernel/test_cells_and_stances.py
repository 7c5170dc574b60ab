"""Recompiles as a notebook lives them, in a real kernel (nbclient; execution counts as
JupyterLab gives them): each compile names the cell of its call and the cells that changed
what its failed guard reads; stances per cell keep statuses true; a call refused by
``fail_on_recompile`` is said in words; a frame at the recompile limit names its guard and
cells. Checked against torch's own counters and recompile reasons in the same kernel."""

from __future__ import annotations

import json

import pytest

from tests.support.kernel import execute_notebook, make_notebook, outputs_of
from tests.support.torch_source import no_guard_words, refusal_names_guards

CELLS = [
    # [1]
    "%load_ext nbcompile\nimport json, torch, nbcompile\n"
    "from torch._dynamo.utils import counters\nx = torch.randn(4)",
    # [2]
    "%%compile --backend eager\ndef f(x):\n    return x.relu() if MODE == 'relu' else x.tanh()",
    "MODE = 'relu'",  # [3]
    "f(x)",  # [4]
    "MODE = 'tanh'",  # [5]
    "print('a cell in between')",  # [6]
    "f(x)",  # [7]: recompiles: changed by [5]
    # [8]
    "%%compile --backend eager\n"
    "model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(0.1))",
    "model(x)",  # [9]
    "model.eval()",  # [10]
    "model(x)",  # [11]: recompiles: changed by [10]
    "MODE = 'sigmoid'",  # [12]
    "%%stance fail_on_recompile\nf(x)",  # [13]: refused, in words
    # [14]
    "%%compile --backend eager\ndef g(x):\n    return x + 1\n\n"
    "def h(x):\n    return x - 1\n\ndef k(x):\n    return x * 3",
    "%%stance force_eager\ng(x)\ng(x)",  # [15]
    "%nbcompile stance eager_on_recompile",  # [16]
    "h(x)",  # [17]
    "%nbcompile stance default",  # [18]
    "%%stance fail_on_recompile\nk(x)",  # [19]: refused (nothing compiled yet)
    # [20]: a frame at the recompile limit
    "%%compile --backend eager\ndef lim(x):\n    return x * len(WORD)",
    "torch._dynamo.config.recompile_limit = 3",  # [21]
    "WORD = 'a'\nlim(x)",  # [22]
    "WORD = 'ab'",  # [23]
    "lim(x)",  # [24]
    "WORD = 'abc'",  # [25]
    "lim(x)",  # [26]
    "WORD = 'abcd'",  # [27]
    "lim(x)",  # [28]
    # [29]: stances set with torch's own API; a refusal on an argument's rank
    "%%compile --backend eager\ndef s1(x):\n    return x.exp()\n\ndef s2(x):\n    return x.neg()",
    "torch.compiler.set_stance('force_eager')\ns1(x)\ns1(x)\n"
    "torch.compiler.set_stance('default')",  # [30]: counted, whoever set the stance
    "s2(x)",  # [31]
    "X2 = torch.ones(2, 4)",  # [32]
    "%%stance fail_on_recompile\ns2(X2)",  # [33]: refused: rank, X2 set in [32]
    "torch.compiler.set_stance('default', force_backend='eager')",  # [34]
    "%%stance force_eager\ns2(x) +",  # [35]: a syntax error: nothing ran
    # [36]: torch's stance after it, field by field
    "import dataclasses\nprint(json.dumps(dataclasses.asdict(torch._dynamo.eval_frame._stance)))\n"
    "torch.compiler.set_stance('default')",
    # [37]: the records, torch's counters and reasons
    "from nbcompile.display.bundle import published_record\n"
    "out = {n: published_record(nbcompile.report(globals()[n])) "
    "for n in ('f', 'model', 'g', 'h', 'k', 'lim', 's1', 's2')}\n"
    "out['torch_recompiles'] = dict(counters['recompiles'])\n"
    "out['torch_frames'] = dict(counters['frames'])\n"
    "print(json.dumps(out, default=str))",
]


@pytest.fixture(scope="module")
def executed():
    return execute_notebook(make_notebook(CELLS), allow_errors=True)


@pytest.fixture(scope="module")
def records(executed):
    text = "".join(o.get("text", "") for o in outputs_of(executed.cells[-1])
                   if o.get("output_type") == "stream")
    return json.loads(text.strip().splitlines()[-1])


def _recompiles(record):
    return [c for c in record["compiles"] if c.get("recompile_reason")]


def test_each_compile_names_the_cell_of_its_call(records):
    cells = [c["cell"] for c in records["f"]["compiles"]]
    assert cells == [4, 7], cells


def test_global_set_two_cells_up_names_both_cells(records, executed):
    (rc,) = records["f"]["recompiles"]
    assert rc["cell"] == 7 and rc["changed_by"] == [5], rc
    assert rc["changes"] == ["cell [5] set MODE = 'tanh'"], rc
    (compile_,) = _recompiles(records["f"])
    assert compile_["changed_by"] == [5]
    # the summary under the %%compile cell says it in words, with the frame's recompile
    summary = "".join(o.get("data", {}).get("text/plain", "")
                      for o in outputs_of(executed.cells[1]))
    assert "recompile #1 of `f` (torch's compile id" in summary, summary
    assert "cell [5] set MODE = 'tanh'; the call in cell [7] recompiled" in summary, summary


def test_model_eval_in_its_own_cell_is_named(records):
    (rc,) = records["model"]["recompiles"]
    assert rc["cell"] == 11 and rc["changed_by"] == [10], rc
    assert "model" in rc["changes"][0] and "eval mode" in rc["changes"][0], rc


def test_fail_on_recompile_shows_the_guard_in_words_and_the_cell(executed, records):
    errors = [o for o in outputs_of(executed.cells[12]) if o.get("output_type") == "error"]
    assert errors, outputs_of(executed.cells[12])
    text = "\n".join(errors[0]["traceback"])
    assert "would recompile `f`, and the stance is fail_on_recompile" in text, text
    if not refusal_names_guards():  # torch 2.9: its refusal names no guard; said so
        assert all(line in text for line in no_guard_words()), text
        return
    assert "Guard that failed: global MODE changed" in text, text
    assert "Changed by: cell [12] set MODE = 'sigmoid'" in text, text
    assert len(records["f"]["compiles"]) == 2  # nothing compiled for the refused call


def test_every_stance_gives_a_true_status_and_count(records):
    g, h, k = records["g"], records["h"], records["k"]
    assert g["eager_runs"] == [{"stance": "force_eager", "count": 2, "cells": [15]}]
    assert g["status_text"] == "ran eagerly 2 times: force_eager stance, cell [15]"
    assert h["eager_runs"] == [{"stance": "eager_on_recompile", "count": 1, "cells": [17]}]
    assert h["status_text"].startswith("ran eagerly once: eager_on_recompile stance")
    assert k["eager_runs"] == [{"stance": "fail_on_recompile", "count": 1, "cells": [19]}]
    assert k["status_text"].startswith("refused (it would compile) once")
    assert not g["compiles"] and not h["compiles"] and not k["compiles"]
    # f's refused call is counted too, and %nbcompile stance default put it back
    assert records["f"]["eager_runs"] == [
        {"stance": "fail_on_recompile", "count": 1, "cells": [13]}]
    assert records["lim"]["stance"] == "default"


def test_recompile_limit_names_the_guard_and_its_cells(records):
    lim = records["lim"]
    limit = [a for a in lim["advice"] if a["kind"] == "recompile-limit"]
    assert limit, lim["advice"]
    message, fix = limit[0]["message"], limit[0]["fix"]
    assert "The guard that kept failing: " in message, message
    assert "changed by cells [23], [25]" in message, message
    assert "%suggest lim(x)" in fix, fix


def test_counts_agree_with_torchs_counters(records):
    """torch's own count of frames it compiled, and its own text of the failed guard."""
    ours = sum(len(records[n]["compiles"])
               for n in ("f", "model", "g", "h", "k", "lim", "s1", "s2"))
    assert ours == records["torch_frames"].get("ok"), (ours, records["torch_frames"])
    assert records["f"]["recompiles"][0]["guard"] == "G['MODE'] == 'relu'"


def test_calls_under_torchs_own_set_stance_are_counted(records):
    s1 = records["s1"]
    assert not s1["compiles"]  # torch ran both calls eagerly
    assert s1["eager_runs"] == [{"stance": "force_eager", "count": 2, "cells": [30]}]
    assert s1["status_text"] == "ran eagerly 2 times: force_eager stance, cell [30]"


def test_a_rank_refusal_names_the_guard_and_the_cells(executed, records):
    errors = [o for o in outputs_of(executed.cells[32]) if o.get("output_type") == "error"]
    assert errors, outputs_of(executed.cells[32])
    text = "\n".join(errors[0]["traceback"])
    assert "the call in cell [33] would recompile `s2`" in text, text
    if not refusal_names_guards():
        assert all(line in text for line in no_guard_words()), text
        return
    assert ("Guard that failed: argument x has 2 dimensions now; the compiled code expects "
            "1 (torch: tensor 'x' rank mismatch. expected 1, actual 2)") in text, text
    assert "Changed by: cell [32] defined X2 (a Tensor)" in text, text
    assert len(records["s2"]["compiles"]) == 1  # nothing compiled for the refused call


def test_a_stance_cell_with_a_syntax_error_leaves_torchs_stance(executed):
    errors = [o for o in outputs_of(executed.cells[34]) if o.get("output_type") == "error"]
    assert errors and errors[0]["ename"] == "SyntaxError", outputs_of(executed.cells[34])
    text = "".join(o.get("text", "") for o in outputs_of(executed.cells[35])
                   if o.get("output_type") == "stream")
    assert json.loads(text.strip().splitlines()[-1]) == {
        "stance": "default", "skip_guard_eval_unsafe": False, "backend": "eager"}
