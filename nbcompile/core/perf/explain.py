""""Why is it slower?" and "why does it use more memory?": measured reasons.

Pure functions from a comparison row (``TimingRow``) and a ``Profile`` of the same call
to a list of ``Explanation`` records. Each explanation names the measured numbers it
rests on (``evidence``) and says them in its message, and says where each comes from:
the row's own measurement, or the profile (a separate run: its own calls of a fresh
default-mode compile under torch.profiler, whose absolute times can differ from the
row's timed median; the message gives both). Nothing here runs torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..records import Explanation

if TYPE_CHECKING:
    from .comparison import TimingRow
    from .profile.record import Profile

#: Verdicts that call for an explanation.
NOT_FASTER = ("slower", "no significant difference")
#: Overhead share of the wall time from which it "dominates" the call (it also does when
#: it exceeds the kernels' time).
OVERHEAD_SHARE = 0.3
#: Extern share of the kernel time from which fusion has little left to win.
EXTERN_SHARE = 0.5
#: Share of the wall time spent between graphs from which breaks are "in the hot path".
BREAK_SHARE = 0.05
#: A profile whose compiled wall time is this many times the row's timed median (or
#: below its inverse) does not describe the row's absolute times: the explanation says so.
PROFILE_DRIFT = 2.0
#: A mode's peak above eager's by this share (and by ``MEMORY_MIN_BYTES``) needs a reason.
MEMORY_MARGIN = 0.10
#: Differences of memory below this many bytes are not explained (allocator noise).
MEMORY_MIN_BYTES = 64 * 1024


def needs_explanation(row: TimingRow) -> bool:
    """Whether ``row`` is an Inductor mode that measured not faster than eager (the
    profile compiles with Inductor, so other backends get no explanation from it)."""
    return row.kind == "mode" and row.status == "ok" and row.verdict in NOT_FASTER


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} us"


def overhead(prof: Profile) -> Explanation | None:
    """Per-call overhead (guards, wrappers, launches) dominating a small workload: a
    large share of the wall time, or more than the kernels' own time."""
    if prof.wall_s <= 0 or prof.overhead_s <= 0:
        return None
    if prof.overhead_s / prof.wall_s < OVERHEAD_SHARE and prof.overhead_s < prof.kernel_s:
        return None
    share = prof.overhead_s / prof.wall_s
    return Explanation(
        kind="overhead",
        message=(f"per-call overhead dominates a small workload: overhead_s = "
                 f"{_us(prof.overhead_s)} of wall_s = {_us(prof.wall_s)} per call "
                 f"({share:.0%}: guard checks, torch.compile's wrappers, launches), while "
                 f"the kernels take {_us(prof.kernel_s)}; compile a bigger piece of work "
                 "(more per call) or keep this one eager"),
        evidence={"overhead_s": prof.overhead_s, "wall_s": prof.wall_s,
                  "overhead_share": share, "kernel_s": prof.kernel_s},
    )


def extern(prof: Profile) -> Explanation | None:
    """Library calls (matmul, convolution) taking most of the kernel time."""
    total = sum(k.total_s for k in prof.kernels)
    externs = [k for k in prof.kernels if k.kind == "extern"]
    extern_s = sum(k.total_s for k in externs)
    if total <= 0 or extern_s / total < EXTERN_SHARE:
        return None
    share = extern_s / total
    top = sorted(externs, key=lambda k: -k.total_s)[:3]
    names = ", ".join(f"{k.name} {share_of(k.total_s, total):.0%}" for k in top)
    lines = sorted({ln for k in top for ln in k.lines})
    return Explanation(
        kind="extern",
        message=(f"extern calls take {share:.0%} of the kernel time ({names}; "
                 f"{_us(extern_s / prof.repeat)} of {_us(total / prof.repeat)} per call): "
                 "they run the same library code as eager, so fusing the rest has little "
                 "to win"),
        evidence={"extern_s": extern_s / prof.repeat, "kernel_s": total / prof.repeat,
                  "extern_share": share},
        lines=lines,
    )


def share_of(part: float, whole: float) -> float:
    return part / whole if whole else 0.0


