"""%compare and %nbcompile cache in the real in-process IPython shell."""

from __future__ import annotations

import pytest
import torch
from IPython.core.error import UsageError

import nbcompile
from nbcompile.core.perf.comparison import Comparison
from tests.support.shell import run_cell

CELL = """
import torch
def cmp_chain(x):
    for _ in range(4):
        x = torch.sin(x) * 1.1 + torch.cos(x)
    return x
"""


def _usage_error(ip, line: str) -> str:
    result = ip.run_cell(line)
    assert isinstance(result.error_in_exec, UsageError), result.error_in_exec
    return str(result.error_in_exec)


@pytest.fixture(scope="module")
def compiled_chain(ip):
    ip.run_cell_magic("compile", "", CELL)
    run_cell(ip, "x_cmp = torch.randn(128, 512)\n_ = cmp_chain(x_cmp)")
    return ip.user_ns["cmp_chain"]


def _cache_entries(fn) -> int:
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    return len(_debug_get_cache_entry_list(fn._torchdynamo_orig_callable.__code__))


def test_compare_magic_leaves_the_users_target_untouched(ip, compiled_chain):
    before = nbcompile.report(compiled_chain)
    entries = _cache_entries(compiled_chain)
    assert before.status == "compiled" and len(before.compiles) == 1
    run_cell(ip, "res_cmp = %compare cmp_chain(x_cmp) --modes eager,default --budget 1")
    res = ip.user_ns["res_cmp"]
    assert isinstance(res, Comparison)
    assert res.name == "cmp_chain" and [r.mode for r in res.rows] == ["eager", "default"]
    assert res.row("default").status == "ok" and res.row("default").numerics_ok
    after = nbcompile.report(compiled_chain)
    assert len(after.compiles) == len(before.compiles)  # no extra compile attributed
    assert after.recompiles == before.recompiles
    assert _cache_entries(compiled_chain) == entries  # its Dynamo cache is as it was
    assert ip.user_ns["cmp_chain"] is compiled_chain
    torch.testing.assert_close(compiled_chain(ip.user_ns["x_cmp"]),
                               compiled_chain._torchdynamo_orig_callable(ip.user_ns["x_cmp"]))


def test_compare_magic_options_anywhere_and_kwargs(ip, compiled_chain):
    run_cell(ip, "def scaled(x, *, k=2.0):\n    return torch.tanh(x) * k")
    run_cell(ip, "res2 = %compare --budget 0.3 scaled(x_cmp, k=3.0) --modes default")
    res = ip.user_ns["res2"]
    assert res.inputs == ["Tensor[128, 512] float32 cpu", "k=3.0"]
    assert res.row("default").numerics_ok


@pytest.mark.parametrize("line, message", [
    ("%compare cmp_chain", "needs a call such as f(x)"),
    ("%compare", "needs a call expression"),
    ("%compare cmp_chain(x_cmp) --modes eager,fast", "unknown mode 'fast'; allowed: eager, "
                                                     "default, reduce-overhead"),
    ("%compare cmp_chain(x_cmp) --budget 0", "--budget must be a positive"),
    ("%compare cmp_chain(x_cmp) --budget soon", "invalid float value"),
    ("%compare cmp_chain(x_cmp) --bogus 1", "unrecognized arguments: --bogus"),
    ("%compare no_such_fn(x_cmp)", "NameError: name 'no_such_fn' is not defined"),
    ("%compare x_cmp.shape[0](1)", "is a int, not a function"),
    ("%compare cmp_chain(x_cmp", "not a Python expression"),
])
def test_compare_magic_usage_errors(ip, compiled_chain, line, message):
    assert message in _usage_error(ip, line)


def test_nbcompile_cache_magic(ip, capsys, tmp_path):
    import os

    from nbcompile.core.notebook import cache

    run_cell(ip, "%nbcompile cache --info")
    assert "compile cache:" in capsys.readouterr().out
    assert "use one of" in _usage_error(ip, "%nbcompile cache --clear --info")
    assert "invalid choice" in _usage_error(ip, "%nbcompile cachee")
    unsafe = tmp_path / "unsafe"
    unsafe.mkdir()
    os.chmod(unsafe, 0o777)
    before = os.environ.get(cache.ENV)
    assert "writable by group or others" in _usage_error(ip, f"%nbcompile cache --dir {unsafe}")
    assert os.environ.get(cache.ENV) == before
    saved_state = cache._state
    try:
        cache._state = cache.CacheState()
        run_cell(ip, f"%nbcompile cache --dir {tmp_path / 'mine'}")
        assert os.environ[cache.ENV] == str(tmp_path / "mine")
        run_cell(ip, "%nbcompile cache --clear")
        assert "cleared" in capsys.readouterr().out
    finally:
        cache.restore()
        cache._state = saved_state
        if before is not None:
            os.environ[cache.ENV] = before
    assert os.environ.get(cache.ENV) == before
