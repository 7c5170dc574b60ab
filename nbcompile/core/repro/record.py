"""The ``repro`` result: ``Repro`` (the script, the fact, whether a fresh process showed
it, and the files beside it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..records import Record


@dataclass
class Repro(Record):
    """One repro: the script written, the fact it asserts, and its fresh run's verdict."""

    name: str  # the target's name
    kind: str  # the fact's kind: graph_breaks | recompile | crash | accuracy
    fact: str  # the fact in words, as the notebook saw it
    path: str = ""  # the script (``""``: none written)
    folder: str = ""  # the fresh folder holding the script, the report and the trace
    reproduced: bool = False  # the fresh run showed the same fact (torch's record there)
    differs: list[str] = field(default_factory=list)  # what the fresh run did not show
    expected: dict[str, Any] = field(default_factory=dict)  # the fact as the script asserts it
    seen: dict[str, Any] = field(default_factory=dict)  # what torch recorded in the fresh run
    command: str = ""  # how to run the script again
    report_path: str = ""  # report.md: versions, the command, nbcompile's words
    trace_dir: str = ""  # the fresh run's TORCH_TRACE directory, to attach
    #: tensors saved beside the script, which only it loads (weights_only): the call's
    #: inputs (``save_inputs``), a module's ``state_dict``
    saved: list[str] = field(default_factory=list)
    problem: str = ""  # why nothing could be written or run ("" when it ran)
    #: how the fact was chosen and seen: a recompile passed over (and why), a crash seen
    #: in a forked child, the stance carried
    notes: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0  # the fresh run's wall time
    record: str = "repro"
