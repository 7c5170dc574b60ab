"""Stances in a real IPython shell, checked against torch's own stance and cache: a
``%%stance`` cell puts back torch's whole stance whatever the cell did; names are checked
with torch; calls are counted under torch's live stance whoever set it; a
``fail_on_recompile`` refusal is worded for every guard kind."""

from __future__ import annotations

import dataclasses
import inspect
import re

import pytest
import torch
import torch._dynamo.eval_frame as torch_eval_frame
from IPython.core.error import UsageError

import nbcompile
from nbcompile.display.bundle import published_record
from tests.support.shell import run_cell
from tests.support.torch_source import no_guard_words, refusal_names_guards


def _stance() -> dict:
    """torch's stance in force, field by field."""
    return dataclasses.asdict(torch_eval_frame._stance)


def _entries(fn) -> list:
    """torch's compiled entries for a function's code (its own record of what ran)."""
    entries = torch._C._dynamo.eval_frame._debug_get_cache_entry_list  # pyright: ignore
    return entries(inspect.unwrap(fn).__code__)


@pytest.fixture
def stance_reset():
    yield
    torch.compiler.set_stance("default")


@pytest.fixture(scope="module")
def rx(ip):
    """``st_r``: compiled (eager backend) on a 1-D float tensor, reading a global and an
    argument's attribute."""
    run_cell(ip, "import torch, types\nST_SCALE = 2\nst_cfg = types.SimpleNamespace(k=2)\n"
                 "st_x = torch.ones(3)")
    ip.run_cell_magic("compile", "--backend eager",
                      "def st_r(x, cfg):\n    return x * ST_SCALE * cfg.k")
    run_cell(ip, "_ = st_r(st_x, st_cfg)")
    assert len(_entries(ip.user_ns["st_r"])) == 1
    return ip


PRIOR = {
    "force_backend": dict(stance="default", force_backend="eager"),
    "skip_guard_eval_unsafe": dict(stance="default", skip_guard_eval_unsafe=True),
    "eager_then_compile": dict(stance="eager_then_compile"),  # a stance nbcompile lists not
}
BODIES = {
    "syntax error": "st_r(st_x, st_cfg) +",
    "exception": "raise ValueError('boom')",
    "KeyboardInterrupt": "raise KeyboardInterrupt",
    "the cell sets a stance": "torch.compiler.set_stance('eager_on_recompile')",
    "runs": "_ = 1",
}


@pytest.mark.parametrize("prior", sorted(PRIOR))
@pytest.mark.parametrize("body", sorted(BODIES))
def test_a_stance_cell_puts_back_torchs_whole_stance(rx, stance_reset, prior, body):
    torch.compiler.set_stance(**PRIOR[prior])
    before, obj = _stance(), torch_eval_frame._stance
    rx.run_cell(f"%%stance force_eager\n{BODIES[body]}")
    assert _stance() == before, (prior, body)
    assert torch_eval_frame._stance is obj  # torch's own object, put back as it was


def test_default_cell_under_a_stance_nbcompile_does_not_list(rx, stance_reset):
    torch.compiler.set_stance("eager_then_compile")
    result = rx.run_cell("%%stance default\n_st_out = 41 + 1")
    assert result.error_in_exec is None and result.error_before_exec is None
    assert rx.user_ns["_st_out"] == 42
    assert _stance()["stance"] == "eager_then_compile"


@pytest.mark.parametrize("line", ["%%stance bogus\n_ = 1", "%nbcompile stance bogus",
                                  "%%stance\n_ = 1", "%%stance force_eager default\n_ = 1"])
def test_a_name_torch_refuses_is_a_usage_error(rx, stance_reset, line, capsys):
    torch.compiler.set_stance("default", force_backend="eager")
    before = _stance()
    capsys.readouterr()
    result = rx.run_cell(line)
    error = result.error_in_exec or result.error_before_exec
    assert isinstance(error, UsageError), error
    assert "eager_on_recompile" in str(error)  # torch's stances are listed
    assert _stance() == before


def test_any_stance_torch_accepts_is_accepted(rx, stance_reset):
    run_cell(rx, "%%stance eager_then_compile\n_st_seen = torch._dynamo.eval_frame._stance.stance")
    assert rx.user_ns["_st_seen"] == "eager_then_compile"
    assert _stance()["stance"] == "default"


def test_calls_under_torchs_own_set_stance_are_counted(rx, stance_reset):
    rx.run_cell_magic("compile", "--backend eager", "def st_g(x):\n    return x.sin()")
    g = rx.user_ns["st_g"]
    run_cell(rx, "torch.compiler.set_stance('force_eager')\n_ = st_g(st_x)\n_ = st_g(st_x)\n"
                 "torch.compiler.set_stance('default')")
    record = published_record(nbcompile.report(g))
    assert _entries(g) == [] and record["compiles"] == []  # torch ran both eagerly
    assert [(r["stance"], r["count"]) for r in record["eager_runs"]] == [("force_eager", 2)]
    assert record["status_text"].startswith("ran eagerly 2 times: force_eager stance")
    assert "waiting for first call" not in record["status_text"]


def test_eager_then_compile_first_call_counted_then_compiles(rx, stance_reset):
    rx.run_cell_magic("compile", "--backend eager", "def st_h(x):\n    return x.cos()")
    h = rx.user_ns["st_h"]
    with torch.compiler.set_stance("eager_then_compile"):
        run_cell(rx, "_ = st_h(st_x)")
        assert _entries(h) == []  # torch ran the first call eagerly
        record = published_record(nbcompile.report(h))
        assert record["status_text"].startswith("ran eagerly once: eager_then_compile stance")
        run_cell(rx, "_ = st_h(st_x)")
    record = nbcompile.report(h).to_dict()
    assert len(_entries(h)) == len(record["compiles"]) == 1  # the second call compiled
    assert [(r["stance"], r["count"]) for r in record["eager_runs"]] == [
        ("eager_then_compile", 1)]


