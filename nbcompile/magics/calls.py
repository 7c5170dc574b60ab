"""Evaluate a line magic's call expression (``f(x, y=2)``) in the user's namespace."""

from __future__ import annotations

import ast
from typing import Any

from IPython.core.error import UsageError


def evaluate_call(shell: Any, expr: str, magic: str, purpose: str
                  ) -> tuple[Any, list[Any], dict[str, Any]]:
    """``(callable, args, kwargs)`` of ``expr``; a ``UsageError`` naming ``magic`` if bad."""
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError as e:
        raise UsageError(f"{magic}: not a Python expression: {expr!r} ({e.msg})") from None
    call = tree.body
    if not isinstance(call, ast.Call):
        raise UsageError(f"{magic} needs a call such as f(x), not {expr!r}: {purpose}")
    fn = _eval(shell, call.func, expr, magic)
    if not callable(fn):
        raise UsageError(f"{magic}: {ast.unparse(call.func)} is a "
                         f"{type(fn).__name__}, not a function or module")
    args: list[Any] = []
    for node in call.args:
        if isinstance(node, ast.Starred):
            args.extend(_eval(shell, node.value, expr, magic))
        else:
            args.append(_eval(shell, node, expr, magic))
    kwargs: dict[str, Any] = {}
    for kw in call.keywords:
        if kw.arg is None:
            kwargs.update(_eval(shell, kw.value, expr, magic))
        else:
            kwargs[kw.arg] = _eval(shell, kw.value, expr, magic)
    return fn, args, kwargs


def _eval(shell: Any, node: ast.expr, expr: str, magic: str) -> Any:
    code = compile(ast.Expression(node), f"<{magic}>", "eval")
    try:
        return eval(code, shell.user_global_ns, shell.user_ns)  # noqa: S307
    except Exception as e:
        raise UsageError(
            f"{magic}: could not evaluate {ast.unparse(node)} in {expr!r}: "
            f"{type(e).__name__}: {e}"
        ) from None
