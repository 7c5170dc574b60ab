"""The side channel of compiles shared between targets, which torch does not repeat:

- a module target whose first call compiled nothing because it ran code compiled for
  another target (two modules of one class: one ``forward`` code, and torch's guards
  passed for this one too, as with two ``module.compile()`` calls): that compile is this
  target's too, said as such;
- a call that ran frames compiled during another target's call (a shared callee after a
  graph break): a note, since torch's record of this call has no such compiles.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING

from ...records import CompileRecord
from ...trace.builder import CompileBuilder
from ..targets.target_state import Target
from .attribution import Attribution
from .channels import Notes, SideChannel
from .registry import TargetRegistry

if TYPE_CHECKING:
    from ..targets.running import Call

#: The name Dynamo gives the code after a graph break: ``torch_dynamo_resume_in_<fn>_at_<n>``.
_RESUME = "torch_dynamo_resume_in_"


class SharedCompiles(SideChannel):
    """Compiles one target's call made and another's reused."""

    def __init__(self, registry: TargetRegistry, attribution: Attribution,
                 builder: CompileBuilder, notify: Callable[[Target], None],
                 lock: threading.RLock) -> None:
        self._registry = registry
        self._lock = lock  # the session's: a first call ends outside any trace event
        self._attribution = attribution
        self._builder = builder
        self._notify = notify

    def first_call_hook(self, target: Target) -> Callable[[], None]:
        """What a module target's first call tells (``module_call().first_done``): holds
        the target weakly (the module holds the hook; the target holds the module)."""
        ref = weakref.ref(target)

        def first_done() -> None:
            found = ref()
            if found is not None:
                with self._lock:
                    self._first_call_reused(found)
        return first_done

    def _first_call_reused(self, target: Target) -> None:
        module = target.compiled_module
        forward = getattr(getattr(type(module), "forward", None), "__code__", None)
        if target.compiles or forward is None or not self._registry.registered(target):
            return
        for other in reversed((*self._registry.targets, *self._registry.replaced)):
            if other is target:
                continue
            shared = [c for c in other.compiles if c.status != "failed"
                      and c.filename == forward.co_filename
                      and c.firstlineno == forward.co_firstlineno]
            if not shared:
                continue
            for record in shared:
                target.finish_compile(record)
            ids = ", ".join(c.compile_id for c in shared)
            target.notes.append(
                f"Its first call reused compile {ids}, made for `{other.name}`: the same "
                f"{type(module).__name__}.forward code, and torch's "
                "guards passed for this module too, so torch compiled nothing new.")
            self._notify(target)
            return

    def call_ended(self, call: Call, records: list[CompileRecord]) -> Notes:
        """A shared callee's frames this call reused, in words: one of the call's breaks
        is in a function whose frames were compiled during another target's call (the
        function is the compiled frame whose ``def`` is the nearest before the break's
        line), so torch ran those and compiled nothing for them now. A note: torch's
        record of this call has no such compiles, so they are not counted here."""
        target = call.target
        places = {(gb.filename, gb.lineno) for record in records for gb in record.graph_breaks
                  if gb.filename and gb.lineno}
        if not places:
            return {}
        mine = set(call.compiles)
        known = [(key, built.record, owners) for key, owners in self._attribution.claimed()
                 if (built := self._builder.built(key)) is not None]
        defs: dict[str, dict[int, str]] = {}  # file -> def line -> function (not resumes)
        for _, record, _ in known:
            if not record.frame.startswith(_RESUME):
                defs.setdefault(record.filename, {})[record.firstlineno] = record.frame
        own = {record.frame for record in records}
        callees = set()
        for filename, lineno in places:
            before = [n for n in defs.get(filename, {}) if n <= lineno]
            if before and (name := defs[filename][max(before)]) not in own:
                callees.add((filename, name))
        reused = [(record, owners[0]) for key, record, owners in known
                  if key not in mine and all(t is not target for t in owners)
                  and any(record.filename == f and (record.frame == n or record.frame
                          .startswith(f"{_RESUME}{n}_at_")) for f, n in callees)]
        if not reused:
            return {}
        by = " and ".join(sorted({o.name for _, o in reused}))
        ids = ", ".join(r.compile_id for r, _ in reused)
        frames = ", ".join(dict.fromkeys(r.frame for r, _ in reused))
        return {target.id: [
            f"{target.name}'s call also ran frames compiled during {by}'s call "
            f"({frames}: compile {ids}): torch reused them and compiled nothing for "
            f"them now, so they are counted in {by}'s report, not in {target.name}'s."]}
