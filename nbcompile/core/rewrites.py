"""Source rewrites of the user's own function for classic graph-break patterns (``ast``).

``keep_as_tensor(fn, lineno)``: on line ``lineno`` of ``fn``'s source, ``t.item()``,
``float(t)`` and ``int(t)`` become ``t`` (the value stays a tensor, so Dynamo keeps
tracing). The result is a new function (the user's is untouched) and the changed line.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types
from dataclasses import dataclass
from typing import Any

_SCALAR_CASTS = ("float", "int")


class RewriteError(ValueError):
    """The function cannot be rewritten (no source, closures, no pattern on the line)."""


@dataclass(frozen=True)
class Rewrite:
    """A rewritten copy of a function and the line that changed."""

    fn: types.FunctionType
    lineno: int  # in the original file
    before: str
    after: str


class _KeepAsTensor(ast.NodeTransformer):
    def __init__(self, line: int) -> None:
        self.line = line
        self.replaced: list[tuple[ast.expr, ast.expr]] = []

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if node.lineno != self.line or node.keywords:
            return node
        inner: ast.expr | None = None
        if (isinstance(node.func, ast.Attribute) and node.func.attr == "item"
                and not node.args):
            inner = node.func.value
        elif (isinstance(node.func, ast.Name) and node.func.id in _SCALAR_CASTS
              and len(node.args) == 1):
            inner = node.args[0]
        if inner is None:
            return node
        self.replaced.append((node, inner))
        return inner


def _source(fn: Any) -> tuple[types.FunctionType, str, int]:
    fn = getattr(fn, "_torchdynamo_orig_callable", fn)
    if not isinstance(fn, types.FunctionType):
        raise RewriteError("only plain functions are rewritten (not modules or methods)")
    if fn.__closure__:
        raise RewriteError(f"{fn.__name__} uses variables of an enclosing function")
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise RewriteError(f"no source for {fn.__name__}: {e}") from None
    return fn, textwrap.dedent("".join(lines)), first


def keep_as_tensor(fn: Any, lineno: int) -> Rewrite:
    """``fn`` with ``.item()``/``float()``/``int()`` on file line ``lineno`` removed."""
    fn, src, first = _source(fn)
    tree = ast.parse(src)
    func = tree.body[0]
    if not isinstance(func, ast.FunctionDef):
        raise RewriteError(f"{fn.__name__} is not a plain def")
    func.decorator_list = []
    local_line = lineno - first + 1
    transformer = _KeepAsTensor(local_line)
    transformer.visit(func)
    if not transformer.replaced:
        raise RewriteError(f"no .item(), float() or int() call on line {lineno}")
    before = src.splitlines()[local_line - 1]
    after = before
    for node, inner in transformer.replaced:
        outer_text = ast.get_source_segment(src, node)
        inner_text = ast.get_source_segment(src, inner)
        if outer_text and inner_text:
            after = after.replace(outer_text, inner_text, 1)
    ast.fix_missing_locations(tree)
    ast.increment_lineno(tree, first - 1)  # tracebacks and breaks name the cell's lines
    code = compile(tree, fn.__code__.co_filename, "exec")
    namespace: dict[str, Any] = {}
    exec(code, fn.__globals__, namespace)  # noqa: S102 - the user's own, rewritten code
    new = namespace[fn.__name__]
    new = types.FunctionType(new.__code__, fn.__globals__, fn.__name__, fn.__defaults__)
    new.__kwdefaults__ = fn.__kwdefaults__
    return Rewrite(new, lineno, before.strip(), after.strip())
