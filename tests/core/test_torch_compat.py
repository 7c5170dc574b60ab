"""Every private torch name nbcompile touches is in ``core/torch_compat.py``,
with a fallback each; the running torch's missing names are printed (none on 2.13).

The fallbacks are tested on fake modules and objects, never by mocking torch itself.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import sys
import types
from collections import namedtuple
from pathlib import Path

import pytest
import torch

from nbcompile.core import torch_compat as tc
from tests.support import ROOT

PACKAGE = ROOT / "nbcompile"


def test_missing_names_of_the_running_torch():
    missing = tc.missing()
    print(f"\ntorch {torch.__version__}: {len(tc.NAMES)} private names, "
          f"{len(missing)} missing")
    for path in missing:
        entry = tc.NAMES[path]
        print(f"  missing {path}: {entry.feature} -> {entry.fallback}")
    if torch.__version__.startswith("2.13."):
        assert missing == []


# --- the lookup helper, on a fake module tree ---------------------------------------------


@pytest.fixture
def fake_torch(monkeypatch):
    """``nbc_fake_torch``: one attribute chain, and a submodule only in ``sys.modules``."""
    root = types.ModuleType("nbc_fake_torch")
    root._dynamo = types.SimpleNamespace(config=types.SimpleNamespace(limit=3))
    sub = types.ModuleType("nbc_fake_torch._logging")
    sub.TABLE = {"a.py": 0}
    monkeypatch.setitem(sys.modules, "nbc_fake_torch", root)
    monkeypatch.setitem(sys.modules, "nbc_fake_torch._logging", sub)
    return root


def test_lookup_follows_attributes_and_submodules(fake_torch):
    assert tc.lookup("nbc_fake_torch._dynamo.config.limit") == 3
    assert tc.lookup("nbc_fake_torch._logging.TABLE") == {"a.py": 0}  # not an attribute
    assert tc.lookup("nbc_fake_torch._logging.TABLE", imports=False) == {"a.py": 0}
    assert tc.lookup("config.limit", root=fake_torch._dynamo) == 3
    assert tc.lookup("nbc_fake_torch._dynamo.config.gone") is tc.MISSING
    assert tc.lookup("nbc_fake_torch._dynamo.gone.deeper", None) is None
    assert tc.lookup("nbc_fake_torch._inductor.config", 0) == 0  # no such submodule
    assert tc.lookup("nbc_no_such_module.x", "d") == "d"
    assert tc.lookup("gone", root=fake_torch) is tc.MISSING


def test_lookup_without_imports_does_not_import():
    name = "json.tool"  # a stdlib submodule this test process has not imported
    if name in sys.modules:
        pytest.skip(f"{name} already imported")
    assert tc.lookup(f"{name}.main", imports=False) is tc.MISSING
    assert name not in sys.modules


def _moved(entry: tc.PrivateName) -> tc.PrivateName:
    """The same name, somewhere no torch has it."""
    return dataclasses.replace(entry, path=f"nbc_fake_torch.gone.{entry.path}",
                               probe=None if entry.probe is None else (lambda: False))


@pytest.mark.parametrize("path", sorted(tc.NAMES))
def test_every_accessor_falls_back_when_the_name_is_absent(path, fake_torch):
    entry = _moved(tc.NAMES[path])
    assert not entry.present()
    for get in (entry.get, lambda: entry.get(root=types.SimpleNamespace())):
        if entry.default is tc.REQUIRED:
            with pytest.raises(RuntimeError) as raised:
                get()
            message = str(raised.value)
            assert message.startswith(f"nbcompile needs {entry.path}, which torch ")
            assert re.search(r"which torch \S+ lacks: .+ is unavailable$", message), message
            assert entry.feature in message
        else:
            value = get()
            expected = entry.default() if callable(entry.default) else entry.default
            assert value == expected


def test_every_name_says_what_needs_it_and_what_happens_without_it():
    for path, entry in tc.NAMES.items():
        assert path.startswith("torch.") and entry.feature and entry.fallback, path


# --- the accessors with a fallback of their own, on fake objects ---------------------------


def test_provenance_tracking_is_a_no_op_without_the_setting():
    absent = types.SimpleNamespace()
    assert tc.provenance_tracking_level(absent) is None
    assert tc.set_provenance_tracking_level(1, absent) is False
    assert vars(absent) == {}
    present = types.SimpleNamespace(provenance_tracking_level=0)
    assert tc.provenance_tracking_level(present) == 0
    assert tc.set_provenance_tracking_level(1, present) is True
    assert present.provenance_tracking_level == 1


def test_dynamo_config_fallbacks():
    older = types.SimpleNamespace(cache_size_limit=5)
    assert tc.recompile_limit(older) == 5
    assert tc.recompile_limit_key(older) == "cache_size_limit"
    assert tc.recompile_limit(types.SimpleNamespace()) == 8
    newer = types.SimpleNamespace(recompile_limit=16, cache_size_limit=5)
    assert (tc.recompile_limit(newer), tc.recompile_limit_key(newer)) == (16, "recompile_limit")
    assert tc.reorderable_logging_functions(types.SimpleNamespace()) is None
    assert tc.reorderable_logging_functions(
        types.SimpleNamespace(reorderable_logging_functions={print})) == {print}
    assert not tc.has_dynamo_config("capture_scalar_outputs", types.SimpleNamespace())


def test_pgo_state_needs_all_three_names():
    partial = types.SimpleNamespace(_CODE_STATE={}, CodeState=object)
    assert tc.pgo_state(partial) is None
    whole = types.SimpleNamespace(_CODE_STATE={}, _INIT_CODE_STATE={}, CodeState=object)
    assert tc.pgo_state(whole) is whole


def test_list_backends_falls_back_to_the_public_list_then_the_basic_backends():
    public = types.SimpleNamespace(list_backends=lambda exclude_tags=(): ["inductor", "x"])
    none = types.SimpleNamespace()
    assert tc.list_backends(dynamo=none, compiler=public) == ["inductor", "x"]
    assert tc.list_backends(dynamo=none, compiler=none) == list(tc.BASIC_BACKENDS)


def test_pytree_fallback_matches_torch_on_plain_containers():
    Pair = namedtuple("Pair", "a b")
    value = ([torch.ones(1), 2], {"k": (3, Pair(torch.zeros(2), "s"))}, None)
    assert tc.tree_leaves(value, flatten=None) == [value[0][0], 2, 3, value[1]["k"][1].a,
                                                   "s", None]
    mapped = tc.tree_map(lambda v: v * 2 if isinstance(v, int) else v, value, mapper=None)
    assert mapped[0][1] == 4 and mapped[1]["k"][0] == 6
    assert isinstance(mapped[1]["k"][1], Pair) and isinstance(mapped[1]["k"], tuple)
    # the same answers as torch's pytree for these containers
    ours = tc.tree_leaves(value, flatten=None)
    theirs = tc.tree_leaves(value)
    assert len(ours) == len(theirs) and all(a is b for a, b in zip(ours, theirs, strict=True))


@pytest.mark.slow
def test_module_and_compiled_function_internals():
    plain = types.SimpleNamespace()
    assert tc.orig_callable(plain) is plain
    assert tc.orig_callable(plain, None) is None
    for call in (tc.call_impl, tc.compiled_call_impl,
                 lambda m: tc.set_compiled_call_impl(m, None)):
        with pytest.raises(RuntimeError, match="module targets"):
            call(plain)

    def fn(x):
        return x

    assert tc.orig_callable(torch.compile(fn)) is fn
    module = torch.nn.Linear(2, 2)
    assert tc.compiled_call_impl(module) is None
    tc.set_compiled_call_impl(module, None)


@pytest.mark.slow
def test_inductor_patch_leaves_out_optional_settings_and_refuses_required_ones():
    patched = []

    class FakeConfig:
        force_disable_caches = False

        @staticmethod
        def patch(changes):
            patched.append(changes)
            return changes

    assert tc.inductor_patch({"force_disable_caches": True}, root=FakeConfig) \
        == {"force_disable_caches": True}
    lacking = types.SimpleNamespace(patch=FakeConfig.patch)
    assert tc.inductor_patch({"force_disable_caches": True}, root=lacking) == {}
    with pytest.raises(RuntimeError, match=r"cpp\.enable_kernel_profile.*%kprun"):
        tc.inductor_patch({"cpp.enable_kernel_profile": True}, root=lacking)
    with pytest.raises(RuntimeError, match="no_such_setting"):
        tc.inductor_patch({"no_such_setting": 1}, root=lacking)
    with pytest.raises(RuntimeError, match=r"config\.patch"):
        tc.inductor_patch({}, root=types.SimpleNamespace())


def test_the_real_accessors_answer_as_torch_does():
    import torch._dynamo
    import torch._inductor.config as inductor_config

    # torch < 2.9 has no provenance_tracking_level: the accessor says None
    assert tc.provenance_tracking_level() == getattr(
        inductor_config.trace, "provenance_tracking_level", None)
    assert tc.recompile_limit() == torch._dynamo.config.recompile_limit
    assert tc.list_backends() == list(torch._dynamo.list_backends(None))
    assert tc.dynamo_counters() is torch._dynamo.utils.counters
    assert tc.pgo_state() is torch._dynamo.pgo
    assert tc.current_compile_id() is None  # no compile running
    assert tc.inductor_option_names() == list(torch._inductor.list_options())


# --- one module: nbcompile names torch's private names nowhere else ------------------------

#: Files another change owns, each still naming a private torch name directly, with the
#: accessor to switch to.
NOT_ROUTED = {
    ("nbcompile/core/trace/payloads.py", "torch._dynamo.exc"): "gbid_documentation_link()",
    ("nbcompile/core/insight/advice.py", "torch._dynamo.config"): "recompile_limit()",
    ("nbcompile/magics/errors.py", "torch._dynamo.exc"): "unsupported_error_types()",
    ("nbcompile/magics/compile.py", "._compiled_call_impl"): "set_compiled_call_impl()",
}
_PRIVATE_ATTRS = {"_call_impl", "_compiled_call_impl", "_torchdynamo_orig_callable"}


def _private_module(name: str) -> bool:
    parts = name.split(".")
    return parts[0] == "torch" and any(p.startswith("_") and not p.startswith("__")
                                       for p in parts[1:])


def private_uses(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if _private_module(a.name))
        elif isinstance(node, ast.ImportFrom) and not node.level:
            if _private_module(node.module or ""):
                found.add(node.module or "")
        elif isinstance(node, ast.Attribute):
            text = ast.unparse(node)
            if node.attr in _PRIVATE_ATTRS:
                found.add(f".{node.attr}")
            elif _private_module(text) and not _private_module(ast.unparse(node.value)):
                found.add(text)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("getattr", "hasattr", "setattr") and len(node.args) > 1
              and isinstance(node.args[1], ast.Constant) and node.args[1].value in _PRIVATE_ATTRS):
            found.add(f".{node.args[1].value}")
    return found


def test_private_torch_names_only_in_torch_compat():
    compat = PACKAGE / "core" / "torch_compat.py"
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == compat:
            continue
        rel = str(path.relative_to(PACKAGE.parent))
        for use in sorted(private_uses(path)):
            if not any(rel == f and use.startswith(prefix) for f, prefix in NOT_ROUTED):
                bad.append(f"{rel}: {use}")
    assert not bad, "private torch names outside core/torch_compat.py:\n" + "\n".join(bad)


def test_the_scan_sees_imports_attributes_and_getattr_strings(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import torch._dynamo\nfrom torch.utils._pytree import tree_map\n"
                      "x = torch._inductor.config.trace\nm._call_impl\n"
                      "getattr(f, '_torchdynamo_orig_callable', f)\ntorch.__version__\n")
    assert private_uses(sample) == {"torch._dynamo", "torch.utils._pytree",
                                    "torch._inductor", "._call_impl",
                                    "._torchdynamo_orig_callable"}


def test_aot_compile_is_probed_on_a_compiled_function(monkeypatch):
    assert tc.has_aot_compile() is hasattr(torch.compile(abs), "aot_compile")

    def broken(*_a, **_k):
        raise RuntimeError("no compile here")

    monkeypatch.setattr(torch, "compile", broken)
    assert tc.has_aot_compile() is False  # a probe that raises: not available
