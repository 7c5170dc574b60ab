"""The call commands' options are checked once, in core: the Python API (``compare``,
``profile``, ``suggest``, ``diagnose``) and the magics refuse the same values, with an
error that names the option and what it allows, before anything runs."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from IPython.core.error import UsageError

import nbcompile
from nbcompile.core.perf.call_options import CallOptionError, CallOptionTypeError
from tests.support.shell import run_cell

BUDGETED = {"compare": nbcompile.compare, "suggest": nbcompile.suggest,
            "diagnose": nbcompile.diagnose}


def _never(x):
    raise AssertionError("a refused option must stop the command before any call")


@pytest.mark.parametrize("command", sorted(BUDGETED))
@pytest.mark.parametrize("budget, kind", [
    (math.nan, CallOptionError), (math.inf, CallOptionError), (-math.inf, CallOptionError),
    (0, CallOptionError), (-1.5, CallOptionError),
    ("10", CallOptionTypeError), (None, CallOptionTypeError), (True, CallOptionTypeError),
    ([5], CallOptionTypeError)])
def test_a_bad_budget_is_refused_before_anything_runs(command, budget, kind):
    with pytest.raises(kind, match=r"^budget_s must be a positive, finite number of seconds, "
                                   r"not ") as caught:
        BUDGETED[command](_never, torch.ones(2), budget_s=budget)
    assert isinstance(caught.value, ValueError)  # as a bad value always was
    if kind is CallOptionTypeError:
        assert isinstance(caught.value, TypeError)
        assert f"({type(budget).__name__})" in str(caught.value)  # what was given


def test_a_budget_of_any_real_number_type_is_seconds():
    """A NumPy scalar or an int is a number of seconds like a float (no raw TypeError)."""
    from nbcompile.core.perf.call_options import check_budget

    assert check_budget(np.float32(2.5)) == 2.5 and check_budget(3) == 3.0
    assert isinstance(check_budget(np.int64(3)), float)


@pytest.mark.parametrize("repeat, kind", [(0, CallOptionError), (-3, CallOptionError),
                                          (2.0, CallOptionTypeError),
                                          ("5", CallOptionTypeError),
                                          (True, CallOptionTypeError)])
def test_profile_repeat_is_a_whole_number_of_calls(repeat, kind):
    with pytest.raises(kind, match=r"^repeat must be a whole number of calls >= 1, not "):
        nbcompile.profile(_never, torch.ones(2), repeat=repeat)


@pytest.mark.parametrize("modes, words", [
    ([], "modes is empty; give at least one mode"),
    ((), "modes is empty"),
    (["  "], "modes is empty"),
    (["eager", "fast"], "unknown mode 'fast'; allowed: eager, default"),
    ([3], "modes must be names or backend callables, not int"),
    (5, "modes must be mode names or backend callables"),
])
def test_compare_modes_non_empty_and_known(modes, words):
    with pytest.raises(CallOptionError, match=words):
        nbcompile.compare(_never, torch.ones(2), modes=modes)


@pytest.mark.parametrize("options, words", [
    ({"memory": "no"}, r"memory must be True or False, not 'no' \(str\)"),
    ({"explain": 1}, r"explain must be True or False, not 1 \(int\)"),
    ({"min_effect": 3}, r"min_effect must be a number from 0 up to 1"),
    ({"min_effect": "3%"}, r"min_effect must be a number from 0 up to 1"),
])
def test_compare_flags_and_shares(options, words):
    with pytest.raises(CallOptionError, match=words):
        nbcompile.compare(_never, torch.ones(2), **options)


def test_profile_memory_is_a_flag():
    with pytest.raises(CallOptionTypeError, match="memory must be True or False"):
        nbcompile.profile(_never, torch.ones(2), memory=None)


def _usage_error(ip, line: str) -> str:
    result = ip.run_cell(line)
    assert isinstance(result.error_in_exec, UsageError), (line, result.error_in_exec)
    return str(result.error_in_exec)


@pytest.mark.parametrize("magic", ["compare", "suggest", "diagnose"])
@pytest.mark.parametrize("budget", ["nan", "inf", "0", "-2"])
def test_the_magics_refuse_what_the_api_refuses_in_the_same_words(ip, magic, budget):
    run_cell(ip, "import torch\nval_x = torch.ones(2)\n"
                 "def val_never(x):\n    raise AssertionError('ran')")
    text = _usage_error(ip, f"%{magic} val_never(val_x) --budget {budget}")
    with pytest.raises(CallOptionError) as api:
        BUDGETED[magic](_never, torch.ones(2), budget_s=float(budget))
    assert text == f"%{magic}: " + str(api.value).replace("budget_s", "--budget", 1)


def test_the_magics_modes_and_repeat_in_the_apis_words(ip):
    run_cell(ip, "import torch\nval_x = torch.ones(2)\n"
                 "def val_never(x):\n    raise AssertionError('ran')")
    assert _usage_error(ip, "%compare val_never(val_x) --modes ,") == (
        "%compare: --modes is empty; give at least one mode (e.g. --modes eager,default)")
    assert _usage_error(ip, "%kprun val_never(val_x) --repeat 0") == (
        "%kprun: --repeat must be a whole number of calls >= 1, not 0")
    assert "unknown mode 'fast'" in _usage_error(ip, "%compare val_never(val_x) --modes fast")
