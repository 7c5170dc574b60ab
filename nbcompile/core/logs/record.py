"""The records of a ``TORCH_TRACE`` run: ``TraceRecord`` (the run) and ``TraceCompile``.

A ``TraceCompile``'s index fields come from event metadata (``index``); its contents
(graphs, guards, breaks, generated code) are read from the log on first access
(``contents``). Divergences between ranks (``divergence``) are computed on first access.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..records import (
    SCHEMA_VERSION,
    CompileRecord,
    GraphBreak,
    Kernel,
    Omission,
    Record,
    RunsAs,
    SourceLine,
)
from .contents import CompileEvents, build_record
from .divergence import Divergence, find_divergences
from .files import TraceLog

TraceStatus = Literal["compiled", "failed", "restarted", "cache_hit"]


@dataclass
class TraceCompile(Record):
    """One Dynamo compile attempt read from a trace (``compile_id`` like ``0/0``, ``0/0_1``).

    Index fields come from event metadata; ``graph_breaks``, ``guards``, ``graphs``,
    ``kernels``, ``output_code``, ``recompile_reason``, ``runs_as`` and ``collectives`` are
    read from the log on first access.
    """

    rank: int | None  # the rank whose log holds it (null when no rank is known)
    compile_id: str  # as Dynamo writes it, without brackets: "0/0", "1/2", "0/0_1"
    frame: str  # "fn file:line" of the frame being compiled
    function: str = ""  # the frame's function name
    filename: str = ""  # the frame's file
    lineno: int = 0  # the frame's first line
    status: TraceStatus = "compiled"
    fail_reason: str = ""  # why the compile failed or restarted ("" when it compiled)
    compile_time_s: float = 0.0  # from compilation_metrics
    metric_phases: dict[str, float] = field(default_factory=dict)  # compilation_metrics
    cache: dict[str, int] = field(default_factory=dict)  # hits and misses per cache layer
    stack: list[SourceLine] = field(default_factory=list)  # user stack, outermost first
    log: str = ""  # file:line of the compile's first event
    # where its events lie in the log (None: no contents to read)
    _events: CompileEvents | None = field(default=None, repr=False, compare=False)
    _record: CompileRecord | None = field(default=None, repr=False, compare=False)
    _graph_hashes: tuple[str, ...] = field(default=(), repr=False, compare=False)
    _phases: dict[str, float] | None = field(default=None, repr=False, compare=False)
    _collectives: list[str] | None = field(default=None, repr=False, compare=False)

    COMPUTED = {
        "phases": (dict[str, float], "seconds per compile phase (metrics and chromium events)"),
        "graph_breaks": (list[GraphBreak], "the compile's graph breaks"),
        "recompile_reason": (str, "why this compile recompiled an earlier one (or \"\")"),
        "recompile_guard": (str, "the guard that failed, when known (or \"\")"),
        "guards": (str, "the guards Dynamo installed"),
        "graphs": (list[str], "the FX graphs, as readable code"),
        "kernels": (list[Kernel], "every piece of generated code"),
        "output_code": (str, "the generated module(s)"),
        "collectives": (list[str], "the collectives Inductor scheduled, in order (its "
                                   "inductor_collective_schedule: kernel names such as "
                                   "torch.ops._c10d_functional.all_reduce_.default)"),
        "runs_as": (RunsAs | None, "what torch runs in place of the frame, as far as the log "
                                   "holds it: a resume function's bytecode (torch logs no "
                                   "other), else the problem says it is not in this log"),
        "contents_omitted": (bool, "published without its contents (breaks, guards, graphs, "
                                   "code) to keep the output within its byte budget"),
    }
    OPTIONAL_KEYS = frozenset({"contents_omitted", "runs_as"})

    @property
    def phases(self) -> dict[str, float]:
        """Seconds per compile phase: ``compilation_metrics``' phase times, plus the
        durations of Dynamo's timed regions from the chromium events (read on demand)."""
        if self._phases is None:
            self._phases = dict(self.metric_phases)
            if self._events is not None:
                for name, seconds in self._events.phases().items():
                    self._phases.setdefault(name, seconds)
        return self._phases

    @property
    def collectives(self) -> list[str]:
        """The collectives Inductor scheduled in the compile's graphs, in order (read from
        the log on first access; empty when it issued none)."""
        if self._collectives is None:
            self._collectives = (self._events.collective_schedule()
                                 if self._events is not None else [])
        return self._collectives

    @property
    def _source(self) -> TraceLog | None:
        """The log file that holds the compile (its ``problems`` collect what reading the
        contents found wrong); None when there is none."""
        return self._events.log if self._events is not None else None

    # --- contents, read on demand ---
    def content(self) -> CompileRecord:
        """The compile's full contents (built once from its events' payloads)."""
        if self._record is None:
            self._record = build_record(self, self._events)
        return self._record

    @property
    def graph_breaks(self) -> list[GraphBreak]:
        return self.content().graph_breaks

    @property
    def recompile_reason(self) -> str:
        return self.content().recompile_reason

    @property
    def recompile_guard(self) -> str:
        return self.content().recompile_guard

    @property
    def guards(self) -> str:
        return self.content().guards

    @property
    def graphs(self) -> list[str]:
        return self.content().graphs

    @property
    def kernels(self) -> list[Kernel]:
        return self.content().kernels

    @property
    def runs_as(self) -> RunsAs | None:
        return self.content().runs_as

    @property
    def output_code(self) -> str:
        return self.content().output_code

    def to_dict(self, contents: bool = True) -> dict[str, Any]:
        """The compile as a record; with ``contents=False`` its index only (the contents'
        fields empty, nothing read from the logs but its chromium events)."""
        data = super().to_dict()
        if not contents:
            data.update(phases=self.phases, graph_breaks=[], recompile_reason="",
                        recompile_guard="", guards="", graphs=[], kernels=[], output_code="",
                        collectives=[], runs_as=None)
            return data
        record = self.content()
        data.update(
            phases=self.phases,
            graph_breaks=[b.to_dict() for b in record.graph_breaks],
            recompile_reason=record.recompile_reason,
            recompile_guard=record.recompile_guard,
            guards=record.guards,
            graphs=list(record.graphs),
            kernels=[k.to_dict() for k in record.kernels],
            output_code=record.output_code,
            collectives=list(self.collectives),
            runs_as=record.runs_as.to_dict() if record.runs_as is not None else None,
        )
        return data


