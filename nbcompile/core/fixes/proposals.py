"""What ``suggest()`` proposes: the baseline's problems (each break once, placed on the
user's own line; its recompiles) and, per problem, the changes to try (a setting, a
``%%compile`` option, a rewrite of the user's line) with the trial that tries each."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import torch

from .. import torch_compat
from ..frames import is_cell_file
from ..notebook.cells.cell_names import name_cells
from ..records import GraphBreak
from ..runs.wrappers import eager_callable
from .record import Measured, Problem, Suggestion
from .rewrites import Rewrite, RewriteError, branch_to_where, keep_as_tensor, numpy_to_torch
from .trials import Trial

_ITEM = re.compile(r"\.item\(\)|Tensor\.item|capture_scalar_outputs|_local_scalar_dense")
_LOGGING = re.compile(r"\bprint\b|logging|reorderable_logging", re.IGNORECASE)
_SCALAR_CALL = re.compile(r"\.item\(\)|\b(float|int)\(")
_BRANCH = re.compile(r"data-dependent branching|generic_jump|dynamic control flow", re.IGNORECASE)
_NUMPY = re.compile(r"numpy function|\bnumpy\b", re.IGNORECASE)
_NUMPY_CALL = re.compile(r"\b(np|numpy)\.\w+\(")
_LOG_FUNCTIONS = (print,)


def _own_files(fn: Any) -> set[str]:
    code = getattr(eager_callable(fn), "__code__", None)
    if isinstance(fn, torch.nn.Module):
        code = getattr(type(fn).forward, "__code__", None)
    return {code.co_filename} if code is not None else set()


def find_problems(fn: Any, breaks: list[GraphBreak], baseline: Measured) -> list[Problem]:
    own = _own_files(fn)
    seen: set[tuple[str, str | None, int | None]] = set()
    problems: list[Problem] = []
    for gb in breaks:
        mine = [f for f in gb.stack if f.filename in own or is_cell_file(f.filename)]
        where = mine[-1] if mine else None
        innermost = gb.stack[-1] if gb.stack else None
        in_library = innermost is not None and where is not innermost
        key = (gb.reason, where.filename if where else None, where.lineno if where else None)
        if key in seen:
            continue
        seen.add(key)
        problems.append(Problem(
            "graph_break", name_cells(gb.reason), where.filename if where else gb.filename,
            where.lineno if where else gb.lineno, (where.line if where else gb.line).strip(),
            in_library))
    if baseline.recompiles:
        problems.append(Problem(
            "recompile", f"{baseline.recompiles} recompile(s) over the replayed calls"))
    return problems


def _changing_dims(calls: list[tuple[tuple, dict]]) -> list[tuple[int, int]]:
    """(argument index, dim) of tensor sizes that change between calls."""
    dims: list[tuple[int, int]] = []
    first = calls[0][0]
    for i, a in enumerate(first):
        if not isinstance(a, torch.Tensor):
            continue
        shapes = [c[0][i].shape for c in calls
                  if len(c[0]) > i and isinstance(c[0][i], torch.Tensor)]
        if any(len(s) != a.dim() for s in shapes):
            continue
        dims += [(i, d) for d in range(a.dim()) if len({s[d] for s in shapes}) > 1]
    return dims


def _rank_changes(calls: list[tuple[tuple, dict]]) -> bool:
    """Whether a tensor argument's number of dimensions changes between calls."""
    first = calls[0][0]
    return any(
        isinstance(a, torch.Tensor)
        and any(len(c[0]) > i and isinstance(c[0][i], torch.Tensor) and c[0][i].dim() != a.dim()
                for c in calls)
        for i, a in enumerate(first))


