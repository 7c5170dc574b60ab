"""Source rewrites of the user's own function for classic graph-break patterns (``ast``).

``keep_as_tensor(fn, lineno)``: on line ``lineno`` of ``fn``'s source, ``t.item()``,
``float(t)`` and ``int(t)`` become ``t`` (the value stays a tensor, so Dynamo keeps
tracing). ``branch_to_where(fn, lineno)``: a data-dependent ``if`` on line ``lineno``
whose branches each give one value (``y = a`` / ``y = b``, ``return a`` / ``return b``,
or ``a if cond else b``) becomes ``torch.where(cond, a, b)``. ``numpy_to_torch(fn,
lineno)``: a NumPy call that Dynamo cannot trace (``np.nanmean(t.numpy())``) becomes its
torch equivalent on the tensor (``torch.nanmean(t)``). The result is a new function (the
user's is untouched) and the changed line(s).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types
from dataclasses import dataclass
from typing import Any

import torch

_SCALAR_CASTS = ("float", "int")
#: NumPy functions torch._numpy (Dynamo's NumPy tracing) lacks in torch 2.13 -> torch's.
NUMPY_TO_TORCH = {"nanmean": "nanmean", "nansum": "nansum", "nanmedian": "nanmedian",
                  "isin": "isin", "trapz": "trapezoid", "trapezoid": "trapezoid"}


class RewriteError(ValueError):
    """The function cannot be rewritten (no source, closures, no pattern on the line)."""


@dataclass(frozen=True)
class Rewrite:
    """A rewritten copy of a function and the line that changed."""

    fn: types.FunctionType
    lineno: int  # in the original file
    before: str  # the line(s) replaced, without their indentation
    after: str  # what replaces them


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


def _parse(fn: Any) -> tuple[types.FunctionType, str, int, ast.Module, ast.FunctionDef]:
    fn, src, first = _source(fn)
    tree = ast.parse(src)
    func = tree.body[0]
    if not isinstance(func, ast.FunctionDef):
        raise RewriteError(f"{fn.__name__} is not a plain def")
    func.decorator_list = []
    return fn, src, first, tree, func


def _build(fn: types.FunctionType, tree: ast.Module, first: int) -> types.FunctionType:
    ast.fix_missing_locations(tree)
    ast.increment_lineno(tree, first - 1)  # tracebacks and breaks name the cell's lines
    code = compile(tree, fn.__code__.co_filename, "exec")
    namespace: dict[str, Any] = {}
    exec(code, fn.__globals__, namespace)  # noqa: S102 - the user's own, rewritten code
    new = namespace[fn.__name__]
    new = types.FunctionType(new.__code__, fn.__globals__, fn.__name__, fn.__defaults__)
    new.__kwdefaults__ = fn.__kwdefaults__
    return new


def keep_as_tensor(fn: Any, lineno: int) -> Rewrite:
    """``fn`` with ``.item()``/``float()``/``int()`` on file line ``lineno`` removed."""
    fn, src, first, tree, func = _parse(fn)
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
    return Rewrite(_build(fn, tree, first), lineno, before.strip(), after.strip())


def _where(cond: ast.expr, a: ast.expr, b: ast.expr) -> ast.Call:
    func = ast.Attribute(ast.Name("torch", ast.Load()), "where", ast.Load())
    return ast.Call(func, [cond, a, b], [])


def _single_target(stmts: list[ast.stmt]) -> tuple[str, ast.expr] | None:
    if len(stmts) != 1 or not isinstance(stmts[0], ast.Assign):
        return None
    (node,) = stmts
    if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
        return None
    return node.targets[0].id, node.value


def _returned(stmts: list[ast.stmt]) -> ast.expr | None:
    if len(stmts) == 1 and isinstance(stmts[0], ast.Return) and stmts[0].value is not None:
        return stmts[0].value
    return None


class _BranchToWhere(ast.NodeTransformer):
    """Replaces the ``if`` (or conditional expression) that starts on ``line``."""

    def __init__(self, line: int) -> None:
        self.line = line
        # (first line, last line, the old node, its replacement)
        self.replaced: list[tuple[int, int, ast.AST, ast.AST]] = []

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        if node.lineno != self.line:
            return node
        new = ast.copy_location(_where(node.test, node.body, node.orelse), node)
        self.replaced.append((node.lineno, node.end_lineno or node.lineno, node, new))
        return new

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for name in ("body", "orelse", "finalbody"):
            stmts = getattr(node, name, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                setattr(node, name, self._statements(stmts))
        for field_name, value in ast.iter_fields(node):
            if field_name in ("body", "orelse", "finalbody") and isinstance(value, list):
                continue
            if isinstance(value, ast.AST):
                setattr(node, field_name, self.visit(value))
            elif isinstance(value, list):
                setattr(node, field_name, [self.visit(v) if isinstance(v, ast.AST) else v
                                           for v in value])
        return node

    def _statements(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        skip_next = False
        for i, stmt in enumerate(stmts):
            if skip_next:
                skip_next = False
                continue
            if isinstance(stmt, ast.If) and stmt.lineno == self.line:
                new, last, skip_next = self._if(stmt, stmts[i + 1] if i + 1 < len(stmts)
                                                else None)
                if new is not None:
                    new = ast.copy_location(new, stmt)
                    self.replaced.append((stmt.lineno, last, stmt, new))
                    out.append(new)
                    continue
            out.append(self.visit(stmt))
        return out

    @staticmethod
    def _if(node: ast.If, following: ast.stmt | None) -> tuple[ast.stmt | None, int, bool]:
        last = node.end_lineno or node.lineno
        body, orelse = _single_target(node.body), _single_target(node.orelse)
        if body and orelse and body[0] == orelse[0]:
            target = ast.Name(body[0], ast.Store())
            return ast.Assign([target], _where(node.test, body[1], orelse[1])), last, False
        then = _returned(node.body)
        if then is not None and node.orelse and (other := _returned(node.orelse)) is not None:
            return ast.Return(_where(node.test, then, other)), last, False
        if (then is not None and not node.orelse and following is not None
                and (other := _returned([following])) is not None):
            last = following.end_lineno or following.lineno
            return ast.Return(_where(node.test, then, other)), last, True
        return None, last, False


def branch_to_where(fn: Any, lineno: int) -> Rewrite:
    """``fn`` with the data-dependent ``if`` on file line ``lineno`` as ``torch.where``."""
    fn, src, first, tree, func = _parse(fn)
    if fn.__globals__.get("torch") is not torch:
        raise RewriteError(f"torch is not imported as `torch` where {fn.__name__} is defined")
    local_line = lineno - first + 1
    transformer = _BranchToWhere(local_line)
    func.body = transformer._statements(func.body)
    if not transformer.replaced:
        raise RewriteError(
            f"the if on line {lineno} is not one value per branch (y = a / y = b, "
            "return a / return b, or a if cond else b)")
    start, end, old, new = transformer.replaced[0]
    lines = src.splitlines()
    before_lines = lines[start - 1:end]
    indent = before_lines[0][: len(before_lines[0]) - len(before_lines[0].lstrip())]
    before = "\n".join(line[len(indent):] if line.startswith(indent) else line.strip()
                       for line in before_lines)
    if isinstance(new, ast.stmt):
        after = ast.unparse(new)
    else:  # a conditional expression inside a line: only its text changes
        old_text = ast.get_source_segment(src, old) or ""
        after = before.replace(old_text, ast.unparse(new), 1) if old_text else ast.unparse(new)
    return Rewrite(_build(fn, tree, first), lineno, before, after)


class _NumpyToTorch(ast.NodeTransformer):
    def __init__(self, line: int, aliases: set[str]) -> None:
        self.line, self.aliases = line, aliases
        self.replaced: list[tuple[str, str]] = []  # (numpy name, torch name)
        self.unknown: list[str] = []

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if (node.lineno != self.line or not isinstance(func, ast.Attribute)
                or not isinstance(func.value, ast.Name) or func.value.id not in self.aliases):
            return node
        name = NUMPY_TO_TORCH.get(func.attr)
        if name is None:
            self.unknown.append(f"{func.value.id}.{func.attr}")
            return node
        self.replaced.append((f"{func.value.id}.{func.attr}", f"torch.{name}"))
        node.func = ast.Attribute(ast.Name("torch", ast.Load()), name, ast.Load())
        node.args = [_tensor_of(a) for a in node.args]
        return node


def _tensor_of(arg: ast.expr) -> ast.expr:
    """``t.numpy()`` -> ``t`` (the torch function takes the tensor itself)."""
    if (isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute)
            and arg.func.attr == "numpy" and not arg.args and not arg.keywords):
        return arg.func.value
    return arg


def numpy_to_torch(fn: Any, lineno: int) -> Rewrite:
    """``fn`` with the NumPy calls on file line ``lineno`` replaced by torch's."""
    fn, src, first, tree, func = _parse(fn)
    if fn.__globals__.get("torch") is not torch:
        raise RewriteError(f"torch is not imported as `torch` where {fn.__name__} is defined")
    aliases = {k for k, v in fn.__globals__.items()
               if isinstance(v, types.ModuleType) and v.__name__ == "numpy"}
    local_line = lineno - first + 1
    transformer = _NumpyToTorch(local_line, aliases)
    transformer.visit(func)
    if not transformer.replaced:
        unknown = ", ".join(transformer.unknown) or "no NumPy call"
        raise RewriteError(f"line {lineno}: {unknown}: no torch equivalent known "
                           f"(known: {', '.join(sorted(NUMPY_TO_TORCH))})")
    before = src.splitlines()[local_line - 1].strip()
    statement = next(s for s in ast.walk(func)
                     if isinstance(s, ast.stmt) and s.lineno == local_line
                     and not isinstance(s, ast.FunctionDef))
    after = ast.unparse(statement) if statement.end_lineno == local_line else before
    return Rewrite(_build(fn, tree, first), lineno, before, after)
