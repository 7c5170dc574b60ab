"""The crash fact: a fresh compiled copy of the target (its options) called on copies of
the inputs, as ``%diagnose`` calls it (``diagnosis.runs.Bench``): in a forked one-thread
child where its code could abort the process (``diagnosis/isolate.py``), so the user's
kernel, compiled target and inputs are never touched. The crash is told as ``%diagnose``
tells it: a compiler's own exception inside torch's ``BackendCompilerFailed``."""

from __future__ import annotations

from typing import Any

from ..diagnosis.diagnose import user_options
from ..diagnosis.isolate import ABORTING_SETTINGS, needs_child, shown_error
from ..diagnosis.runs import Bench, Trial
from ..diagnosis.sites import error_text
from ..diagnosis.torch_names import inductor_config
from .facts import Fact, NoFact, crash_fact


def call_crash(target: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Fact:
    """The exception a fresh compiled copy raises on this call; ``NoFact`` (in words)
    where it does not raise, or eager raises too (not torch.compile's)."""
    backend, options, _ = user_options(target)
    bench = Bench(target, tuple(args), dict(kwargs))
    try:
        eager = bench.eager(timed=0)
        if eager.error is not None:
            raise NoFact(f"the call raises eagerly too ({error_text(eager.error)[0]}): "
                         "not torch.compile's to report")
        top = bench.run(Trial(backend=backend, options=dict(options), timed=0))
    finally:
        bench.close()
    if top.error is None:
        raise NoFact(f"the compiled call did not finish: {top.note}" if top.note
                     else "this call did not raise")
    fact = crash_fact(*shown_error(top.error))
    if bench.isolate and needs_child(backend):
        fact.one_thread = True
        fact.notes.append(_isolated())
    return fact


def _isolated() -> str:
    """Why the call ran in a forked one-thread child, and what the script does for it."""
    values = inductor_config().get_config_copy()
    why = next((f"torch._inductor.config.{key} = {value!r} {because}"
                for key, value, because in ABORTING_SETTINGS if values.get(key) == value),
               "a setting in force makes compiled code abort the process")
    return (f"{why}: nbcompile ran the compiled call in a forked child process with one "
            "thread (no parallel region, so the exception reaches Python), your kernel kept "
            "out of it; the script runs with one thread too (torch.set_num_threads(1))")