def _refusal(ip, capsys, source: str) -> tuple[str, str]:
    """The refusal shown for a ``%%stance fail_on_recompile`` cell, and torch's error."""
    capsys.readouterr()
    result = ip.run_cell(f"%%stance fail_on_recompile\n{source}", store_history=True)
    error = result.error_in_exec
    assert type(error) is RuntimeError and "fail_on_recompile" in str(error), error
    return "".join(capsys.readouterr()), str(error)


GUARDS = {  # setup cell, refused call, the guard in words
    "rank": ("ST_X2 = torch.ones(3, 4)", "st_r(ST_X2, st_cfg)",
             "argument x has 2 dimensions now; the compiled code expects 1"),
    "size": ("ST_X5 = torch.ones(5)", "st_r(ST_X5, st_cfg)",
             "argument x's size at dim 0 is 5 now; the compiled code expects 3"),
    "dtype": ("ST_XD = torch.ones(3, dtype=torch.float64)", "st_r(ST_XD, st_cfg)",
              "argument x's dtype is Double now; the compiled code expects Float"),
    "global": ("ST_SCALE = 3", "st_r(st_x, st_cfg)", "global ST_SCALE changed"),
}


@pytest.mark.parametrize("kind", sorted(GUARDS))
def test_every_refusal_names_the_guard_and_the_cells(rx, stance_reset, capsys, kind):
    setup, call, words = GUARDS[kind]
    r = rx.user_ns["st_r"]
    entries = len(_entries(r))
    rx.run_cell(setup, store_history=True)
    changing = rx.execution_count - 1
    try:
        shown, error = _refusal(rx, capsys, call)
    finally:
        rx.run_cell("ST_SCALE = 2", store_history=True)
    calling = rx.execution_count - 2
    assert f"nbcompile: the call in cell [{calling}] would recompile `st_r`" in shown, shown
    if not refusal_names_guards():  # torch 2.9: its refusal names no guard; said so
        assert all(line in shown for line in no_guard_words()), shown
        assert len(_entries(r)) == entries
        return
    assert f"Guard that failed: {words}" in shown, shown
    # torch's own guard text is what was worded
    failure = re.split(r"- \d+/\d+: ", error.split("guard failure(s):")[1])[1].splitlines()[0]
    assert failure.split("  ")[0].strip() in shown
    assert f"Changed by: cell [{changing}]" in shown, shown
    assert len(_entries(r)) == entries  # torch compiled nothing for the refused call


def test_an_attribute_refusal_is_worded(rx, stance_reset, capsys):
    try:
        shown, error = _refusal(rx, capsys, "st_cfg.k = 3\nst_r(st_x, st_cfg)")
    finally:
        rx.user_ns["st_cfg"].k = 2
    if not refusal_names_guards():
        assert all(line in shown for line in no_guard_words()), shown
        return
    assert "Guard that failed: cfg.k changed (the compiled code assumed cfg.k == 2" in shown
    assert "cfg.k == 2" in error  # torch's guard


def test_the_stance_accessors_answer_as_torch_does(stance_reset):
    from nbcompile.core import torch_compat as tc

    torch.compiler.set_stance("default", skip_guard_eval_unsafe=True)
    saved = tc.stance_state()
    assert saved is torch_eval_frame._stance and tc.current_stance() == "default"
    torch.compiler.set_stance("force_eager")
    assert tc.current_stance() == "force_eager"
    tc.put_stance(saved)
    assert torch_eval_frame._stance is saved
    assert tc.stance_refusal("bogus") and tc.stance_refusal("eager_then_compile") is None
    assert torch_eval_frame._stance is saved  # the check left torch's stance as it was
    with pytest.raises(RuntimeError, match="invalid torch.compile stance"):  # torch agrees
        with torch.compiler.set_stance("bogus"):
            torch.compile(lambda t: t + 1, backend="eager")(torch.ones(1))


def test_a_module_refusal_and_its_eager_calls(rx, stance_reset, capsys):
    """A module's compiled frame is torch's wrapper (``args[1]``): the refusal names
    ``forward``'s argument and the global passed as it; under ``eager_on_recompile`` only
    the call no compiled version accepts is counted (the others run torch's entry)."""
    rx.run_cell_magic("compile", "--backend eager", "st_lin = torch.nn.Linear(3, 3)")
    run_cell(rx, "_ = st_lin(st_x)")
    rx.run_cell("ST_XM = torch.ones(2, 3)", store_history=True)
    changing = rx.execution_count - 1
    shown, error = _refusal(rx, capsys, "st_lin(ST_XM)")
    if refusal_names_guards():
        assert "tensor 'args[1]' rank mismatch" in error  # torch's text, its wrapper's words
        assert "Guard that failed: argument input has 2 dimensions now" in shown, shown
        assert f"Changed by: cell [{changing}] defined ST_XM (a Tensor)" in shown, shown
    else:  # torch 2.9: its refusal names no guard; said so
        assert all(line in shown for line in no_guard_words()), shown
    run_cell(rx, "%%stance eager_on_recompile\n_ = st_lin(st_x)\n_ = st_lin(ST_XM)\n"
                 "_ = st_lin(st_x)")
    runs = {r["stance"]: r["count"]
            for r in nbcompile.report(rx.user_ns["st_lin"]).to_dict()["eager_runs"]}
    assert runs == {"fail_on_recompile": 1, "eager_on_recompile": 1}, runs
    assert len(nbcompile.report(rx.user_ns["st_lin"]).to_dict()["compiles"]) == 1
