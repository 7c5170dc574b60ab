"""Bad %%compile / %compare input is caught before the cell runs, and no part of the
input is dropped silently, in the real in-process IPython shell."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

import nbcompile

CELL = "input_marker = 1\ndef input_fn(x):\n    return x + 1\n"


def _compile_error(ip, line: str) -> str:
    ip.user_ns.pop("input_marker", None)
    with pytest.raises(UsageError) as err:
        ip.run_cell_magic("compile", line, CELL)
    assert "input_marker" not in ip.user_ns, "the cell body ran"
    return str(err.value)


@pytest.mark.parametrize(("line", "message"), [
    ("--options max_autotune=1", "--options max_autotune=1: Inductor's max_autotune takes a bool"),
    ("-o max_autotune=True -o max_autotune=False",
     "--options max_autotune is given twice (True, then False)"),
    ("--mode default --mode max-autotune",
     "--mode is given twice ('default', then 'max-autotune')"),
    ("--dynamic --no-dynamic", "--dynamic and --no-dynamic"),
    ("--backend inductor --backend eager", "--backend is given twice"),
    ("--only 'input_fn x'", "'input_fn x' is not a Python name"),
    # an on/off flag given twice is refused like a valued one
    ("--fullgraph --fullgraph", "--fullgraph is given twice; give it once"),
    ("--disable --disable", "--disable is given twice; give it once"),
    ("--annotate --annotate", "--annotate is given twice; give it once"),
    ("--torch-logs --torch-logs", "--torch-logs is given twice; give it once"),
    ("--dynamic --dynamic", "--dynamic is given twice; give it once"),
    ("--mode default --mode default", "--mode is given twice; give it once"),
])
def test_bad_compile_input_is_a_usage_error_before_the_cell_runs(ip, line, message):
    assert message in _compile_error(ip, line)


def test_each_flag_once_is_accepted(ip):
    ip.run_cell_magic("compile", "--dynamic --fullgraph --annotate --backend eager", CELL)
    options = nbcompile.report(ip.user_ns["input_fn"]).options
    assert options["dynamic"] is True and options["fullgraph"] is True


@pytest.mark.parametrize("only", ['"input_a3"', "'input_a3'", "input_a3, input_c3"])
def test_only_strips_quotes_and_keeps_comma_lists(ip, only):
    ip.run_cell_magic("compile", f"--only {only} --backend eager",
                      "def input_a3(x):\n    return x * 3\ndef input_b3(x):\n    return x\n"
                      "def input_c3(x):\n    return x\n")
    assert nbcompile.report(ip.user_ns["input_a3"]).name == "input_a3"
    if "input_c3" in only:
        assert nbcompile.report(ip.user_ns["input_c3"]).name == "input_c3"
    with pytest.raises(LookupError):
        nbcompile.report(ip.user_ns["input_b3"])


def _compare_error(ip, line: str) -> str:
    result = ip.run_cell(line)
    assert isinstance(result.error_in_exec, UsageError), result.error_in_exec
    return str(result.error_in_exec)


@pytest.fixture(scope="module")
def cmp_input(ip):
    ip.run_cell("import torch\ndef input_g(x):\n    return torch.sin(x) + 1\n"
                "input_x = torch.randn(64, 64)").raise_error()


@pytest.mark.parametrize("modes", ["eager, aot_eager", "eager ,aot_eager", "eager , aot_eager"])
def test_compare_modes_with_spaces_keep_every_mode(ip, cmp_input, modes):
    ip.run_cell(f"input_r = %compare input_g(input_x) --modes {modes} --budget 0.1").raise_error()
    assert [r.mode for r in ip.user_ns["input_r"].rows] == ["eager", "aot_eager"]


@pytest.mark.parametrize(("line", "message"), [
    ("%compare input_g(input_x) --budget 1 --budget 2", "--budget is given twice"),
    ("%compare input_g(input_x) --modes eager --modes default", "--modes is given twice"),
    ("%compare input_g(input_x) --modes eager aot_eager",
     "unexpected 'aot_eager' after the options"),
])
def test_compare_input_is_never_dropped_silently(ip, cmp_input, line, message):
    assert message in _compare_error(ip, line)
