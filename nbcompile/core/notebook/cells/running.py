"""Running a cell's code and finding what it defined: no IPython here, only Python."""

from __future__ import annotations

import ast
import os
import sys
import types
from collections.abc import Iterable, Mapping
from typing import Any

import torch

from ... import torch_compat
from ...frames import is_library_file, is_torch_file
from ..targets.compiling import is_candidate, submodule_ids


def bound_names(source: str) -> set[str]:
    """Names a cell's top level binds (def, class, assignment, import, for, with ...)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names: set[str] = set()

    class Binder(ast.NodeVisitor):
        def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
            names.add(node.name)

        visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

        def visit_ClassDef(self, node: ast.ClassDef) -> None:
            names.add(node.name)

        def visit_Lambda(self, node: ast.Lambda) -> None:
            pass

        def visit_comprehension(self, node: ast.comprehension) -> None:
            # its loop variable is the comprehension's own (a walrus in it binds the cell's)
            for part in (node.iter, *node.ifs):
                self.visit(part)

        def visit_Name(self, node: ast.Name) -> None:
            if isinstance(node.ctx, ast.Store):
                names.add(node.id)

        def visit_alias(self, node: ast.alias) -> None:
            names.add((node.asname or node.name).split(".")[0])

    Binder().visit(tree)
    return names


def snapshot(namespace: Mapping[str, Any]) -> dict[str, int]:
    """Identity of every value in a namespace, to diff after the cell ran."""
    return {name: id(value) for name, value in namespace.items()}


def defined_names(before: Mapping[str, int], namespace: Mapping[str, Any],
                  source: str) -> list[str]:
    """Names the cell defined or rebound, in namespace order: those new or holding a
    different object, and those its code assigns even to the object they held
    (``model = model``: a model built in an earlier cell, compiled by this one)."""
    assigned = bound_names(source)
    return [n for n, v in namespace.items() if before.get(n) != id(v) or n in assigned]


def find_targets(
    names: Iterable[str], namespace: Mapping[str, Any], module_name: str
) -> tuple[list[str], list[str]]:
    """Split changed names into targets and notes about what was skipped.

    Modules that are submodules of another target are skipped: PyTorch advises
    compiling the highest-level module, and the parent's compile covers them.
    """
    candidates = [n for n in names if is_candidate(n, namespace[n], module_name)]
    modules = [namespace[n] for n in candidates if isinstance(namespace[n], torch.nn.Module)]
    inner = submodule_ids(modules)
    targets: list[str] = []
    notes: list[str] = []
    for name in candidates:
        if id(namespace[name]) in inner:
            notes.append(f"{name} is part of another compiled module; compiled through its parent.")
        elif any(namespace[name] is namespace[t] for t in targets):
            notes.append(f"{name} is the same object as an earlier target; compiled once.")
        else:
            targets.append(name)
    return targets, notes


def module_functions(names: Iterable[str], namespace: Mapping[str, Any],
                     module_name: str) -> list[str]:
    """Notes on the names the cell bound to a function of a module file of the user's
    (``f = mymod.f``): not compiled (a cell's targets are what it defines), with how to
    compile it. Functions of torch, Python's library and installed packages are left
    unsaid."""
    notes: list[str] = []
    for name in names:
        value = namespace.get(name)
        if name.startswith("_") or not isinstance(value, types.FunctionType) or \
                is_candidate(name, value, module_name):
            continue
        original = torch_compat.orig_callable(value)
        module = sys.modules.get(getattr(original, "__module__", None) or "")
        path = getattr(module, "__file__", None) or ""
        if module is None or module.__name__ == module_name or not path or \
                is_library_file(path) or is_torch_file(path):
            continue
        qualname = getattr(original, "__qualname__", name)
        notes.append(f"{name} is {module.__name__}.{qualname}, a function of module "
                     f"{module.__name__} ({os.path.basename(path)}), not defined in this "
                     "cell: %%compile compiles the functions and nn.Modules a cell "
                     f"defines. To compile it: {name} = torch.compile({module.__name__}."
                     f"{qualname}), or define it in the cell.")
    return notes


def split_last_expression(source: str, filename: str, flags: int = 0) -> tuple[Any, Any]:
    """Compile a cell to (exec code, eval code of its last expression or None)."""
    tree = ast.parse(source, filename=filename)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body[-1].value)
        tree.body.pop()
    body = compile(tree, filename, "exec", flags=flags, dont_inherit=True)
    tail = compile(last, filename, "eval", flags=flags, dont_inherit=True) if last else None
    return body, tail


def _global_names(code: Any) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _global_names(const)
    return names


def module_users(targets: list[str], namespace: Mapping[str, Any]) -> dict[str, list[str]]:
    """Module target name -> the function targets of the same cell that call it."""
    functions = {n: namespace[n] for n in targets if hasattr(namespace[n], "__code__")}
    out: dict[str, list[str]] = {}
    for name in targets:
        if not isinstance(namespace[name], torch.nn.Module):
            continue
        users = [f for f, fn in functions.items() if name in _global_names(fn.__code__)]
        if users:
            out[name] = users
    return out


def usage_notes(targets: list[str], namespace: Mapping[str, Any]) -> dict[str, str]:
    """Notes for module targets that function targets of the same cell call.

    A module used inside a compiled function (e.g. a training step) compiles as part of
    that function's graph; its own compiled entry only runs when it is called directly.
    """
    notes: dict[str, str] = {}
    for name, users in module_users(targets, namespace).items():
        if users:
            notes[name] = (
                f"{name} is used inside {', '.join(users)}: calls through "
                f"{users[0]} compile it as part of that graph (so {name} itself may stay "
                "'waiting for first call'); it compiles on its own when called directly."
            )
    return notes


def running_cell(filename_map: Mapping[str, int], frame: types.FrameType | None) -> int | None:
    """The ``In [N]`` number of the innermost cell running, walking out from ``frame``: the
    first frame whose code filename IPython gave a cell (``filename_map``); else None."""
    while frame is not None:
        number = filename_map.get(frame.f_code.co_filename)
        if number is not None:
            return number
        frame = frame.f_back
    return None