@dataclass
class TraceRecord(Record):
    """A TORCH_TRACE run (one log file or a directory of per-rank logs).

    ``nbcompile.TraceReport`` adds the rich reprs (rendering lives outside ``core``).
    """

    path: str  # the log file or directory opened
    ranks: list[int] = field(default_factory=list)  # sorted; empty when no rank is known
    compiles: list[TraceCompile] = field(default_factory=list)  # log order, every rank
    problems: list[str] = field(default_factory=list)  # "file:line: what was wrong"
    files: list[str] = field(default_factory=list)  # the trace files read
    unknown_events: dict[str, int] = field(default_factory=dict)  # event kind -> count
    events: int = 0  # trace lines read
    bytes_read: int = 0  # bytes of log indexed
    # Ctrl-C stopped it: only the files read whole are in (problems[0] names the rest)
    interrupted: bool = False
    _divergences: list[Divergence] | None = field(default=None, repr=False)
    schema_version: Literal[1] = SCHEMA_VERSION
    record: Literal["trace"] = "trace"

    OPTIONAL_KEYS = frozenset({"bytes_read", "truncated", "omitted", "interrupted"})
    COMPUTED = {
        "divergences": (list[Divergence], "where the ranks compiled differently"),
        "truncated": (bool, "set when published inline and some text was capped"),
        "omitted": (list[Omission], "parts left out of a published output to keep it within "
                                    "its byte budget (`how` gets them)"),
    }

    @property
    def divergences(self) -> list[Divergence]:
        """Where the ranks compiled differently (empty with fewer than two ranks)."""
        if self._divergences is None:
            try:
                self._divergences = find_divergences(self.compiles)
            except Exception as e:  # a hostile log must not take the report down
                self._divergences = []
                self.problems.append(f"{self.path}: where the ranks differ could not be "
                                     f"worked out ({type(e).__name__}: {str(e)[:120]})")
        return self._divergences

    def compile(self, compile_id: str, rank: int | None = None) -> TraceCompile:
        """The compile ``compile_id`` (``"0/1"``, ``"[0/1]"`` or ``"0/1_1"``) of ``rank``
        (the lowest rank that has it when ``rank`` is None)."""
        cid = compile_id.strip().strip("[]")
        found = [c for c in self.compiles if c.compile_id == cid
                 and (rank is None or c.rank == rank)]
        if not found:
            where = f" on rank {rank}" if rank is not None else ""
            known = sorted({c.compile_id for c in self.compiles if rank is None or c.rank == rank})
            raise KeyError(f"no compile {cid!r}{where} in {self.path}; compile ids: "
                           f"{', '.join(known) or 'none'}")
        return min(found, key=lambda c: -1 if c.rank is None else c.rank)

    def by_rank(self) -> dict[int | None, list[TraceCompile]]:
        """Compiles grouped by rank, each in log order."""
        out: dict[int | None, list[TraceCompile]] = {}
        for c in self.compiles:
            out.setdefault(c.rank, []).append(c)
        return out

    def to_dict(self) -> dict[str, Any]:
        compiles = [c.to_dict() for c in self.compiles]  # first: reading them may note
        divergences = [d.to_dict() for d in self.divergences]  # problems
        data = super().to_dict()
        data["compiles"] = compiles
        data["divergences"] = divergences
        return data

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} {self.path}: {len(self.compiles)} compile(s), "
                f"ranks {self.ranks or 'unknown'}, {len(self.divergences)} divergence(s), "
                f"{len(self.problems)} problem(s)>")

