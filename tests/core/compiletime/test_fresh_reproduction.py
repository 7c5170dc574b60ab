"""What a fresh process needs to reproduce a call, read from the code that runs: the
globals the target reads with the kernel's current values, the notebook's own functions
and classes by the definitions bound now. Cells are simulated as a notebook's are (code
compiled under a cell's filename, its text in Python's line cache, ``__name__ ==
"__main__"``); the call is rebuilt in a new namespace by the child's own ``rebuild`` and
traced by torch against the original (no fresh process here: tests/shell has those)."""

from __future__ import annotations

import linecache
import sys
import threading
import types
from dataclasses import asdict
from itertools import count
from typing import Any

import torch
from torch._dynamo.utils import count_calls

from nbcompile.core.compiletime.child import rebuild
from nbcompile.core.compiletime.needs import Needs, needs

_cells = count(1)


def _cell(ns: dict[str, Any], source: str) -> None:
    filename = f"<ipython-input-{next(_cells)}-needs>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), ns)  # noqa: S102 - the test's own cells


def _rebuilt(found: Needs) -> tuple[Any, list[Any]]:
    spec = {"imports": found.imports, "early": found.early, "late": found.late,
            "definitions": [asdict(d) for d in found.definitions]}
    return rebuild({"__name__": "__main__"}, spec)


def _graph_ops(fn: Any, *args: Any) -> int:
    counted: list[int] = []

    def counting(gm: torch.fx.GraphModule, example_inputs: Any) -> Any:
        counted.append(count_calls(gm.graph))
        return gm.forward

    torch.compile(fn, backend=counting)(*args)
    return sum(counted)


def test_the_call_is_rebuilt_from_the_code_and_values_bound_now():
    ns: dict[str, Any] = {"__name__": "__main__"}
    _cell(ns, "import torch\nfrom torch import nn\n"
              "def helper(x):\n    return torch.sin(x)\n")
    _cell(ns, "DEPTH = 2\n"
              "class Block(nn.Module):\n"
              "    scale = 1.0\n"
              "    def __init__(self):\n"
              "        super().__init__()\n"
              "        self.fc = nn.Linear(4, 4)\n"
              "    def forward(self, x):\n"
              "        return helper(self.fc(x)) * self.scale\n"
              "block = Block().requires_grad_(False)\n"
              "def run(x, times=1):\n"
              "    for _ in range(DEPTH * times):\n"
              "        x = block(x) + helper(x)\n"
              "    return x\n"
              "print('a side effect never repeated')\n")
    # later cells: the helper redefined, the global changed, a default and a class
    # attribute set: the kernel runs these now, not what the defining cell said
    _cell(ns, "def helper(x):\n    return torch.cos(x) * 2\n")
    _cell(ns, "DEPTH = 3\nrun.__defaults__ = (2,)\nBlock.scale = 0.5\n")
    x = torch.randn(2, 4)
    found = needs(ns["run"], [((x,), {})])
    assert not found.problem, found.problem
    assert {d.name for d in found.definitions} == {"run", "Block", "helper"}
    helper = next(d for d in found.definitions if d.name == "helper")
    assert "cos" in helper.source and "sin" not in helper.source  # the one bound now
    assert "print" not in "".join(d.source for d in found.definitions)
    assert found.values == ["DEPTH", "block"] and found.imports == {
        "torch": "torch", "nn": "torch.nn"}
    assert "the current values of DEPTH, block" in found.describe()
    fn, calls = _rebuilt(found)
    (args, kwargs), = calls
    # torch's trace of the rebuilt call: the graph the kernel's own call traces
    # (DEPTH 3 x times 2) rounds of linear, cos, *2, *scale, cos, *2, +: 7 ops each
    assert _graph_ops(fn, *args, **kwargs) == _graph_ops(ns["run"], x) == 6 * 7
    torch.testing.assert_close(fn(*args, **kwargs), ns["run"](x))


