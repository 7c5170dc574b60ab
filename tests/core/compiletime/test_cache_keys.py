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
    # Per cache layer that missed and lists the option in its key: the FX graph cache on
    # every torch, the AOTAutograd cache too on 2.9 (its key holds Inductor's config).
    assert [c.component for c in options if c.layer == "fx_graph"] == \
        ["inductor_config[epilogue_fusion]"]
    assert {(c.component, c.before, c.after) for c in options} == \
        {("inductor_config[epilogue_fusion]", "True", "False")}
    assert len({c.layer for c in options}) == len(options)  # once per layer
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


def test_a_line_added_above_names_that_line_only():
    from nbcompile.core.compiletime.where import changed_lines

    # the cell run again with a line added: later lines moved down, Dynamo's node names
    # shifted (mul -> mul_1), yet only the new line changed what was traced
    grown = '''class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4][1]cpu"):
        l_x_ = L_x_
         # File: <ipython-input-9-def>:3 in scale, code: x = x * 5
        mul: "f32[4][1]cpu" = l_x_ * 5;  l_x_ = None
         # File: <ipython-input-9-def>:4 in scale, code: y = torch.relu(x) * 2
        relu: "f32[4][1]cpu" = torch.relu(mul);  mul = None
        mul_1: "f32[4][1]cpu" = relu * 2;  relu = None
         # File: <ipython-input-9-def>:5 in scale, code: return y + 1
        add: "f32[4][1]cpu" = mul_1 + 1;  mul_1 = None
        return (add,)
'''
    assert changed_lines([GRAPH], [grown]) == ["<ipython-input-9-def>:3 `x = x * 5`"]
    # an op whose name has an underscore is an op, not a node name
    layer = GRAPH.replace("torch.relu(l_x_)", "torch.nn.functional.layer_norm(l_x_, [4])")
    group = layer.replace("layer_norm", "group_norm")
    assert changed_lines([layer], [group]) == ["<ipython-input-3-abc>:3 `y = torch.relu(x) * 2`"]
    assert changed_lines([layer], [layer]) == []


CELLS = {
    "<ipython-input-7-aaaa>": "class Net:\n    def forward(self, x):\n        return x\n"
                              "def outer():\n    @staticmethod\n    def inner(x):\n"
                              "        return x\n    return inner\n",
    "<ipython-input-8-bbbb>": "class Other:\n    def forward(self, x):\n        return x\n",
    "<ipython-input-9-cccc>": "class Net:\n    def forward(self, x):\n        return x + 1\n",
}


@pytest.fixture
def cells():
    import linecache

    for name, source in CELLS.items():  # what IPython puts there for each cell it runs
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    yield
    for name in CELLS:
        linecache.cache.pop(name, None)


def test_a_cell_run_again_pairs_the_same_function_by_its_qualified_name(cells):
    from nbcompile.core.compiletime.cache_keys import Lookup
    from nbcompile.core.compiletime.record import CacheOutcome
    from nbcompile.core.compiletime.where import qualname, rerun_of
    from nbcompile.core.records import CompileRecord

    assert qualname("<ipython-input-7-aaaa>", 2, "forward") == "Net.forward"
    # a decorated function's code starts at its first decorator
    assert qualname("<ipython-input-7-aaaa>", 5, "inner") == "outer.<locals>.inner"
    assert qualname("<ipython-input-7-aaaa>", 3, "forward") is None
    assert qualname("<no source>", 1, "f") is None

    def compiled(file: str, line: int = 2) -> tuple[CompileRecord, list[Lookup]]:
        return (CompileRecord(compile_id="0/0", frame="forward", filename=file,
                              firstlineno=line), [Lookup(CacheOutcome("fx_graph", "miss"))])

    net, other, net_again = (compiled(f) for f in CELLS)
    assert rerun_of([net, other], net_again[0]) is net  # Other.forward is not Net.forward
    assert rerun_of([other], net_again[0]) is None
    assert rerun_of([net], net[0]) is None  # the same file: not a re-run
    assert rerun_of([net], compiled("/home/me/model.py")[0]) is None  # not a cell
