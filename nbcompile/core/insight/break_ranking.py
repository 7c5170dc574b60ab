"""Graph breaks of a notebook, once each, ranked by what they cost.

A break is the same break when it is at the same place for the same reason
(``filename``, ``lineno``, ``reason``), whichever target or compile hit it (Dynamo
re-emits breaks on every recompile; a re-run cell's new target hits them again). Breaks
are ranked by measured time outside graphs when a ``Profile`` saw them, else by how often
they hit (the compiles that hit them).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from ..records import GraphBreak, TargetRecord


class MeasuredBreaks(Protocol):
    """What ranking reads of a profile (``perf.profile.Profile``): the breaks its call
    hit and the measured time per call in Python between graphs."""

    graph_breaks: list[GraphBreak]
    outside_graphs_s: float

BreakKey = tuple[str | None, int | None, str]


def break_key(gb: GraphBreak) -> BreakKey:
    """What makes two reported breaks the same break."""
    return (gb.filename, gb.lineno, gb.reason)


@dataclass
class RankedBreak:
    """One graph break, deduplicated: where and why, how often, what it cost."""

    graph_break: GraphBreak  # the first report of it
    hits: int = 0  # compiles that hit it, over every target
    targets: list[str] = field(default_factory=list)  # names of the targets that hit it
    # Measured seconds per call in Python between graphs, from profiles that saw it (a
    # profile's ``outside_graphs_s`` split evenly between its breaks); None: not profiled.
    outside_graphs_s: float | None = None


def rank_breaks(targets: Iterable[TargetRecord], profiles: Iterable[MeasuredBreaks] = ()
                ) -> list[RankedBreak]:
    """The breaks of ``targets`` once each, costliest first: measured ones by
    ``outside_graphs_s``, then the rest by ``hits``; ties keep first-seen order."""
    ranked: dict[BreakKey, RankedBreak] = {}
    for target in targets:
        for compile_ in target.compiles:
            firsts: dict[BreakKey, GraphBreak] = {}  # each break once per compile
            for g in compile_.graph_breaks:
                firsts.setdefault(break_key(g), g)
            for key, gb in firsts.items():
                row = ranked.setdefault(key, RankedBreak(gb))
                row.hits += 1
                if target.name not in row.targets:
                    row.targets.append(target.name)
        for gb in target.graph_breaks:  # records whose compiles were left out
            row = ranked.setdefault(break_key(gb), RankedBreak(gb, hits=1))
            if target.name not in row.targets:
                row.targets.append(target.name)
    for prof in profiles:
        keys = list(dict.fromkeys(break_key(gb) for gb in prof.graph_breaks))
        for key in keys:
            if key in ranked:
                row = ranked[key]
                row.outside_graphs_s = ((row.outside_graphs_s or 0.0)
                                        + prof.outside_graphs_s / len(keys))
    order = list(ranked.values())
    return sorted(order, key=lambda r: (r.outside_graphs_s is None,
                                        -(r.outside_graphs_s or 0.0), -r.hits))