def graph_breaks(prof: Profile) -> Explanation | None:
    """Python between graphs (graph breaks) taking a measurable share of each call."""
    if not prof.graph_breaks or prof.wall_s <= 0:
        return None
    share = prof.outside_graphs_s / prof.wall_s
    if share < BREAK_SHARE:
        return None
    lines = sorted({gb.lineno for gb in prof.graph_breaks
                    if gb.lineno is not None and gb.filename == prof.filename})
    where = ", ".join(
        f"line {gb.lineno} ({gb.line.strip() or gb.reason.splitlines()[0]})"
        for gb in prof.graph_breaks if gb.lineno in lines) or "lines outside the target"
    return Explanation(
        kind="graph-breaks",
        message=(f"graph breaks in the hot path: outside_graphs_s = "
                 f"{_us(prof.outside_graphs_s)} of wall_s = {_us(prof.wall_s)} per call "
                 f"({share:.0%}) runs in Python between graphs, at {where}"),
        evidence={"outside_graphs_s": prof.outside_graphs_s, "wall_s": prof.wall_s,
                  "outside_share": share, "graph_breaks": float(len(prof.graph_breaks))},
        lines=lines,
    )


def recompiles(prof: Profile, during_timing: int = 0) -> Explanation | None:
    """Compiles that happened while the calls were measured."""
    count = max(prof.recompiles_during_profile, during_timing)
    if not count:
        return None
    return Explanation(
        kind="recompiles",
        message=(f"{count} compile(s) happened during the measured calls "
                 f"(recompiles_during_profile = {prof.recompiles_during_profile}, "
                 f"during the timing = {during_timing}): a guard failed between calls, "
                 "so compile time is inside the run time"),
        evidence={"recompiles_during_profile": float(prof.recompiles_during_profile),
                  "recompiles_during_timing": float(during_timing)},
    )


def kernels(prof: Profile) -> Explanation:
    """The fallback: the generated kernels' own time against eager's whole call."""
    share = share_of(prof.kernel_s, prof.wall_s)
    return Explanation(
        kind="kernels",
        message=(f"no overhead, extern or graph-break cause stands out: the compiled call "
                 f"spends kernel_s = {_us(prof.kernel_s)} in kernels ({share:.0%}) of wall_s = "
                 f"{_us(prof.wall_s)}, against eager_wall_s = {_us(prof.eager_wall_s)}"),
        evidence={"kernel_s": prof.kernel_s, "wall_s": prof.wall_s,
                  "eager_wall_s": prof.eager_wall_s},
    )


def profile_source(prof: Profile, row: TimingRow | None = None) -> str:
    """Where a profile's numbers come from, said beside them (they are not the row's)."""
    text = (f"numbers from a profile of the same call: {prof.repeat} profiled call(s) of a "
            f"fresh default-mode compile, wall {_us(prof.wall_s)} per call there")
    if row is not None and row.median_s is not None:
        text += f", against this row's timed median of {_us(row.median_s)}"
        if row.mode not in ("default", "inductor"):
            text += f" ({row.mode} itself was not profiled)"
        ratio = prof.wall_s / row.median_s if row.median_s > 0 else 0.0
        if ratio > PROFILE_DRIFT or 0 < ratio < 1 / PROFILE_DRIFT:
            text += (f"; the profiled calls took {ratio:.3g}x this row's median (the profile's "
                     "compile adds Inductor's kernel profiling, which slows some kernels, and "
                     "runs under torch.profiler): its shares carry over to this row, its "
                     "absolute times do not")
    return text


def explain(row: TimingRow, prof: Profile, recompiled_during_timing: int = 0
            ) -> list[Explanation]:
    """Why ``row``'s mode is not faster than eager, from ``prof`` (a profile of the same
    call); empty when the row needs no explanation (faster, eager, failed). Every message
    ends by saying where its numbers come from (``profile_source``); a recompile count
    from the row's own timing says so in its message."""
    if not needs_explanation(row):
        return []
    found = [e for e in (recompiles(prof, recompiled_during_timing), graph_breaks(prof),
                         overhead(prof), extern(prof)) if e is not None]
    found = found or [kernels(prof)]
    source = profile_source(prof, row)
    for e in found:
        e.message += f" [{source}]"
        e.evidence.setdefault("profile_wall_s", prof.wall_s)
        if row.median_s is not None:
            e.evidence.setdefault("row_median_s", row.median_s)
    return found


