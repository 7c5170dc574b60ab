"""Source rewrites of the user's own function for classic graph-break patterns (``ast``).

- ``keep_as_tensor(fn, lineno)``: ``t.item()``, ``float(t)`` and ``int(t)`` on the line
  become ``t`` (the value stays a tensor, so Dynamo keeps tracing).
- ``branch_to_where(fn, lineno)``: a data-dependent ``if`` on a tensor whose branches
  assign one name (or return a value) becomes ``torch.where(cond, a, b)``; a conditional
  expression ``a if cond else b`` on the line too.
- ``numpy_to_torch(fn, lineno)``: a NumPy call Dynamo cannot trace becomes its torch
  equivalent (``np.digitize(t.numpy(), bins)`` -> ``torch.bucketize(t, ...)``), and a later
  ``torch.from_numpy(name)`` of its result becomes ``name``.

Each returns a new function (the user's is untouched: same globals, a new code object
whose lines keep the cell's numbering) and the lines that changed.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types
from dataclasses import dataclass, field
from typing import Any

from ..torch_compat import orig_callable

_SCALAR_CASTS = ("float", "int")
#: NumPy functions with a torch equivalent of another name: np name -> torch name.
_NUMPY_RENAMES = {"digitize": "bucketize", "clip": "clamp", "concatenate": "cat",
                  "amax": "amax", "amin": "amin", "absolute": "abs", "power": "pow"}
_FROM_NUMPY = ("from_numpy", "as_tensor", "tensor")


class RewriteError(ValueError):
    """The function cannot be rewritten (no source, closures, no pattern on the line)."""


@dataclass(frozen=True)
class Rewrite:
    """A rewritten copy of a function and the lines that changed."""

    fn: types.FunctionType
    lineno: int  # the first changed line, in the original file
    before: str  # the changed lines as they were (several lines joined by newlines)
    after: str  # what replaced them
    # Every changed place: (line in the original file, before, after), in order.
    changes: list[tuple[int, str, str]] = field(default_factory=list)

    def diff(self) -> str:
        """The change as a short diff: ``# line N``, ``- old``, ``+ new`` per place."""
        out: list[str] = []
        for lineno, before, after in self.changes or [(self.lineno, self.before, self.after)]:
            span = before.count("\n")
            out.append(f"# line {lineno}" if not span else f"# lines {lineno}-{lineno + span}")
            out += [f"- {line}" for line in before.splitlines()]
            out += [f"+ {line}" for line in after.splitlines()]
        return "\n".join(out)


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
    fn = orig_callable(fn)
    if not isinstance(fn, types.FunctionType):
        raise RewriteError("only plain functions are rewritten (not modules or methods)")
    if fn.__closure__:
        raise RewriteError(f"{fn.__name__} uses variables of an enclosing function")
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise RewriteError(f"no source for {fn.__name__}: {e}") from None
    return fn, textwrap.dedent("".join(lines)), first


def _function_def(fn: types.FunctionType, src: str) -> ast.FunctionDef:
    func = ast.parse(src).body[0]
    if not isinstance(func, ast.FunctionDef):
        raise RewriteError(f"{fn.__name__} is not a plain def")
    return func


def _build(fn: types.FunctionType, src: str, first: int) -> types.FunctionType:
    """``src`` (the dedented def, rewritten) as a function like ``fn``: same globals,
    defaults and name; its lines numbered as the original's (breaks name the cell's lines)."""
    tree = ast.parse(src)
    func = tree.body[0]
    assert isinstance(func, ast.FunctionDef)
    func.decorator_list = []
    ast.fix_missing_locations(tree)
    ast.increment_lineno(tree, first - 1)
    code = compile(tree, fn.__code__.co_filename, "exec")
    namespace: dict[str, Any] = {}
    exec(code, fn.__globals__, namespace)  # noqa: S102 - the user's own, rewritten code
    new = namespace[fn.__name__]
    new = types.FunctionType(new.__code__, fn.__globals__, fn.__name__, fn.__defaults__)
    new.__kwdefaults__ = fn.__kwdefaults__
    return new


def _torch_name(fn: types.FunctionType) -> str:
    """The name ``torch`` has where ``fn`` was defined (rewrites call ``torch.where``)."""
    import torch

    for name, value in fn.__globals__.items():
        if value is torch and not name.startswith("_"):
            return name
    raise RewriteError(f"torch is not imported where {fn.__name__} is defined")


