"""Advice and user stacks for code in libraries (Hugging Face Transformers, Lightning),
on synthetic records: recompile storms of a growing sequence, a static KV cache, ``.item()``
specialisation and the recompile limit, the user's lines of a break or failed compile."""

from __future__ import annotations

import os
import textwrap

from nbcompile.core.insight.advice import advise
from nbcompile.core.records import CompileRecord
from nbcompile.core.trace.stacks import cell_frame, parse_user_stack

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach a hub: everything is built locally


def _compiles(*reasons: str, frame: str = "fn") -> list[CompileRecord]:
    return [CompileRecord(compile_id=f"0/{i}", frame=frame, recompile_reason=r)
            for i, r in enumerate(("",) + reasons)]


def test_growing_sequence_is_a_recompile_storm():
    reasons = [f"tensor 'x' size mismatch at index 1. expected {n}, actual {n + 1}"
               for n in (8, 9, 10)]
    [advice] = advise("step", _compiles(*reasons), dynamic=False)
    assert advice.kind == "recompile-storm"
    assert "recompiled 3 times" in advice.message and "x at dim 1: 8 -> 9 -> 10 -> 11" in (
        advice.message)
    # compiled with dynamic=False: that is the cause, and the fix says so
    assert "--no-dynamic" in advice.message and "Drop --no-dynamic" in advice.fix
    [advice] = advise("step", _compiles(*reasons))
    assert "--dynamic" in advice.fix and "mark_dynamic" in advice.fix


def test_growing_kv_cache_advises_a_static_cache():
    reason = ("tensor 'kwargs['past_key_values'].layers[0].keys' size mismatch at index 2. "
              "expected 8, actual 9")
    [advice] = advise("lm", _compiles(reason))
    assert advice.kind == "recompile-storm"
    assert "KV cache" in advice.message
    assert 'cache_implementation = "static"' in advice.fix


def test_item_specialisation_and_recompile_limit():
    reasons = ["___stack0 == 834.5", "___stack0 == 12.25", "___stack0 == 3.0"]
    kinds = [a.kind for a in advise("f", _compiles(*reasons), limit=4)]
    assert kinds == ["scalar-specialization", "recompile-limit"]
    assert not advise("f", _compiles("tensor 'x' dtype mismatch. expected Float, actual Double"))
    shrinking = "tensor 'x' size mismatch at index 0. expected 9, actual 8"
    assert not advise("f", _compiles(shrinking, shrinking))


def test_user_stack_of_a_graph_break_and_of_a_failed_compile():
    brk = textwrap.dedent('''\
        Graph break in user code at /lib/helper.py:3
        Graph Break Reason: Call to builtin print
        User code traceback:
          File "<ipython-input-4-0123abcd>", line 2, in wrapper
            return helper(x)
          File "/lib/helper.py", line 3, in helper
            print("x")
        Traceback (most recent call last):
          File "/site-packages/torch/_dynamo/symbolic_convert.py", line 1, in step
        ''')
    stack = parse_user_stack(brk)
    assert [(f.filename, f.lineno) for f in stack] == [
        ("<ipython-input-4-0123abcd>", 2), ("/lib/helper.py", 3)]
    assert cell_frame(stack).filename == "<ipython-input-4-0123abcd>"
    err = 'boom\n\nfrom user code:\n   File "/tmp/ipykernel_7/123.py", line 5, in f\n    g()\n'
    assert cell_frame(parse_user_stack(err)).lineno == 5
    assert parse_user_stack("no stack here") == []