def test_what_cannot_be_carried_is_said_with_its_name():
    ns: dict[str, Any] = {"__name__": "__main__"}
    _cell(ns, "import threading\nimport types\n"
              "LOCK = threading.Lock()\n"
              "def locked(x):\n    with LOCK:\n        return x + 1\n"
              "made = types.ModuleType('made_here')\n"
              "def uses_made(x):\n    return made.f(x)\n"
              "TABLE = {'act': lambda x: x}\n"
              "def uses_table(x):\n    return TABLE['act'](x)\n")
    assert isinstance(ns["LOCK"], type(threading.Lock()))
    x = torch.randn(3)
    said = {name: needs(ns[name], [((x,), {})]).problem
            for name in ("locked", "uses_made", "uses_table")}
    assert said["locked"].startswith("cannot be reproduced in a fresh process: LOCK is an "
                                     "unpicklable lock (TypeError"), said
    assert "made is a module that cannot be imported by name (made_here)" in said["uses_made"]
    assert "TABLE holds a lambda" in said["uses_table"]
    # a cell whose text no longer holds the code bound now is not guessed from
    _cell(ns, "def edited(x):\n    return x + 1\n")
    filename = ns["edited"].__code__.co_filename
    linecache.cache[filename] = (30, None, ["def edited(x):\n", "    return x - y\n"], filename)
    assert "edited is a function whose cell no longer holds the code bound to it" in needs(
        ns["edited"], []).problem


def test_notebook_classes_travel_with_the_call_as_they_are_now(monkeypatch):
    main = types.ModuleType("__main__")  # as in a kernel: the cells' namespace is __main__
    monkeypatch.setitem(sys.modules, "__main__", main)
    ns = main.__dict__
    _cell(ns, "import torch\nfrom dataclasses import dataclass\n"
              "@dataclass\nclass Cfg:\n    k: int = 2\n"
              "class Scale:\n    def apply(self, x, cfg):\n        return x * cfg.k\n"
              "def scaled(x, cfg):\n    return Scale().apply(x, cfg)\n")
    _cell(ns, "def apply_twice(self, x, cfg):\n    return torch.relu(x) * cfg.k * 2\n"
              "Scale.apply = apply_twice\n")  # a method set after its class statement
    x = torch.randn(3)
    found = needs(ns["scaled"], [((x, ns["Cfg"](3)), {})])  # an argument of a cell's class
    assert not found.problem, found.problem
    assert {d.name for d in found.definitions} == {"scaled", "Cfg", "Scale", "apply_twice"}
    fn, calls = _rebuilt(found)
    (args, kwargs), = calls
    assert type(args[1]).__name__ == "Cfg" and args[1].k == 3
    assert _graph_ops(fn, *args) == _graph_ops(ns["scaled"], x, ns["Cfg"](3)) == 3
    torch.testing.assert_close(fn(*args), ns["scaled"](x, ns["Cfg"](3)))


def test_the_cpu_probes_directory_is_per_user_private_and_shared_by_measurements(
        home, monkeypatch):
    """Inductor's CPU-ISA probes (shared libraries the fresh processes load) are built
    once per user, beside nbcompile's compile cache, in a directory only this user can
    enter; removed, it is made again; where that place is not private, a temporary one."""
    import os
    import shutil
    import stat

    from nbcompile.core.compiletime import fresh

    monkeypatch.setattr(fresh, "_PROBES", [])
    first = fresh.probes_dir()
    assert first == home / "cache" / "nbcompile" / fresh.PROBES_NAME
    assert fresh.probes_dir() == first and first.is_dir()
    assert stat.S_IMODE(os.stat(first).st_mode) == 0o700
    shutil.rmtree(first)
    again = fresh.probes_dir()
    assert again == first and again.is_dir()
    monkeypatch.setattr(fresh, "_PROBES", [])
    os.chmod(home / "cache", 0o777)  # another user could replace what is under it
    try:
        elsewhere = fresh.probes_dir()
        assert not elsewhere.is_relative_to(home) and elsewhere.is_dir()
        assert stat.S_IMODE(os.stat(elsewhere).st_mode) == 0o700
    finally:
        os.chmod(home / "cache", 0o700)
