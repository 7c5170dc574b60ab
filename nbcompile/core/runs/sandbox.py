"""Run a user's callable many times without changing the user's objects.

``Sandbox(fn, args, kwargs)`` gives the calls their own copies of the tensor inputs
(``sandbox.args`` / ``sandbox.kwargs``), saves the state tensors the call can reach
(parameters and buffers of ``fn`` if it is a module, of modules passed as arguments, and
of modules and tensors named by ``fn``'s code in its globals or closure), the ``.grad``
of those parameters, the state of optimizers named the same way (a training step), and
the RNG states. ``reset()`` puts inputs, state and RNG back to where they started (so every
candidate of a comparison runs from the same point); ``restore()`` gives the user back
their state and RNG. The saved state costs one copy of those tensors.
``captured_output()`` swallows what the function prints and counts the lines.
"""

from __future__ import annotations

import contextlib
import io
import sys
import types
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import torch

from ..torch_compat import orig_callable, tensor_version, tree_leaves, tree_map
from .produced import Produced


def _copy_input(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().clone().requires_grad_(value.requires_grad)
    return value


def _roots(fn: Any, args: tuple, kwargs: dict) -> list[Any]:
    """``fn``, module arguments, and what ``fn``'s code names in its globals or closure."""
    return [root for _, root in _named_roots(fn, args, kwargs)]


def _named_roots(fn: Any, args: tuple, kwargs: dict) -> list[tuple[str, Any]]:
    """``_roots`` with a name each: "" for ``fn`` itself, ``args[0]``, a global's or a
    closure variable's name."""
    roots: list[tuple[str, Any]] = [("", fn)]
    roots += [(label, a) for label, a in _labels(args, kwargs)
              if isinstance(a, torch.nn.Module)]
    func = orig_callable(fn)
    if isinstance(func, types.MethodType):
        roots.append(("", func.__self__))
        func = func.__func__
    if isinstance(func, types.FunctionType):
        names = func.__code__.co_names
        roots += [(n, func.__globals__[n]) for n in names if n in func.__globals__]
        roots += [(name, c.cell_contents) for name, c in
                  zip(func.__code__.co_freevars, func.__closure__ or (), strict=False)
                  if _filled(c)]
    return roots


def reachable_state(fn: Any, args: tuple, kwargs: dict) -> dict[int, torch.Tensor]:
    """Tensors a call of ``fn(*args, **kwargs)`` can change in place, by ``id``."""
    return {id(t): t for t in named_state(fn, args, kwargs).values()}


def named_state(fn: Any, args: tuple, kwargs: dict) -> dict[str, torch.Tensor]:
    """Tensors a call of ``fn(*args, **kwargs)`` can change in place, each once, by a label
    saying what it is: ``parameter fc.weight``, ``buffer model.bn.running_mean``,
    ``tensor ema`` (a global or closure tensor)."""
    found: dict[str, torch.Tensor] = {}
    seen: set[int] = set()
    for root_name, root in _named_roots(fn, args, kwargs):
        prefix = f"{root_name}." if root_name else ""
        if isinstance(root, torch.nn.Module):
            named = [(f"parameter {prefix}{n}", t) for n, t in root.named_parameters()]
            named += [(f"buffer {prefix}{n}", t) for n, t in root.named_buffers()]
        elif isinstance(root, torch.Tensor):
            named = [(f"tensor {root_name or 'state'}", root)]
        else:
            continue
        for label, tensor in named:
            if id(tensor) not in seen:
                seen.add(id(tensor))
                found[label] = tensor
    return found


def reachable_optimizers(fn: Any, args: tuple, kwargs: dict) -> list[torch.optim.Optimizer]:
    """Optimizers ``fn``'s code names (a training step's ``opt.step()`` changes them)."""
    roots = _roots(fn, args, kwargs)
    return [r for r in roots if isinstance(r, torch.optim.Optimizer)]


def storages_of(tensors: Iterable[Any]) -> set[int]:
    """Data pointers of the storages of ``tensors`` (and of their ``.grad``)."""
    found: set[int] = set()
    for t in tensors:
        if not isinstance(t, torch.Tensor):
            continue
        for x in (t, t.grad):
            if isinstance(x, torch.Tensor):
                try:
                    found.add(x.untyped_storage().data_ptr())
                except (RuntimeError, NotImplementedError):
                    pass
    return found


def _clone_state(state: dict[Any, Any]) -> dict[Any, Any]:
    return {k: v.detach().clone() if isinstance(v, torch.Tensor) else v
            for k, v in state.items()}


def _filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - raises ValueError when empty
    except ValueError:
        return False
    return True


def _leaves(args: tuple, kwargs: dict) -> list[Any]:
    return tree_leaves((args, kwargs))


def _labels(args: tuple, kwargs: dict) -> list[tuple[str, Any]]:
    """``("args[0]", leaf)`` pairs for each tensor input (nested ones get a path)."""
    out: list[tuple[str, Any]] = []
    for i, a in enumerate(args):
        out += _labelled(f"args[{i}]", a)
    for k, v in kwargs.items():
        out += _labelled(f"kwargs[{k!r}]", v)
    return out


def _labelled(label: str, value: Any) -> list[tuple[str, Any]]:
    leaves = tree_leaves(value)
    if len(leaves) == 1 and leaves[0] is value:
        return [(label, value)]
    return [(f"{label}[{j}]", leaf) for j, leaf in enumerate(leaves)]


class _LineCounter(io.TextIOBase):
    """A text stream that keeps nothing but the number of lines written to it."""

    def __init__(self) -> None:
        self.lines = 0
        self._open_line = False

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if text:
            self.lines += text.count("\n")
            self._open_line = not text.endswith("\n")
        return len(text)

    @property
    def total(self) -> int:
        return self.lines + int(self._open_line)


class Sandbox:
    """Copies of the inputs, saved state and RNG for repeated calls of ``fn``."""

    def __init__(self, fn: Callable[..., Any], args: tuple, kwargs: dict) -> None:
        self.args: tuple = tuple(tree_map(_copy_input, list(args)))
        self.kwargs: dict = tree_map(_copy_input, dict(kwargs))
        self._inputs = [(label, t) for label, t in _labels(self.args, self.kwargs)
                        if isinstance(t, torch.Tensor)]
        with torch.no_grad():
            self._pristine = [t.detach().clone() for _, t in self._inputs]
            named = named_state(fn, tuple(args), dict(kwargs))
            state = named.values()
            self._state = [(t, t.detach().clone()) for t in state]
            self._state_labels = list(named)
            self._grads = [(t, None if t.grad is None else t.grad.detach().clone())
                           for t in state if isinstance(t, torch.nn.Parameter)
                           or (t.requires_grad and t.is_leaf)]  # a plain leaf weight too
            self._optimizers = [(o, {p: _clone_state(st) for p, st in o.state.items()})
                                for o in reachable_optimizers(fn, tuple(args), dict(kwargs))]
        self._versions = [tensor_version(t) for _, t in self._inputs]
        self._rng = _rng_state()
        self.printed_lines = 0

    def reset(self) -> None:
        """Inputs, reachable state and RNG back to where the sandbox started."""
        with torch.no_grad():
            for (_, t), saved in zip(self._inputs, self._pristine, strict=True):
                t.copy_(saved)
            self._restore_state()
        self._versions = [tensor_version(t) for _, t in self._inputs]
        _set_rng_state(self._rng)

    def restore(self) -> None:
        """Give the user back their state tensors and RNG as they were."""
        with torch.no_grad():
            self._restore_state()
        _set_rng_state(self._rng)

    def _restore_state(self) -> None:
        for tensor, saved in self._state:
            if not torch.equal(tensor, saved) or tensor.dtype != saved.dtype:
                tensor.copy_(saved)
        for param, grad in self._grads:
            param.grad = None if grad is None else grad.clone()
        for optimizer, saved_state in self._optimizers:
            optimizer.state.clear()  # a defaultdict: steps taken by the calls go away
            optimizer.state.update({p: _clone_state(st) for p, st in saved_state.items()})

    def mutated_inputs(self) -> list[str]:
        """Labels of the input copies changed in place since the last ``reset()``."""
        return [label for (label, t), v in zip(self._inputs, self._versions, strict=True)
                if tensor_version(t) != v]

    def changed_state(self) -> list[str]:
        """Labels of the state tensors (parameters, buffers, tensors the code names) whose
        values differ from those the sandbox started with (NaN matching NaN)."""
        return [label for label, (tensor, saved) in zip(self._state_labels, self._state,
                                                        strict=True)
                if not _same_values(tensor, saved)]

    def state_named(self, labels: list[str]) -> list[tuple[str, torch.Tensor]]:
        """``(label, tensor)`` of the state tensors with those labels."""
        found = {label: t for label, (t, _) in zip(self._state_labels, self._state,
                                                   strict=True)}
        return [(label, found[label]) for label in labels if label in found]

    def produced(self, output: Any, mutated: list[str], state: list[str]) -> Produced:
        """What the call just made produced: ``output``, the inputs labelled ``mutated``
        and the state tensors labelled ``state`` (as they are now), whether it drew
        random numbers since the last ``reset()``."""
        return Produced.of(output, list(zip(mutated, self.inputs_named(mutated), strict=True)),
                           self.state_named(state), self.rng_used())

    def held_storages(self) -> set[int]:
        """Storages in use before any call: the input copies, the state tensors the call
        can reach and their gradients (a forward that saves them for backward keeps
        nothing new)."""
        return storages_of([t for _, t in self._inputs] + [t for t, _ in self._state])

    def inputs_named(self, labels: list[str]) -> list[torch.Tensor]:
        found = dict(self._inputs)
        return [found[label] for label in labels]

    def rng_used(self) -> bool:
        """Whether a call since the last ``reset()`` drew random numbers."""
        return not _rng_equal(_rng_state(), self._rng)

    @contextlib.contextmanager
    def captured_output(self) -> Iterator[None]:
        """Swallow stdout/stderr writes inside the block, counting the lines."""
        counter = _LineCounter()
        try:
            with contextlib.redirect_stdout(counter), contextlib.redirect_stderr(counter):
                yield
        finally:
            sys.stdout.flush()
            self.printed_lines += counter.total


def _same_values(tensor: torch.Tensor, saved: torch.Tensor) -> bool:
    if tensor.shape != saved.shape or tensor.dtype != saved.dtype:
        return False
    if torch.equal(tensor, saved):
        return True
    floating = saved.is_floating_point() or saved.is_complex()
    return floating and bool(torch.allclose(tensor, saved, rtol=0.0, atol=0.0, equal_nan=True))


def _rng_state() -> tuple[torch.Tensor, list[torch.Tensor]]:
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else []
    return torch.get_rng_state(), cuda


def _set_rng_state(state: tuple[torch.Tensor, list[torch.Tensor]]) -> None:
    cpu, cuda = state
    torch.set_rng_state(cpu)
    if cuda:
        torch.cuda.set_rng_state_all(cuda)


def _rng_equal(a: tuple[torch.Tensor, list[torch.Tensor]],
               b: tuple[torch.Tensor, list[torch.Tensor]]) -> bool:
    return torch.equal(a[0], b[0]) and len(a[1]) == len(b[1]) and all(
        torch.equal(x, y) for x, y in zip(a[1], b[1], strict=True))
