"""What a call produced, as compare, diagnose and suggest all judge it: its output (any
type: tensors, nested containers, NumPy arrays, Python numbers, objects that cannot be
compared), the inputs it changed in place, the module buffers and parameters (and other
state tensors it can reach) it changed, and whether it drew random numbers.

``Produced.leaves`` is one flat list (the output's leaves, then the changed inputs, then
the changed state tensors), each copied when the call returns; ``labels`` says what each
leaf is ("output", "output[1]", "args[0] (changed in place)", "buffer bn.running_mean").
A value that cannot be compared (a generator, an iterator, an arbitrary object without its
own ``==``) is kept as ``Opaque(type)``: never called equal or different.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from .. import torch_compat
from ..torch_compat import tree_leaves

#: Plain values compared with ``==`` whatever their type says.
_PLAIN: tuple[type, ...] = (type(None), bool, int, float, complex, str, bytes, torch.dtype,
                            torch.device, torch.layout, torch.memory_format)


@dataclass(frozen=True, eq=False)
class Opaque:
    """A value that cannot be compared: its type's name (``generator``, ``map``, ...)."""

    type_name: str

    def __repr__(self) -> str:
        return f"<not comparable: {self.type_name}>"


def _type_name(value: Any) -> str:
    kind = type(value)
    module = kind.__module__
    return kind.__qualname__ if module in ("builtins", None) else f"{module}.{kind.__qualname__}"


def _comparable(value: Any) -> bool:
    """Whether ``value == value`` says something: a plain value, or an object whose type
    defines its own ``==`` that answers with a bool (not identity, as a generator's)."""
    if isinstance(value, _PLAIN):
        return True
    if type(value).__eq__ is object.__eq__:
        return False
    try:
        return isinstance(value == value, bool)
    except Exception:  # an __eq__ that raises is no comparison
        return False


def snapshot_leaf(value: Any) -> Any:
    """One leaf as it is when the call returns: a tensor detached and copied (later calls
    may reuse its buffer), a NumPy array or scalar as a tensor (compared as arrays), a
    comparable value as it is, anything else ``Opaque``."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    numpy = sys.modules.get("numpy")  # a NumPy value exists only if NumPy is loaded
    if numpy is not None:
        if isinstance(value, numpy.ndarray):
            try:
                return torch.from_numpy(numpy.array(value, copy=True))
            except TypeError:  # object, string... arrays: no tensor dtype
                return Opaque(f"numpy.ndarray of {value.dtype}")
        if isinstance(value, numpy.generic):
            item = value.item()
            return item if isinstance(item, _PLAIN) else Opaque(_type_name(value))
    return value if _comparable(value) else Opaque(_type_name(value))


def snapshot(value: Any) -> list[Any]:
    """The leaves of ``value`` (nested containers flattened), each ``snapshot_leaf``."""
    return [snapshot_leaf(v) for v in tree_leaves(value)]


def output_labels(count: int) -> list[str]:
    return ["output"] if count == 1 else [f"output[{i}]" for i in range(count)]


@dataclass
class Produced:
    """What one call produced: its leaves (output, changed inputs, changed state) with
    their labels, and whether it drew random numbers."""

    leaves: list[Any] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    random: bool = False
    mutated: list[str] = field(default_factory=list)  # the inputs it changed in place
    state: list[str] = field(default_factory=list)  # the state tensors among the leaves

    @classmethod
    def of(cls, output: Any, inputs: Sequence[tuple[str, torch.Tensor]] = (),
           state: Sequence[tuple[str, torch.Tensor]] = (), random: bool = False) -> Produced:
        """``output``'s leaves, then ``inputs`` changed in place and ``state`` tensors
        changed, as ``(label, tensor)``, all copied now."""
        leaves = snapshot(output)
        labels = output_labels(len(leaves))
        for label, tensor in inputs:
            leaves.append(snapshot_leaf(tensor))
            labels.append(f"{label} (changed in place)")
        for label, tensor in state:
            leaves.append(snapshot_leaf(tensor))
            labels.append(label)
        return cls(leaves, labels, random, [label for label, _ in inputs],
                   [label for label, _ in state])

    def opaque(self) -> list[str]:
        """``"<label>: <type>"`` for each leaf that cannot be compared."""
        return [f"{label}: {leaf.type_name}" for label, leaf in zip(self.labels, self.leaves,
                                                                      strict=True)
                if isinstance(leaf, Opaque)]


def not_comparable(leaves: list[Any], labels: list[str] | None = None) -> list[str]:
    """``"not comparable: <type> (<label>)"`` for each ``Opaque`` leaf."""
    names = labels if labels is not None and len(labels) == len(leaves) else \
        output_labels(len(leaves))
    return [f"not comparable: {leaf.type_name} ({label})"
            for label, leaf in zip(names, leaves, strict=True) if isinstance(leaf, Opaque)]


def label_of(labels: list[str] | None, index: int, count: int) -> str:
    """The label of leaf ``index`` of ``count`` (``output[i]`` without labels)."""
    if labels is not None and len(labels) == count:
        return labels[index]
    return output_labels(count)[index]


# --- randomness, told by evidence ---------------------------------------------------------

#: The Inductor setting under which compiled code draws the random numbers eager draws (its
#: random ops run as eager's, not as Inductor's own generator): a call that differs from
#: eager without it and matches with it, from the same RNG state, differs by randomness.
FALLBACK_RANDOM: dict[str, Any] = {"fallback_random": True}
FALLBACK_RANDOM_CODE = "torch._inductor.config.fallback_random = True"


def can_draw_like_eager() -> bool:
    """Whether this torch has ``fallback_random`` (else randomness cannot be told apart)."""
    return torch_compat.FALLBACK_RANDOM.present()


def _gap(value: float | None) -> str:
    return "an unmeasurable amount" if value is None else f"{value:.3g}"


def randomness_words(before: float | None, after: float | None) -> str:
    """A call whose compiled copy matched eager once it drew eager's random numbers."""
    return (f"randomness, not an accuracy problem: the call draws random numbers, and "
            f"compiled code draws different ones from the same RNG state (it differs from "
            f"eager by up to {_gap(before)}); compiled again with {FALLBACK_RANDOM_CODE}, "
            f"from the same RNG state, it matches eager (max abs difference {_gap(after)})")


def not_randomness_words(after: float | None) -> str:
    """A call whose compiled copy still differs when it draws eager's random numbers."""
    return (f"the call draws random numbers, but that is not the whole difference: "
            f"compiled with {FALLBACK_RANDOM_CODE}, from the same RNG state (so it draws "
            f"eager's numbers), it still differs from eager by up to {_gap(after)}")


def no_fallback_words() -> str:
    return (f"not comparable: the call draws random numbers, compiled code draws different "
            f"ones, and this torch lacks {FALLBACK_RANDOM_CODE} to draw eager's numbers "
            "instead; no verdict")