# --- memory ------------------------------------------------------------------------------


def _mib(n: float | None) -> str:
    if n is None:
        return "not measured"
    return f"{n / 2**20:.2f} MiB"


def needs_memory_explanation(row: TimingRow, eager: TimingRow) -> bool:
    """Whether ``row`` (a compiled mode) needs more memory than ``eager``: a peak above
    eager's by ``MEMORY_MARGIN`` and ``MEMORY_MIN_BYTES``, or bytes held between calls."""
    if row.kind == "eager" or row.status != "ok" or row.peak_memory_bytes is None:
        return False
    if (row.held_bytes or 0) >= MEMORY_MIN_BYTES:
        return True
    if eager.peak_memory_bytes is None:
        return False
    extra = row.peak_memory_bytes - eager.peak_memory_bytes
    return extra >= MEMORY_MIN_BYTES and extra > MEMORY_MARGIN * eager.peak_memory_bytes


def held_between_calls(row: TimingRow) -> Explanation | None:
    """A CUDA mode keeping memory allocated between calls (reduce-overhead: its CUDA
    graph pool)."""
    held = row.held_bytes or 0
    if held < MEMORY_MIN_BYTES:
        return None
    graphs = row.mode in ("reduce-overhead", "max-autotune")
    what = ("its CUDA graph memory pool (the recorded graphs' static inputs, outputs and "
            "intermediates)" if graphs else "buffers the compiled code keeps")
    return Explanation(
        kind="cudagraph-pool" if graphs else "held-between-calls",
        message=(f"{row.mode} keeps held_bytes = {_mib(held)} allocated between calls in "
                 f"{what}, on top of its per-call peak_memory_bytes = "
                 f"{_mib(row.peak_memory_bytes)} [this row's measurement: bytes still "
                 "allocated after its compile and warm-up, beyond those before it]"),
        evidence={"held_bytes": float(held),
                  "peak_memory_bytes": float(row.peak_memory_bytes or 0)},
    )


def saved_for_backward(row: TimingRow, eager: TimingRow) -> Explanation | None:
    """The compiled forward saving more for backward than eager's."""
    if row.saved_bytes is None or eager.saved_bytes is None:
        return None
    extra = row.saved_bytes - eager.saved_bytes
    if extra < MEMORY_MIN_BYTES or extra <= MEMORY_MARGIN * eager.saved_bytes:
        return None
    return Explanation(
        kind="saved-for-backward",
        message=(f"the compiled forward saves saved_bytes = {_mib(row.saved_bytes)} of "
                 f"activations for backward against eager's {_mib(eager.saved_bytes)}: "
                 "AOTAutograd's partitioner chose to keep these tensors rather than "
                 "recompute them in backward [both rows' own measurement: "
                 "saved_tensors_hooks over one call]"),
        evidence={"saved_bytes": float(row.saved_bytes),
                  "eager_saved_bytes": float(eager.saved_bytes)},
    )


def live_across_breaks(prof: Profile | None) -> Explanation | None:
    """Intermediates a graph break keeps alive between two graphs."""
    memory = prof.memory if prof is not None else None
    if prof is None or memory is None or not prof.graph_breaks:
        return None
    if memory.across_breaks_bytes < MEMORY_MIN_BYTES:
        return None
    lines = sorted({gb.lineno for gb in prof.graph_breaks
                    if gb.lineno is not None and gb.filename == prof.filename})
    where = ", ".join(f"line {n}" for n in lines) or "outside the target"
    return Explanation(
        kind="live-across-breaks",
        message=(f"a graph break ({where}) keeps across_breaks_bytes = "
                 f"{_mib(memory.across_breaks_bytes)} in use between two graphs: the first "
                 "graph's outputs stay alive in Python while the next graph runs, where "
                 "eager would have freed them line by line "
                 f"[from a profile of the same call (a fresh default-mode compile): peak "
                 f"{_mib(memory.peak_bytes)} there]"),
        evidence={"across_breaks_bytes": float(memory.across_breaks_bytes),
                  "profile_peak_bytes": float(memory.peak_bytes or 0)},
        lines=lines,
    )


