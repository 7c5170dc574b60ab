"""Where the memory goes, measured for real (real torch, real compiles, CPU).

Known cases, with bytes that follow from the shapes: a pointwise chain (eager allocates one
full-size tensor per op, Inductor fuses it into one kernel that writes only the output),
a function with one large temporary (its bytes on its line, eager and compiled), a
training step (what the forward saves for backward, eager vs AOTAutograd's compiled
forward), and an in-place change of an input (eager allocates nothing, compiled code
rewrites it out of place). Plus the definitions on synthetic timelines, the renderers and
the schema.
"""

from __future__ import annotations

import torch

torch.manual_seed(0)


def test_no_memory_flag_before_or_after_the_call(ip):
    from nbcompile.magics.call_magic import split_line

    assert split_line("--no-memory f(x) --budget 2", frozenset({"--no-memory"})) == (
        "f(x)", ["--no-memory", "--budget", "2"])
    ip.run_cell("import torch\ndef mem_flag(x):\n    return torch.sin(x) * 2\n"
                "mem_x = torch.randn(16)")
    for line in ("mem_flag(mem_x) --modes default --budget 0.2 --no-memory",
                 "--no-memory mem_flag(mem_x) --modes default --budget 0.2"):
        result = ip.run_cell(f"mem_c = %compare {line}")
        result.raise_error()
        assert ip.user_ns["mem_c"].memory_measured is False
        assert all(r.peak_memory_bytes is None for r in ip.user_ns["mem_c"].rows)
    assert not ip.run_cell("%compare mem_flag(mem_x) --no-memory --no-memory").success