def propose(fn: Any, problem: Problem, calls: list[tuple[tuple, dict]]
               ) -> list[tuple[Suggestion, Trial | None]]:
    out: list[tuple[Suggestion, Trial | None]] = []
    if problem.kind == "recompile":
        if not _rank_changes(calls):  # dynamic shapes cannot make the number of dims symbolic
            out.append((Suggestion(
                problem, "option", "%%compile --dynamic   # torch.compile(fn, dynamic=True)",
                note="dynamic shapes give up kernels specialised to each size"),
                Trial(dynamic=True)))
        dims = _changing_dims(calls)
        if dims and torch_compat.MARK_DYNAMIC.present():
            change = "\n".join(f"torch._dynamo.mark_dynamic(arg{i}, {d})  # argument {i}"
                               for i, d in dims)
            out.append((Suggestion(
                problem, "setting", change,
                note="marks only the sizes that change; on every call's input"),
                Trial(mark_dynamic=dims)))
        ints = _changing_ints(calls)
        if ints:
            names = _param_names(fn)
            shown = ", ".join(names[i] if i < len(names) else f"arg{i}" for i in ints)
            out.append((Suggestion(
                problem, "rewrite",
                f"# pass {shown} as a 0-d tensor, e.g. torch.tensor({shown.split(', ')[0]})",
                note="a Python int is specialised on its value (a recompile per new value); "
                     "a tensor's value is data, so one compiled version serves them all"),
                Trial(tensor_args=ints)))
        limit, key = torch_compat.recompile_limit(), torch_compat.recompile_limit_key()
        if problem.reason and _recompiles_of(problem) >= limit:
            out.append((Suggestion(
                problem, "setting", f"torch._dynamo.config.{key} = {limit * 4}",
                note="more compiled versions kept; each costs a compile and memory"),
                Trial(config={key: limit * 4})))
        return out
    reason = problem.reason
    if _ITEM.search(reason) and torch_compat.has_dynamo_config("capture_scalar_outputs"):
        out.append((Suggestion(
            problem, "setting", "torch._dynamo.config.capture_scalar_outputs = True",
            note="the scalar stays a symbolic value in the graph"),
            Trial(config={"capture_scalar_outputs": True})))
    logging_funcs = torch_compat.reorderable_logging_functions()
    if logging_funcs is not None and (_LOGGING.search(reason)
                                      or re.search(r"\bprint\(", problem.line)):
        funcs = logging_funcs | set(_LOG_FUNCTIONS)
        out.append((Suggestion(
            problem, "setting",
            "torch._dynamo.config.reorderable_logging_functions.add(print)",
            note="print runs after the graph, with the final values of its arguments"),
            Trial(config={"reorderable_logging_functions": funcs})))
    if problem.in_library:
        out.append((Suggestion(
            problem, "option",
            f"torch.compiler.disable(...) around the library call on line {problem.lineno}: "
            f"{problem.line}",
            note="the library call then always runs in Python (the graph is still split "
                 "there); never a rewrite of library code. Not tried: it changes your code "
                 "and removes no break."), None))
    elif problem.lineno is not None:
        for pattern, line_pattern, rewrite, what, note in _REWRITES:
            if pattern.search(reason) and (line_pattern is None
                                           or line_pattern.search(problem.line)):
                out.append(_rewrite_proposal(fn, problem, rewrite, what, note))
                break
    return out


#: Rewrites of the user's own line: (reason pattern, line pattern or None, rewrite,
#: what it does when it cannot be tried, what it costs).
_REWRITES: list[tuple[re.Pattern[str], re.Pattern[str] | None, Callable[[Any, int], Rewrite],
                      str, str]] = [
    (_ITEM, _SCALAR_CALL, keep_as_tensor, "keep the value as a tensor",
     "the value stays a tensor (no Python number), so tracing goes on"),
    (_BRANCH, None, branch_to_where, "select with torch.where instead of branching",
     "torch.where computes both sides and selects elementwise: one graph, no branch"),
    (_NUMPY, _NUMPY_CALL, numpy_to_torch, "the torch function instead of the NumPy call",
     "the same computation on the tensor, which Dynamo traces"),
]


def _rewrite_proposal(fn: Any, problem: Problem, rewrite: Callable[[Any, int], Rewrite],
                      what: str, note: str) -> tuple[Suggestion, Trial | None]:
    assert problem.lineno is not None
    try:
        done = rewrite(fn, problem.lineno)
    except RewriteError as e:
        return Suggestion(problem, "rewrite", what, note=f"not tried: {e}"), None
    return Suggestion(problem, "rewrite", done.diff(), note=note), Trial(function=done.fn)


def _param_names(fn: Any) -> list[str]:
    code = getattr(eager_callable(fn), "__code__", None)
    if isinstance(fn, torch.nn.Module):
        code = getattr(type(fn).forward, "__code__", None)
        names = list(code.co_varnames[1:code.co_argcount]) if code else []
        return names
    return list(code.co_varnames[:code.co_argcount]) if code else []


def _changing_ints(calls: list[tuple[tuple, dict]]) -> list[int]:
    """Indexes of positional arguments that are Python ints whose value changes."""
    first = calls[0][0]
    out = []
    for i, a in enumerate(first):
        if type(a) is not int:
            continue
        values = {c[0][i] for c in calls if len(c[0]) > i and type(c[0][i]) is int}
        if len(values) > 1:
            out.append(i)
    return out


def _recompiles_of(problem: Problem) -> int:
    m = re.match(r"(\d+)", problem.reason)
    return int(m.group(1)) if m else 0
