"""Recompile reasons match torch's own record of the same calls (real IPython shell, real
compiles): the guard fields hold torch's text, every compiled version torch tried is
counted and named, a global-state guard names the part and the cell that changed it, and
the recompile-limit advice follows the settings in force."""

from __future__ import annotations

import re

import torch
import torch._dynamo
from torch._dynamo.utils import guard_failures

import nbcompile
from nbcompile.core.insight.recompile_words import recompile_text
from nbcompile.display.summary_model import recompile_guard, summarize_target
from nbcompile.display.text import clip


def _cell(ip, source: str) -> int:
    """Run a cell as the notebook does (stored, numbered); its execution count."""
    ip.run_cell(source, store_history=True).raise_error()
    return ip.execution_count - 1


def _torch_failures(code) -> list[tuple[str, str]]:
    """torch's own ``guard_failures`` of ``code``: (compile id, guard), in the order torch
    recorded them (its comment after the guard left out)."""
    out = []
    for failures in [guard_failures.get(code, [])]:
        for failure in failures:
            cid, _, guard = failure.partition(": ")
            out.append((cid, re.split(r"\s+#", guard.splitlines()[0])[0].strip()))
    return out


def _code(ip, name: str):
    """The code object torch compiled for the function ``%%compile`` defined as ``name``."""
    return next(code for code in guard_failures if code.co_name == name
                and code.co_filename.startswith("<ipython-input-"))


def test_module_guard_keeps_torchs_text_and_the_words(ip):
    ip.run_cell_magic("compile", "", (
        "import torch\n"
        "class DropNet(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.lin = torch.nn.Linear(4, 4)\n"
        "        self.dropout = torch.nn.Dropout(0.5)\n"
        "    def forward(self, x):\n"
        "        return self.dropout(self.lin(x))\n"
        "dropnet = DropNet()\n"))
    _cell(ip, "_x = torch.randn(2, 4)\n_ = dropnet(_x)")
    eval_cell = _cell(ip, "dropnet.eval()")
    _cell(ip, "_ = dropnet(_x)")
    torch_says = _torch_failures(type(ip.user_ns["dropnet"]).forward.__code__)
    assert torch_says and "training == True" in torch_says[-1][1], torch_says
    report = nbcompile.report(ip.user_ns["dropnet"])
    rc = report.recompiles[-1]
    assert rc.guard == torch_says[-1][1] == "self._modules['dropout'].training == True"
    assert report.compiles[-1].recompile_guard == rc.guard
    assert "dropnet.dropout.training changed: dropnet.eval() was called" in rc.reason
    assert rc.changed_by == [eval_cell], rc
    assert recompile_guard(rc) == rc.guard  # the summary shows torch's guard beside them


def test_global_state_names_the_part_and_the_cell(ip):
    ip.run_cell_magic("compile", "", "def det_fn(x):\n    return x.sin() + 1\n")
    _cell(ip, "import torch\n_y = torch.randn(4)\n_ = det_fn(_y)")
    switch = _cell(ip, "torch.use_deterministic_algorithms(True)")
    try:
        _cell(ip, "_ = det_fn(_y)")
    finally:
        _cell(ip, "torch.use_deterministic_algorithms(False)")
    torch_says = _torch_failures(_code(ip, "det_fn"))
    assert torch_says[-1][1] == "GLOBAL_STATE changed: deterministic_algorithms", torch_says
    rc = nbcompile.report(ip.user_ns["det_fn"]).recompiles[-1]
    assert rc.guard == torch_says[-1][1]
    assert "deterministic algorithms" in rc.reason and "e.g." not in rc.reason, rc.reason
    assert rc.changed_by == [switch], rc
    assert rc.changes == [f"cell [{switch}] changed deterministic algorithms (now on)"]
    # in the record's words: the cell that changed it, then the call that paid
    assert rc.text.endswith(f" — cell [{switch}] changed deterministic algorithms (now on); "
                            f"the call in cell [{rc.cell}] recompiled"), rc.text


def test_every_version_torch_tried_is_counted_and_named(ip):
    ip.run_cell_magic("compile", "--no-dynamic", "def versions_fn(x):\n    return x * 2\n")
    first = _cell(ip, "import torch\n_a = torch.randn(4, 4)\n_ = versions_fn(_a)")
    cells = [first]
    for call in ("_a.t()", "torch.randn(4, 4, 4)", "_a.double()",
                 "torch.randn(4, 4, requires_grad=True)"):  # stride, rank, dtype, grad
        cells.append(_cell(ip, f"_ = versions_fn({call})"))
    torch_says = _torch_failures(_code(ip, "versions_fn"))[-4:]  # the last call's
    assert [cid.split("/")[1] for cid, _ in torch_says] == ["3", "2", "1", "0"], torch_says
    report = nbcompile.report(ip.user_ns["versions_fn"])
    last = report.recompiles[-1]
    assert len(report.recompiles) == 4
    assert "(and 3 older compiled versions did not match either)" in last.reason, last.reason
    assert [(v.compile_id, v.guard) for v in last.failed_versions] == torch_says
    assert [v.cell for v in last.failed_versions] == cells[3::-1]
    assert "torch tried 4 compiled versions" in recompile_text(last)
    # the record carries the sentence the summary shows (the inspector reads it there)
    assert last.text == recompile_text(last)
    shown = [i.text for i in summarize_target(report, 0.0).items if i.kind == "recompile"]
    assert shown == [clip(rc.text) for rc in report.recompiles]


def test_limit_advice_follows_fail_on_recompile_limit_hit(ip):
    ip.run_cell_magic("compile", "--no-dynamic", "def limit_fn(x):\n    return x * 3\n")
    config = torch._dynamo.config
    saved = config.recompile_limit, config.fail_on_recompile_limit_hit
    config.recompile_limit, config.fail_on_recompile_limit_hit = 1, True
    try:
        _cell(ip, "import torch\n_ = limit_fn(torch.randn(4))")
        result = ip.run_cell("_ = limit_fn(torch.randn(5))", store_history=True)
        raised = result.error_in_exec
        advice = {a.kind: a for a in nbcompile.report(ip.user_ns["limit_fn"]).advice}
    finally:
        config.recompile_limit, config.fail_on_recompile_limit_hit = saved
    assert type(raised).__name__ == "FailOnRecompileLimitHit", raised  # torch's own answer
    message = advice["recompile-limit"].message
    assert "recompile_limit (1)" in message
    assert "raises FailOnRecompileLimitHit" in message and "fullgraph or not" in message
    assert "run eagerly (uncompiled)" not in message, message
