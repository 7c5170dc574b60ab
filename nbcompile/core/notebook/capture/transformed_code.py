"""The side channel of Dynamo's transformed code: what torch runs in place of each frame a
target compiles (``CompileRecord.runs_as``), heard through torch's bytecode hook.

The hook runs once per frame compile, inside it (nothing per call): it keeps the new code
under the compile's id; when that compile's record closes, the code becomes its
``runs_as`` (decompiled source and steps, ``core/trace/runs_as.py``) and is dropped. A
compile that made no code (Dynamo gave the frame up) gets a ``runs_as`` saying so.
"""

from __future__ import annotations

import types
from collections import OrderedDict
from typing import Any

from ... import torch_compat
from ...records import CompileRecord, RunsAs
from ...trace.builder import Fed
from ...trace.runs_as import NO_NEW_CODE, runs_as
from ..targets.target_state import Target, user_functions
from .attribution import Key
from .channels import Notes, SideChannel
from .torch_logs import current_compile

#: Compiles whose code is kept while their record is built (a compile that never closes,
#: e.g. one of a frame no target owns that raised, is dropped oldest first).
KEPT = 32


class TransformedCode(SideChannel):
    """Dynamo's new code per frame compile, turned into the record's ``runs_as``."""

    def __init__(self) -> None:
        self._codes: OrderedDict[Key, tuple[types.CodeType, types.CodeType]] = OrderedDict()
        self._handle: Any = None

    def start(self) -> None:
        if self._handle is None:
            self._handle = torch_compat.register_bytecode_hook(self._heard)

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
        self._codes.clear()

    def _heard(self, code: types.CodeType, new_code: types.CodeType) -> None:
        """torch's bytecode hook: returns None (torch keeps its code as it is)."""
        key = current_compile()
        if key is None:
            return
        self._codes[key] = (code, new_code)
        while len(self._codes) > KEPT:
            self._codes.popitem(last=False)

    def compile_finished(self, key: Key, fed: Fed, record: CompileRecord,
                         owners: list[Target]) -> Notes:
        codes = self._codes.pop(key, None)
        if codes is None and owners and self._handle is not None and not record.graphs:
            # torch calls the hook for every compile that makes new code: one unheard made
            # none (Dynamo gave the frame up; torch 2.9 marks a skip "ok", later ones
            # "failed"), and the frame keeps its own code (no cache entry of this compile)
            record.runs_as = RunsAs(problem=NO_NEW_CODE)
        if codes is None or not owners:
            return {}
        original, new_code = codes
        record.runs_as = runs_as(new_code, original, record, _resume_lookup(owners))
        return {}


def _resume_lookup(owners: list[Target]) -> Any:
    """The frame name of a resume function Dynamo installed in the owners' globals."""
    spaces = []
    for target in owners:
        module = target.compiled_module
        fns = ([type(module).forward] if module is not None else
               user_functions(target.original))
        spaces.extend(g for fn in fns if isinstance(g := getattr(fn, "__globals__", None), dict))

    def lookup(name: str) -> str | None:
        for space in spaces:
            fn = space.get(name)
            if isinstance(fn, types.FunctionType):
                return fn.__code__.co_name
        return None

    return lookup
