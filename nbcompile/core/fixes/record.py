"""The ``suggestions`` record: what ``suggest()`` returns (``Suggestions``), one proposed
change and its trial (``Suggestion``), the numbers of a setup (``Measured``), the break or
recompile a change addresses (``Problem``) and the numeric check (``SameResult``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..records import SCHEMA_VERSION, Record

DEFAULT_BUDGET_S = 60.0


@dataclass
class Measured(Record):
    """Counts and run time of one setup (the baseline, or a trial on a copy)."""

    graphs: int = 0  # graphs compiled over the calls
    breaks: int = 0  # graph breaks
    recompiles: int = 0  # compiles after a guard of this setup's own versions failed
    time_s: float | None = None  # median steady-state time of one pass over the calls
    error: str = ""  # the trial failed: the exception
    timing_note: str = ""  # e.g. Dynamo frame compiles during the timed passes


@dataclass
class Problem(Record):
    """A graph break or recompile of the baseline: reason and where."""

    kind: str  # graph_break | recompile
    reason: str
    filename: str | None = None
    lineno: int | None = None
    line: str = ""
    in_library: bool = False  # the break is inside code the user cannot edit


@dataclass
class SameResult(Record):
    """The numeric check of a trial's outputs against the eager original's."""

    ok: bool | None = None  # within the dtype's tolerance (null: not run, or not comparable)
    max_abs_diff: float | None = None  # largest absolute difference to eager's output
    tolerance: str = ""
    notes: list[str] = field(default_factory=list)


@dataclass
class Suggestion(Record):
    """One proposed change and what trying it on a copy showed."""

    problem: Problem  # the break or recompile it addresses
    kind: str  # setting | option | rewrite
    change: str  # the exact thing to do, as code
    verified: bool = False  # fewer breaks (or recompiles) on the copy and the same result
    status: str = "not tried"  # verified | tried, did not help | not tried
    after: Measured | None = None  # the trial on a copy (null: not tried)
    same_result: SameResult = field(default_factory=SameResult)  # vs the eager original
    note: str = ""  # what it costs or risks, what happened


@dataclass
class Suggestions(Record):
    """What ``suggest()`` returns: ``baseline``, ``problems`` and ``items``."""

    name: str  # the function or module class
    baseline: Measured  # a fresh copy compiled as it is, the calls replayed
    problems: list[Problem] = field(default_factory=list)  # the baseline's breaks, recompiles
    items: list[Suggestion] = field(default_factory=list)  # one per proposed change
    calls: int = 1  # calls replayed per trial
    budget_s: float = DEFAULT_BUDGET_S  # seconds allowed for all trials
    elapsed_s: float = 0.0  # seconds the trials took
    notes: list[str] = field(default_factory=list)
    interrupted: bool = False  # Ctrl-C stopped it: the trials done so far (see notes[0])
    schema_version: int = SCHEMA_VERSION
    record: str = "suggestions"

    OPTIONAL_KEYS = frozenset({"interrupted", "cell_names"})
    COMPUTED = {"cell_names": (dict[str, str], "each notebook cell's code file the record "
                                               "names, as written there -> the cell as the "
                                               "notebook names it (`cell [2]`) (published)")}

    @property
    def verified(self) -> list[Suggestion]:
        return [s for s in self.items if s.verified]