def keep_as_tensor(fn: Any, lineno: int) -> Rewrite:
    """``fn`` with ``.item()``/``float()``/``int()`` on file line ``lineno`` removed."""
    fn, src, first = _source(fn)
    func = _function_def(fn, src)
    local_line = lineno - first + 1
    transformer = _KeepAsTensor(local_line)
    transformer.visit(func)
    if not transformer.replaced:
        raise RewriteError(f"no .item(), float() or int() call on line {lineno}")
    lines = src.splitlines()
    before = lines[local_line - 1]
    after = before
    for node, inner in transformer.replaced:
        outer_text = ast.get_source_segment(src, node)
        inner_text = ast.get_source_segment(src, inner)
        if outer_text and inner_text:
            after = after.replace(outer_text, inner_text, 1)
    lines[local_line - 1] = after
    new = _build(fn, "\n".join(lines) + "\n", first)
    return Rewrite(new, lineno, before.strip(), after.strip(),
                   [(lineno, before.strip(), after.strip())])


def _branch_value(body: list[ast.stmt]) -> tuple[str, ast.expr] | None:
    """``("=name", value)`` for one assignment to one name, ``("return", value)`` for one
    return of a value; None for anything else."""
    if len(body) != 1:
        return None
    stmt = body[0]
    if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)):
        return f"={stmt.targets[0].id}", stmt.value
    if isinstance(stmt, ast.Return) and stmt.value is not None:
        return "return", stmt.value
    return None


def _next_statement(func: ast.FunctionDef, node: ast.stmt) -> ast.stmt | None:
    """The statement after ``node`` in the block that holds it (None: the block's last)."""
    for parent in ast.walk(func):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(parent, name, None)
            if isinstance(block, list) and node in block:
                i = block.index(node)
                return block[i + 1] if i + 1 < len(block) else None
    return None


def branch_to_where(fn: Any, lineno: int) -> Rewrite:
    """``fn`` with the data-dependent branch on file line ``lineno`` as ``torch.where``:
    ``if c: y = a`` / ``else: y = b`` (or no ``else``: ``b`` is ``y``), ``if c: return a`` /
    ``else: return b`` (or the next statement ``return b``), or ``a if c else b``. Both
    sides are computed (torch.where selects elementwise); the trial on a copy shows
    whether the result stays the same."""
    fn, src, first = _source(fn)
    torch_name = _torch_name(fn)
    func = _function_def(fn, src)
    local_line = lineno - first + 1
    lines = src.splitlines()
    for node in ast.walk(func):
        if isinstance(node, ast.If) and node.lineno == local_line:
            then = _branch_value(node.body)
            other = _branch_value(node.orelse) if node.orelse else None
            if then is None or (node.orelse and (other is None or other[0] != then[0])):
                break
            end = node.end_lineno or node.lineno
            if other is None and then[0] == "return":
                # `if c: return a` then `return b` (an early return): one return of where
                following = _next_statement(func, node)
                if not (isinstance(following, ast.Return) and following.value is not None):
                    break  # `if c: return a` then more code: not one expression
                other = ("return", following.value)
                end = following.end_lineno or following.lineno
            cond = ast.unparse(node.test)
            a = ast.unparse(then[1])
            b = ast.unparse(other[1]) if other else then[0][1:]
            where = f"{torch_name}.where({cond}, {a}, {b})"
            stmt = f"return {where}" if then[0] == "return" else f"{then[0][1:]} = {where}"
            line = lines[local_line - 1]
            indent = line[: len(line) - len(line.lstrip())]
            before = "\n".join(line.strip() for line in lines[local_line - 1:end])
            # Blank lines keep the lines below where they were (breaks name cell lines).
            lines[local_line - 1:end] = [indent + stmt] + [""] * (end - local_line)
            new = _build(fn, "\n".join(lines) + "\n", first)
            return Rewrite(new, lineno, before, stmt, [(lineno, before, stmt)])
        if isinstance(node, ast.IfExp) and node.lineno == local_line == node.end_lineno:
            segment = ast.get_source_segment(src, node)
            where = (f"{torch_name}.where({ast.unparse(node.test)}, {ast.unparse(node.body)}, "
                     f"{ast.unparse(node.orelse)})")
            before = lines[local_line - 1]
            if not segment or segment not in before:
                break
            after = before.replace(segment, where, 1)
            lines[local_line - 1] = after
            new = _build(fn, "\n".join(lines) + "\n", first)
            return Rewrite(new, lineno, before.strip(), after.strip(),
                           [(lineno, before.strip(), after.strip())])
    raise RewriteError(
        f"the branch on line {lineno} is not one assignment or return on each side; "
        "torch.cond(pred, true_fn, false_fn, (operands,)) can express branches that "
        "return tensors of one shape")


