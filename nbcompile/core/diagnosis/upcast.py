"""Upcasting the culprit line: its computation in float32, its result cast back once.

A graph pass over Dynamo's FX graph (the user's code as captured, each node with the
stack of the line it comes from): the float16/bfloat16 tensors a line takes from outside
it are cast to float32, the line's ops compute in float32, and each result used after
the line is cast back to its dtype. The same pass serves both sides of the comparison,
since the change is to the user's code and so changes eager too:

* eager: a backend that applies it and runs the graph as eager PyTorch;
* compiled: Inductor with it as ``pre_grad_custom_pass`` (a setting patched for that
  run), under the user's other options.

A line that changes a tensor in place is left alone (a cast copy would take the change).
"""

from __future__ import annotations

import re
from typing import Any

import torch

from .sites import Site

LOW_PRECISION = (torch.float16, torch.bfloat16)
_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')


def _innermost(node: torch.fx.Node) -> tuple[str, int] | None:
    frames = list(_FRAME.finditer(node.meta.get("stack_trace") or ""))
    return (frames[-1]["file"], int(frames[-1]["line"])) if frames else None


def _value(node: Any) -> Any:
    if not isinstance(node, torch.fx.Node):
        return None
    return node.meta.get("example_value", node.meta.get("val"))


def _low(node: Any) -> torch.dtype | None:
    value = _value(node)
    if isinstance(value, torch.Tensor) and value.dtype in LOW_PRECISION:
        return value.dtype
    return None


def _in_place(node: torch.fx.Node) -> bool:
    name = node.target if isinstance(node.target, str) else getattr(node.target, "__name__", "")
    return isinstance(name, str) and name.endswith("_") and not name.endswith("__")


class UpcastLine:
    """The graph pass for one line; counts the ops it changed (``changed``) and the
    dtype it cast back to."""

    def __init__(self, site: Site) -> None:
        self.where = (site.filename, site.lineno)
        self.changed = 0
        self.dtypes: set[str] = set()
        self.refused = ""

    def __call__(self, graph: torch.fx.Graph) -> None:
        nodes = [n for n in graph.nodes if n.op in ("call_function", "call_method")
                 and _innermost(n) == self.where]
        if not nodes:
            return
        if any(_in_place(n) for n in nodes):
            self.refused = "the line changes a tensor in place"
            return
        inside = set(nodes)
        casts: dict[torch.fx.Node, torch.fx.Node] = {}
        for node in nodes:
            for arg in node.all_input_nodes:
                if arg in inside or _low(arg) is None:
                    continue
                if arg not in casts:
                    with graph.inserting_before(node):
                        casts[arg] = graph.call_method("to", (arg, torch.float32))
                node.replace_input_with(arg, casts[arg])
                self.changed += 1
        if not casts:
            return
        for node in nodes:
            dtype = _low(node)
            outside = [u for u in node.users if u not in inside]
            if dtype is None or not outside:
                continue
            with graph.inserting_after(node):
                back = graph.call_method("to", (node, dtype))
            for user in outside:
                user.replace_input_with(node, back)
            self.dtypes.add(str(dtype).removeprefix("torch."))

    def eager_backend(self) -> Any:
        """A ``torch.compile`` backend that applies the pass and runs the graph eagerly."""

        def upcast_eager(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Any:
            self(gm.graph)
            gm.recompile()
            return gm.forward

        upcast_eager.generates_code = False  # type: ignore[attr-defined]
        return upcast_eager


def change_text(site: Site, dtype: str) -> str:
    """The change in words and code, for the workaround's ``change``."""
    return (f"# line {site.lineno} in float32: its {dtype} inputs .float(), its result "
            f".to(torch.{dtype}) once after it\n{site.line}")
