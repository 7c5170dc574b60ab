"""Advice names the real cause, on evidence only.

Each advice pattern has its evidence (the guard that failed, the tensor it names, the flag
the target was compiled with) and a near miss that must not trigger it (or not its words).
"""

from __future__ import annotations

from nbcompile.core.insight.advice import advise
from nbcompile.core.records import CompileRecord


def _compiles(*reasons: str, frame: str = "fn") -> list[CompileRecord]:
    return [CompileRecord(compile_id=f"0/{i}", frame=frame, recompile_reason=r)
            for i, r in enumerate(("",) + reasons)]


def _grow(src: str, sizes: range, dim: int = 1) -> list[str]:
    return [f"tensor '{src}' size mismatch at index {dim}. expected {n}, actual {n + 1}"
            for n in sizes]


class _HFModel:
    pass


_HFModel.__module__ = "transformers.models.gpt2.modeling_gpt2"


def test_generate_wording_needs_a_growing_kv_cache():
    cache = _grow("kwargs['past_key_values'].layers[0].keys", range(8, 11), dim=2)
    [hit] = advise("lm", _compiles(*cache), module=_HFModel())
    assert "generate()" in hit.message and "cache_implementation" in hit.fix
    # near miss: the same HF model, a growing input (no cache in any guard)
    [miss] = advise("lm", _compiles(*_grow("input_ids", range(4, 7))), module=_HFModel())
    assert "generate()" not in miss.message and "cache_implementation" not in miss.fix
    # near miss: a user's own cache tensor, not Transformers: no generate(), no HF setting
    [own] = advise("step", _compiles(*_grow("L['cache']", range(4, 7), dim=0)))
    assert "generate()" not in own.message and "cache_implementation" not in own.fix
    assert "KV cache" in own.message and "Preallocate" in own.fix


def test_no_dynamic_is_named_only_when_the_target_was_compiled_so():
    growth = _compiles(*_grow("x", range(8, 11)))
    [with_flag] = advise("f", growth, dynamic=False)
    assert "--no-dynamic" in with_flag.message
    for dynamic in (None, True):
        [other] = advise("f", growth, dynamic=dynamic)
        assert "--no-dynamic" not in other.message + other.fix, other


def test_storm_needs_two_growths_or_a_cache():
    assert not advise("f", _compiles(*_grow("x", range(8, 9))))  # one growth: a near miss
    assert not advise("f", _compiles("tensor 'x' size mismatch at index 1. expected 9, "
                                     "actual 8"))  # shrinking


def test_scalar_specialisation_needs_a_value_read_from_a_tensor():
    read = ["___stack0 == 834.5", "___stack0 == 12.25"]
    assert [a.kind for a in advise("f", _compiles(*read))] == ["scalar-specialization"]
    # near miss: a Python int argument that changes is not a value read from a tensor
    assert not advise("f", _compiles("k == 1", "k == 2", "k == 3"))


def test_rank_change_needs_a_rank_mismatch():
    rank = "tensor 'x' rank mismatch. expected 1, actual 2"
    assert [a.kind for a in advise("f", _compiles(rank))] == ["rank-change"]
    # near miss: a size change of the same tensor
    assert not [a for a in advise("f", _compiles(*_grow("x", range(3, 6))))
                if a.kind == "rank-change"]


def test_recompile_limit_needs_the_limit_reached():
    reasons = ["tensor 'x' dtype mismatch. expected Float, actual Double"] * 3
    assert [a.kind for a in advise("f", _compiles(*reasons), limit=4)] == ["recompile-limit"]
    # near miss: one compile short of the limit
    assert not advise("f", _compiles(*reasons[:2]), limit=4)