class _NumpyCalls(ast.NodeTransformer):
    """NumPy calls on one line -> torch calls; ``t.numpy()`` arguments -> ``t``."""

    def __init__(self, line: int, numpy_names: set[str], torch_name: str) -> None:
        self.line, self.np, self.torch = line, numpy_names, torch_name
        self.replaced = 0

    def _is_np_call(self, node: ast.AST) -> bool:
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id in self.np)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if node.lineno != self.line:
            return node
        # torch.from_numpy(<rewritten call>) -> the call
        if (isinstance(node.func, ast.Attribute) and node.func.attr in _FROM_NUMPY
                and isinstance(node.func.value, ast.Name) and node.func.value.id == self.torch
                and len(node.args) == 1 and getattr(node.args[0], "_nbc_torch", False)):
            return node.args[0]
        if not self._is_np_call(node):
            return node
        assert isinstance(node.func, ast.Attribute)
        import torch

        name = node.func.attr
        args = [self._tensor_arg(a) for a in node.args]
        keywords = list(node.keywords)
        if name == "digitize":
            if keywords or len(args) != 2:
                raise RewriteError("np.digitize with `right=` is not rewritten")
            # np.digitize(x, bins) == torch.bucketize(x, bins, right=True)
            args[1] = self._as_tensor(args[1])
            keywords = [ast.keyword("right", ast.Constant(True))]
        target = _NUMPY_RENAMES.get(name, name)
        if not hasattr(torch, target):
            raise RewriteError(f"np.{name} has no torch function of that name")
        call = ast.Call(ast.Attribute(ast.Name(self.torch, ast.Load()), target, ast.Load()),
                        args, keywords)
        call._nbc_torch = True  # type: ignore[attr-defined]
        self.replaced += 1
        return ast.copy_location(call, node)

    def _tensor_arg(self, arg: ast.expr) -> ast.expr:
        if (isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute)
                and arg.func.attr == "numpy" and not arg.args):
            return arg.func.value
        return arg

    def _as_tensor(self, arg: ast.expr) -> ast.expr:
        return ast.Call(ast.Attribute(ast.Name(self.torch, ast.Load()), "as_tensor", ast.Load()),
                        [arg], [])


def numpy_to_torch(fn: Any, lineno: int) -> Rewrite:
    """``fn`` with the NumPy call(s) on file line ``lineno`` as torch calls on the tensors
    (``.numpy()`` dropped); if the line assigns the result to a name, later
    ``torch.from_numpy(name)`` in ``fn`` becomes ``name``."""
    import numpy

    fn, src, first = _source(fn)
    torch_name = _torch_name(fn)
    numpy_names = {n for n, v in fn.__globals__.items() if v is numpy}
    if not numpy_names:
        raise RewriteError(f"numpy is not imported where {fn.__name__} is defined")
    func = _function_def(fn, src)
    local_line = lineno - first + 1
    stmt = next((s for s in ast.walk(func) if isinstance(s, ast.stmt)
                 and not isinstance(s, ast.FunctionDef) and s.lineno == local_line
                 and s.end_lineno == local_line), None)
    if stmt is None:
        raise RewriteError(f"line {lineno} is not one whole statement")
    transformer = _NumpyCalls(local_line, numpy_names, torch_name)
    new_stmt = transformer.visit(stmt)
    if not transformer.replaced:
        raise RewriteError(f"no NumPy call on line {lineno}")
    lines = src.splitlines()
    line = lines[local_line - 1]
    indent = line[: len(line) - len(line.lstrip())]
    before = line.strip()
    after = ast.unparse(new_stmt)
    lines[local_line - 1] = indent + after
    changes = [(lineno, before, after)]
    if (isinstance(new_stmt, ast.Assign) and len(new_stmt.targets) == 1
            and isinstance(new_stmt.targets[0], ast.Name)):
        name = new_stmt.targets[0].id
        for pattern in (f"{torch_name}.{f}({name})" for f in _FROM_NUMPY):
            for i in range(local_line, len(lines)):
                if pattern in lines[i]:
                    old = lines[i].strip()
                    lines[i] = lines[i].replace(pattern, name)
                    changes.append((first + i, old, lines[i].strip()))
    new = _build(fn, "\n".join(lines) + "\n", first)
    return Rewrite(new, lineno, before, after, changes)