def functionalized_mutation(row: TimingRow, eager: TimingRow, mutated: dict[str, int]
                            ) -> Explanation | None:
    """An in-place change of an input that eager does in place and the compiled graph
    computes out of place, then copies back (AOTAutograd functionalizes mutations)."""
    if not mutated or row.allocated_bytes is None or eager.allocated_bytes is None:
        return None
    extra = row.allocated_bytes - eager.allocated_bytes
    size = max(mutated.values())
    if extra < MEMORY_MIN_BYTES or extra < size / 2:
        return None
    names = ", ".join(f"{k} ({_mib(v)})" for k, v in mutated.items())
    return Explanation(
        kind="functionalized-mutation",
        message=(f"the call changes {names} in place: eager allocates allocated_bytes = "
                 f"{_mib(eager.allocated_bytes)} per call, the compiled call "
                 f"{_mib(row.allocated_bytes)}: torch.compile rewrites an in-place change "
                 "out of place (a new buffer the size of the result) and copies it back "
                 "into the input [both rows' own measurement; input sizes from the "
                 "inputs]"),
        evidence={"allocated_bytes": float(row.allocated_bytes),
                  "eager_allocated_bytes": float(eager.allocated_bytes),
                  "mutated_bytes": float(size)},
    )


def buffers(row: TimingRow, eager: TimingRow, prof: Profile | None) -> Explanation:
    """The fallback: the row's peak and allocations against eager's, and the kernel of a
    profile that allocates most."""
    message = (f"the compiled call peaks at peak_memory_bytes = "
               f"{_mib(row.peak_memory_bytes)} against eager's {_mib(eager.peak_memory_bytes)}"
               f", allocating allocated_bytes = {_mib(row.allocated_bytes)} per call against "
               f"eager's {_mib(eager.allocated_bytes)} [both rows' own measurement: one call "
               "each]")
    evidence = {"peak_memory_bytes": float(row.peak_memory_bytes or 0),
                "eager_peak_bytes": float(eager.peak_memory_bytes or 0),
                "allocated_bytes": float(row.allocated_bytes or 0),
                "eager_allocated_bytes": float(eager.allocated_bytes or 0)}
    lines: list[int] = []
    if prof is not None and prof.memory is not None and prof.kernels:
        top = max(prof.kernels, key=lambda k: k.allocated_bytes)
        if top.allocated_bytes:
            message += (f"; the largest allocation is for {top.name} "
                        f"({_mib(top.allocated_bytes)} per call"
                        + (f", line(s) {', '.join(map(str, top.lines))}" if top.lines else "")
                        + ") [from a profile of the same call: a fresh default-mode compile]")
            evidence["top_kernel_allocated_bytes"] = float(top.allocated_bytes)
            lines = list(top.lines)
    return Explanation(kind="buffers", message=message, evidence=evidence, lines=lines)


def explain_memory(row: TimingRow, eager: TimingRow, prof: Profile | None = None,
                   mutated: dict[str, int] | None = None) -> list[Explanation]:
    """Why ``row``'s mode needs more memory than eager (empty when it does not), from
    the rows' own memory measurements and, where it helps, ``prof`` (a profile of the
    same call, said as such). ``mutated``: the inputs the call changes in place, with
    their sizes in bytes."""
    if not needs_memory_explanation(row, eager):
        return []
    found = [e for e in (held_between_calls(row), saved_for_backward(row, eager),
                         live_across_breaks(prof),
                         functionalized_mutation(row, eager, mutated or {}))
             if e is not None]
    peak_up = (row.peak_memory_bytes is not None and eager.peak_memory_bytes is not None
               and row.peak_memory_bytes - eager.peak_memory_bytes >= MEMORY_MIN_BYTES)
    if peak_up and not any(e.kind in ("saved-for-backward", "live-across-breaks",
                                      "functionalized-mutation") for e in found):
        found.append(buffers(row, eager, prof))
    return found
