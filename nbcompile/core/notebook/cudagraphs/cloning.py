"""torch's own remedy for a CUDA-graph output held across generations, in its words.

torch 2.15 adds ``torch._inductor.config.triton.cudagraph_trees_generation_cloning``: set to
``"user_visible"``, the tree manager copies the live user-visible outputs out of its pool
when a new generation starts (``_clone_current_path_live_user_visible_outputs``) and drops
them from the tensors its graphs hand back (``cached_tensor_outputs``): nothing is
overwritten or marked, no replay writes into them, and the doctor, which reads torch's
marks and cached outputs, says nothing. Its overwrite message names it
(``format_dealloc_msg``: "... or set torch._inductor.config.triton.
cudagraph_trees_generation_cloning = 'user_visible' to clone all user-visible tensors that
persist across generations.").

The setting is read from the running torch's own message, never from a version number: a
torch whose message names none (2.13's offers only a copy) gets none offered. torch reads
it when it compiles a graph (``output_code.py`` keeps a graph's user-visible outputs only
while it is set), so a graph compiled before it was set still overwrites.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace

from ... import torch_compat

#: torch's sentence that offers the setting: ``set <config path> = <value> to <what it does>.``
_OFFER = re.compile(r"\bset (?P<setting>torch\._inductor\.config\.[\w.]+) = "
                    r"(?P<value>'[^']*'|\"[^\"]*\") to (?P<does>[^.]+)\.")
#: Where Inductor's ``config.triton`` settings are, as torch's message names them.
_TRITON = "torch._inductor.config.triton."


@dataclass(frozen=True)
class Cloning:
    """torch's setting that keeps outputs across generations, as its message words it."""

    setting: str  # ``torch._inductor.config.triton.cudagraph_trees_generation_cloning``
    value: str  # ``'user_visible'``, as torch's message writes it
    does: str  # torch's words: ``clone all user-visible tensors that persist across ...``
    on: bool = False  # the running torch has it set to that value now

    @property
    def assignment(self) -> str:
        """``torch._inductor.config.triton.<name> = 'user_visible'``."""
        return f"{self.setting} = {self.value}"


def parse(text: str) -> Cloning | None:
    """The setting torch's overwrite message offers (None: it offers none)."""
    found = _OFFER.search(text)
    if found is None:
        return None
    return Cloning(found.group("setting"), found.group("value"),
                   " ".join(found.group("does").split()))


def is_set(cloning: Cloning) -> bool:
    """Whether the running torch has the setting at the value its message names (a
    ``config.triton`` setting; any other is not read: not known, taken as not set)."""
    if not cloning.setting.startswith(_TRITON):
        return False
    triton = torch_compat.inductor_triton_config()
    try:
        wanted = ast.literal_eval(cloning.value)
    except (ValueError, SyntaxError):
        return False
    name = cloning.setting[len(_TRITON):]
    return triton is not None and hasattr(triton, name) and getattr(triton, name) == wanted


def running() -> Cloning | None:
    """The setting the running torch's overwrite message offers, and whether it is on
    (None: this torch offers none)."""
    found = parse(torch_compat.cudagraph_overwrite_message())
    return replace(found, on=is_set(found)) if found is not None else None
