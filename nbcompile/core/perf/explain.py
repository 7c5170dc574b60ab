""""Why is it slower?": measured reasons a compiled mode is not faster than eager.

Pure functions from a comparison row (``TimingRow``) and a ``Profile`` of the same call
to a list of ``Explanation`` records. Each explanation names the measured numbers it
rests on (``evidence``) and says them in its message; nothing here runs torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..records import Explanation

if TYPE_CHECKING:
    from .comparison import TimingRow
    from .profile import Profile

#: Verdicts that call for an explanation.
NOT_FASTER = ("slower", "no significant difference")
#: Overhead share of the wall time from which it "dominates" the call (it also does when
#: it exceeds the kernels' time).
OVERHEAD_SHARE = 0.3
#: Extern share of the kernel time from which fusion has little left to win.
EXTERN_SHARE = 0.5
#: Share of the wall time spent between graphs from which breaks are "in the hot path".
BREAK_SHARE = 0.05


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
    return Explanation(
        kind="kernels",
        message=(f"no overhead, extern or graph-break cause stands out: the compiled call "
                 f"spends kernel_s = {_us(prof.kernel_s)} in kernels of wall_s = "
                 f"{_us(prof.wall_s)}, against eager_wall_s = {_us(prof.eager_wall_s)}"),
        evidence={"kernel_s": prof.kernel_s, "wall_s": prof.wall_s,
                  "eager_wall_s": prof.eager_wall_s},
    )


def explain(row: TimingRow, prof: Profile, recompiled_during_timing: int = 0
            ) -> list[Explanation]:
    """Why ``row``'s mode is not faster than eager, from ``prof`` (a profile of the same
    call); empty when the row needs no explanation (faster, eager, failed)."""
    if not needs_explanation(row):
        return []
    found = [e for e in (recompiles(prof, recompiled_during_timing), graph_breaks(prof),
                         overhead(prof), extern(prof)) if e is not None]
    return found or [kernels(prof)]
