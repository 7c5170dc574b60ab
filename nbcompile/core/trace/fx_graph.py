"""Inductor's and Dynamo's FX graph text (``print_readable``), parsed into nodes.

Both the Dynamo graph and the post-grad graph carry ``# File: <file>:<line> in <fn>,
code: ...`` comments: each node keeps the user source line it came from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..records import SourceLine

_FILE_COMMENT = re.compile(
    r"^\s*# File: (?P<file>.+):(?P<line>\d+) in (?P<fn>[^,]+), code: (?P<code>.*)$"
)
_NODE_LINE = re.compile(r'^\s*(?P<name>\w+)(?:: "[^"]*")? = (?P<expr>.+)$')
_OPS_CALL = re.compile(r"^torch\.ops\.(?P<ns>\w+)\.(?P<op>\w+)(?:\.(?P<overload>\w+))?\(")
_CALLEE = re.compile(r"^(?:[\w.]+\.)?(?P<fn>\w+)\(")
_BINOP = re.compile(r"^\w+ (?P<op>\*\*|//|[-+*/@%&|^<>]|[<>=!]=) ")
_BINOP_NAMES = {
    "+": "add", "-": "sub", "*": "mul", "/": "div", "//": "floordiv", "@": "matmul",
    "**": "pow", "%": "remainder", "&": "and", "|": "or", "^": "xor", "<": "lt", ">": "gt",
    "<=": "le", ">=": "ge", "==": "eq", "!=": "ne",
}

#: ATen ops that produce no kernel of their own (views, metadata, constants folded into
#: the kernels that use them).
VIEW_OPS = frozenset({
    "permute", "view", "reshape", "_unsafe_view", "expand", "t", "transpose", "unsqueeze",
    "squeeze", "slice", "select", "alias", "as_strided", "full", "scalar_tensor",
    "getitem", "sym_size", "sym_stride", "sym_numel", "unbind", "split", "split_with_sizes",
    "view_as_real", "view_as_complex", "lift_fresh_copy", "detach",
})


@dataclass
class FxNode:
    """One node line of a readable FX graph, with the user line it came from."""

    name: str
    expr: str
    op: str  # ATen packet for torch.ops calls ("mul"), else the callee ("sin", "linear")
    qualified: str = ""  # e.g. "aten.mul" (torch.ops calls only)
    filename: str | None = None
    lineno: int | None = None
    code: str = ""
    index: int = 0
    owner: int | None = None  # index of the launch that claimed this node

    @property
    def is_compute(self) -> bool:
        return bool(self.op) and self.op not in VIEW_OPS

    def source_line(self) -> SourceLine | None:
        if self.filename is None or self.lineno is None:
            return None
        return SourceLine(self.filename, self.lineno, self.code.strip())


def parse_graph(text: str) -> list[FxNode]:
    """The call nodes of a readable FX graph (``print_readable`` text), in order."""
    nodes: list[FxNode] = []
    where: tuple[str, int, str] | None = None
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped:
            where = None
            continue
        m = _FILE_COMMENT.match(raw)
        if m:
            where = (m.group("file"), int(m.group("line")), m.group("code"))
            continue
        if stripped.startswith("#"):
            if "No stacktrace" in stripped:
                where = None
            continue
        if stripped.startswith(("class ", "def ", "return ")):
            continue
        m = _NODE_LINE.match(raw)
        if not m:
            continue
        expr = m.group("expr")
        op, qualified = _op_of(expr)
        if not op:
            continue  # a placeholder rename such as ``l_x_ = L_x_``
        node = FxNode(name=m.group("name"), expr=expr, op=op, qualified=qualified,
                      index=len(nodes))
        if where is not None:
            node.filename, node.lineno, node.code = where
        nodes.append(node)
    return nodes


def _op_of(expr: str) -> tuple[str, str]:
    m = _OPS_CALL.match(expr)
    if m:
        return m.group("op"), f"{m.group('ns')}.{m.group('op')}"
    m = _CALLEE.match(expr)
    if m:
        return m.group("fn"), ""
    m = _BINOP.match(expr)
    if m:
        return _BINOP_NAMES.get(m.group("op"), m.group("op")), ""
    return "", ""
