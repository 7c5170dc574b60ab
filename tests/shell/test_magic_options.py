"""Bad %%compile input: a specific UsageError, and the cell does not run."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

BAD = [
    ("--bogus", "unrecognized arguments: --bogus"),
    ("--mode fast", "invalid choice: 'fast'"),
    ("--backend inductr", "--backend 'inductr' is not a registered torch.compile backend"),
    ("--options nonsense_key=1", "--options nonsense_key: not an Inductor option"),
    ("--options max_autotun=True", "Did you mean max_autotune"),
    ("--options max_autotune", "expected key=value"),
    ("--options max_autotune=[1,", "not a Python literal"),
    ("--options max_autotune=True --mode default", "--mode and --options cannot be used together"),
    ("--only nothere", "--only nothere: the cell does not define nothere"),
    ("--dynamic --no-dynamic --mode nope", "invalid choice: 'nope'"),
]


@pytest.mark.parametrize(("line", "message"), BAD)
def test_bad_option_is_a_specific_usage_error_and_runs_nothing(ip, line, message):
    ip.user_ns.pop("ran_marker", None)
    with pytest.raises(UsageError) as err:
        ip.run_cell_magic("compile", line, "ran_marker = 1\ndef f(x):\n    return x\n")
    assert message in str(err.value)
    assert "ran_marker" not in ip.user_ns


def test_mode_choices_are_listed(ip):
    with pytest.raises(UsageError) as err:
        ip.run_cell_magic("compile", "--mode turbo", "pass")
    for mode in ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"):
        assert mode in str(err.value)


def test_only_name_that_is_not_a_target_runs_cell_but_compiles_nothing(ip):
    with pytest.raises(UsageError, match="--only answer: not a function or nn.Module"):
        ip.run_cell_magic("compile", "--only answer", "answer = 42\n")
    assert ip.user_ns["answer"] == 42  # the cell ran, as a plain run would


def test_help_is_generated_from_magic_arguments(ip):
    doc = ip.find_cell_magic("compile").__doc__
    for flag in ("--mode", "--fullgraph", "--dynamic", "--no-dynamic", "--backend", "--options",
                 "--disable", "--only"):
        assert flag in doc


def test_options_reach_torch_compile(ip):
    ip.run_cell_magic("compile", "--options max_autotune=False -o epilogue_fusion=True "
                      "--dynamic --fullgraph --backend eager", "def opt_target(x):\n    return x\n")
    import nbcompile

    opts = nbcompile.report(ip.user_ns["opt_target"]).options
    assert opts["options"] == {"max_autotune": False, "epilogue_fusion": True}
    assert opts["dynamic"] is True and opts["fullgraph"] is True and opts["backend"] == "eager"
