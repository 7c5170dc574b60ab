"""A module target in a script: its class defined from the notebook (the same needs
analysis as a function's), built by its constructor, its weights loaded from its
``state_dict`` saved beside the script. The constructor's arguments are not known in
general: it is called as the cell that built the module called it when that call holds
only literals, else with no arguments when it takes none; otherwise refused in words. A
build on the meta device checks that the constructor makes the same structure."""

from __future__ import annotations

import ast
import contextlib
import inspect
import io
import linecache
from dataclasses import dataclass
from typing import Any

import torch

#: What torch's own ``nn.Module`` keeps in an instance's ``__dict__`` (not the user's).
_TORCH_OWN = frozenset({"training", "_parameters", "_buffers", "_modules",
                        "_non_persistent_buffers_set",
                        "_backward_pre_hooks", "_backward_hooks", "_is_full_backward_hook",
                        "_forward_hooks", "_forward_hooks_with_kwargs",
                        "_forward_hooks_always_called", "_forward_pre_hooks",
                        "_forward_pre_hooks_with_kwargs", "_state_dict_hooks",
                        "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                        "_load_state_dict_post_hooks", "_compiled_call_impl"})


class NotBuilt(ValueError):
    """Why a module cannot be built in a script (in words)."""


@dataclass
class Built:
    """How the script builds the module: the constructor call, its train/eval mode, and
    the weights it loads (``state_dict``, detached)."""

    constructor: str
    training: bool
    state: dict[str, torch.Tensor]


def built(module: torch.nn.Module, cell_filename: str, names: list[str]) -> Built:
    """How a script builds ``module`` (held by ``names`` in the notebook, compiled in the
    cell ``cell_filename``); ``NotBuilt`` in words where it cannot."""
    cls = type(module)
    if getattr(cls, "__module__", None) != "__main__":
        raise NotBuilt(f"{cls.__qualname__} is not a class the notebook defines (a script "
                       "would import it, and a library's constructor arguments are not known)")
    call = _cell_call(cls, cell_filename, names)
    if call is None:
        try:
            inspect.signature(cls).bind()
        except (TypeError, ValueError):
            raise NotBuilt(f"{cls.__name__}'s constructor takes arguments, and the cell that "
                           "compiled it does not build it with literal arguments "
                           f"(`{names[0] if names else 'model'} = {cls.__name__}(...)`)") from None
        call = ((), {})
    args, kwargs = call
    if any(m.training != module.training for m in module.modules()):
        raise NotBuilt("its submodules are not all in the same train/eval mode: a script "
                       "sets one mode for the whole module")
    _check_structure(module, cls, args, kwargs)
    said = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])
    state = {k: v.detach() for k, v in module.state_dict().items()}
    return Built(f"{cls.__name__}({said})", module.training, state)


def _cell_call(cls: type, filename: str, names: list[str]
               ) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    """The arguments of ``NAME = Cls(literals...)`` in the cell, NAME one of ``names``
    (the last such statement), or None."""
    try:
        tree = ast.parse("".join(linecache.getlines(filename)))
    except SyntaxError:
        return None
    found = None
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id in names for t in node.targets)):
            continue
        call = node.value  # ``Cls(...)``, or ``Cls(...).to(...).eval()``: the weights,
        while (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
               and isinstance(call.func.value, ast.Call)):  # dtype, device and mode carried
            call = call.func.value
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id == cls.__name__):
            continue
        try:
            args = tuple(ast.literal_eval(a) for a in call.args)
            kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords
                      if k.arg is not None}
        except ValueError:
            continue
        if len(kwargs) == len(call.keywords):
            found = (args, kwargs)
    return found


def _check_structure(module: torch.nn.Module, cls: type, args: tuple[Any, ...],
                     kwargs: dict[str, Any]) -> None:
    """The constructor run on the meta device (no memory, the RNG put back, what it
    prints kept): the same weights' names and shapes, the same plain attributes."""
    try:
        with (torch.random.fork_rng(devices=[]), torch.device("meta"),
              contextlib.redirect_stdout(io.StringIO())):
            again = cls(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the constructor's failure, in words
        raise NotBuilt(f"{cls.__name__}{_said(args, kwargs)} fails when built again "
                       f"({type(e).__name__}: {str(e)[:120]})") from None
    shapes = {k: tuple(v.shape) for k, v in module.state_dict().items()}
    again_shapes = {k: tuple(v.shape) for k, v in again.state_dict().items()}
    if shapes != again_shapes:
        raise NotBuilt(f"{cls.__name__}{_said(args, kwargs)} builds other weights than the "
                       "notebook's module holds (names or shapes differ)")
    for sub_name, sub in module.named_modules():
        other = again.get_submodule(sub_name) if sub_name else again
        for attr, value in vars(sub).items():
            if attr in _TORCH_OWN:
                continue
            theirs = vars(other).get(attr, _MISSING)
            try:
                same = bool(theirs == value)
            except Exception:  # noqa: BLE001 - values that cannot be compared
                same = False
            if not same:
                where = f"{sub_name}.{attr}" if sub_name else attr
                raise NotBuilt(f"its attribute {where} is {value!r:.60} where "
                               f"{cls.__name__}{_said(args, kwargs)} makes "
                               f"{'none' if theirs is _MISSING else repr(theirs)[:60]}: a "
                               "script carries the constructor's arguments and the weights, "
                               "not attributes set later")


_MISSING = object()


def _said(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    return "(" + ", ".join([repr(a) for a in args]
                           + [f"{k}={v!r}" for k, v in kwargs.items()]) + ")"
