"""The ``%repro`` offer of a command that leaves the problem to PyTorch (``%suggest``
with no change that helped, ``%diagnose`` with a crash in a layer or a compiled result
less accurate than eager's): the call as the user writes it, named as nbcompile knows
the target. The wording is ``insight/diagnose_hint.py``'s."""

from __future__ import annotations

from typing import Any

import torch

from ..insight.diagnose_hint import repro_offer, required_params
from ..notebook.capture.session import get_session


def offer(fn: Any, fact: str, why: str) -> str:
    """The note offering ``%repro ... --fact fact`` for ``fn``'s call, after ``why``."""
    found = get_session().find(fn)
    name = found.name if found is not None else (
        getattr(fn, "__name__", None) or type(fn).__name__)
    signed = fn.forward if isinstance(fn, torch.nn.Module) else fn
    return repro_offer(name, required_params(signed), fact, why, found is not None)
