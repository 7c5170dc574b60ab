"""Cache layers in torch's words: outcomes, bypass reasons, and the key components that
differ between two compiles of one frame."""

from __future__ import annotations

import json
import logging

import pytest

from nbcompile.core.compiletime.cache_keys import cache_note, key_changes, read_lookup
from nbcompile.core.compiletime.history import CacheHistory, kernel_frames


def _miss(option: str) -> str:
    return json.dumps({
        "cache_state": "miss", "cache_status_detailed": "full_miss", "key": "fabc",
        "components": ["[aaaaaaaaaa] gm: <lambda>()\n\ndef forward(self, x):\n    return x",
                       "[bbbbbbbbbb] example_inputs[0]: TensorMetadata(dtype=torch.float32)",
                       f"[{option}] inductor_config[epilogue_fusion]: "
                       f"{option == 'cccccccccc'}"]})


def test_a_miss_names_the_option_that_changed():
    before = read_lookup("fx_graph_cache_miss", _miss("cccccccccc"))
    after = read_lookup("fx_graph_cache_miss", _miss("dddddddddd"))
    assert before is not None and after is not None
    assert after.outcome.layer == "fx_graph" and after.outcome.detail == "full_miss"
    changes = key_changes("fx_graph", before.components, after.components)
    assert [c.component for c in changes] == ["inductor_config[epilogue_fusion]"]
    assert changes[0].kind == "inductor_option"
    assert changes[0].words == "Inductor option epilogue_fusion: True -> False"
    assert "epilogue_fusion" in cache_note([after.outcome], changes, compiled_before=True)


def test_a_bypass_keeps_torchs_reason_and_a_silent_miss_says_so():
    bypass = read_lookup("aotautograd_cache_bypass", json.dumps(
        {"cache_state": "bypass", "cache_bypass_reason": "Unsupported call_function"}))
    assert bypass is not None and bypass.outcome.reason == "Unsupported call_function"
    assert "bypassed: Unsupported call_function" in cache_note([bypass.outcome], [], False)
    silent = read_lookup("fx_graph_cache_miss", "{}")
    assert silent is not None
    assert "torch gave no" in cache_note([silent.outcome], [], compiled_before=True)
    assert read_lookup("dynamo_graph_break_reason", "{}") is None


@pytest.mark.slow
def test_an_inductor_option_changed_between_compiles_is_the_miss_cause(tmp_path, monkeypatch):
    import torch

    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))

    def scale(x):
        return torch.relu(x) * 2 + 1

    history = CacheHistory()  # what %load_ext installs: this kernel's compiles
    logger = logging.getLogger("torch.__trace")
    logger.addHandler(history)
    try:
        x = torch.randn(4)
        torch.compile(scale)(x)
        torch._dynamo.reset()
        torch.compile(scale, options={"epilogue_fusion": False})(x)
    finally:
        logger.removeHandler(history)
        torch._dynamo.reset()
    frames = kernel_frames(scale, history)
    assert len(frames) == 2
    first, second = frames
    assert not first.key_changes
    # torch's own record: the second compile missed the FX graph cache
    assert any(c.layer == "fx_graph" and c.outcome == "miss" for c in second.caches)
    options = [c for c in second.key_changes if c.kind == "inductor_option"]
    assert [c.component for c in options] == ["inductor_config[epilogue_fusion]"]
    assert (options[0].before, options[0].after) == ("True", "False")
    assert "Inductor option epilogue_fusion: True -> False" in second.cache_note
    # phases from torch's compilation_metrics
    assert first.seconds > 0 and first.phases


GRAPH = '''class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4][1]cpu"):
        l_x_ = L_x_
         # File: <ipython-input-3-abc>:3 in scale, code: y = torch.relu(x) * 2
        relu: "f32[4][1]cpu" = torch.relu(l_x_);  l_x_ = None
        mul: "f32[4][1]cpu" = relu * 2;  relu = None
         # File: <ipython-input-3-abc>:4 in scale, code: return y + 1
        add: "f32[4][1]cpu" = mul + 1;  mul = None
        return (add,)
'''


def test_a_changed_graph_names_the_cell_line_whose_constant_changed():
    from nbcompile.core.compiletime.where import changed_lines

    edited = GRAPH.replace("relu * 2", "relu * 3").replace("x) * 2", "x) * 3")
    assert changed_lines([GRAPH], [edited]) == ["<ipython-input-3-abc>:3 `y = torch.relu(x) * 3`"]
    assert changed_lines([GRAPH], [GRAPH]) == []
    assert changed_lines([], [GRAPH]) == []
