"""Where the ranks of a multi-rank run compiled differently: compile ids, cache hits,
graphs, guards (the first place each differs)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from ..records import Record

DivergenceKind = Literal["compile_ids", "cache", "graphs", "guards"]
DIVERGENCE_KINDS: tuple[DivergenceKind, ...] = ("compile_ids", "cache", "graphs", "guards")
_OBJ_ID = re.compile(r"(___check_(?:obj|type)_id\([^)]*?,\s*)\d+")
#: An object's address in its repr (torch 2.11's ID_MATCH lines add ``type=<built-in
#: method relu of type object at 0x7f...>``): each process's own, never a divergence.
_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+")


class RankCompile(Protocol):
    """What a divergence check reads of one compile of one rank (``TraceCompile``)."""

    rank: int | None
    compile_id: str
    function: str
    cache: dict[str, int]
    _graph_hashes: Any

    @property
    def recompile_guard(self) -> str: ...

    @property
    def guards(self) -> str: ...

    @property
    def graphs(self) -> list[str]: ...


@dataclass
class Divergence(Record):
    """Ranks that compiled differently: ``kind``, the ``groups`` of ranks that agree, and
    ``detail`` (what differs, first place)."""

    kind: DivergenceKind
    groups: list[list[int]]  # ranks that agree with each other, one list per variant
    detail: str  # what differs, first place
    compile_id: str = ""  # the first compile id where it shows



def find_divergences(compiles: Sequence[RankCompile]) -> list[Divergence]:
    """Where ranks compiled differently: compile ids, cache hits, graphs, guards."""
    per_rank: dict[int, list[RankCompile]] = {}
    for c in compiles:
        if c.rank is not None:
            per_rank.setdefault(c.rank, []).append(c)
    if len(per_rank) < 2:
        return []
    out: list[Divergence] = []
    ids = {r: [c.compile_id for c in cs] for r, cs in per_rank.items()}
    groups = _groups({r: tuple(v) for r, v in ids.items()})
    if len(groups) > 1:
        out.append(_compile_id_divergence(groups, per_rank))
    common = set.intersection(*(set(v) for v in ids.values()))
    order = [cid for cid in ids[min(ids)] if cid in common]
    by_id = {r: {c.compile_id: c for c in cs} for r, cs in per_rank.items()}
    checks: tuple[tuple[DivergenceKind, Callable[[RankCompile], Any]], ...] = (
        ("cache", lambda c: tuple(sorted(c.cache.items()))),
        ("graphs", lambda c: c._graph_hashes),
        ("guards", lambda c: _guards_key(c)))
    for kind, key in checks:
        for cid in order:
            groups = _groups({r: key(by_id[r][cid]) for r in by_id})
            if len(groups) > 1:
                out.append(Divergence(kind, groups, _detail(kind, cid, groups, by_id), cid))
                break
    return out


def _groups(keys: dict[int, Any]) -> list[list[int]]:
    groups: dict[Any, list[int]] = {}
    for rank in sorted(keys):
        groups.setdefault(keys[rank], []).append(rank)
    return sorted(groups.values(), key=lambda g: (-len(g), g[0]))


def _ranks(group: list[int]) -> str:
    return ("rank " if len(group) == 1 else "ranks ") + ", ".join(map(str, group))


def _compile_id_divergence(groups: list[list[int]], per_rank: dict[int, list[RankCompile]]
                           ) -> Divergence:
    sets = {r: {c.compile_id for c in cs} for r, cs in per_rank.items()}
    everywhere = set.intersection(*sets.values())
    for rank in sorted(per_rank):  # the first compile id not every rank has, in log order
        for c in per_rank[rank]:
            if c.compile_id not in everywhere:
                have = [r for r in sorted(sets) if c.compile_id in sets[r]]
                lack = [r for r in sorted(sets) if c.compile_id not in sets[r]]
                why = f" (recompile: {c.recompile_guard})" if c.recompile_guard else ""
                detail = (f"{_ranks(have)} compiled {c.compile_id} {c.function}{why}; "
                          f"{_ranks(lack)} did not. Compile ids per rank: "
                          + "; ".join(f"{_ranks(g)}: {len(per_rank[g[0]])}" for g in groups))
                return Divergence("compile_ids", groups, detail, c.compile_id)
    return Divergence("compile_ids", groups, "the ranks compiled in a different order")


def _normalized_guards(c: RankCompile) -> list[str]:
    lines = []
    for line in c.guards.splitlines():
        if line.strip().startswith("Guard latency"):
            continue
        line = _ADDRESS.sub("at <address>", _OBJ_ID.sub(r"\1<id>", line))
        lines.append(line.split("  # ", 1)[0].rstrip())
    return lines


def _guards_key(c: RankCompile) -> str:
    return hashlib.md5("\n".join(_normalized_guards(c)).encode(), usedforsecurity=False
                       ).hexdigest()


def _detail(kind: str, cid: str, groups: list[list[int]],
            by_id: dict[int, dict[str, RankCompile]]) -> str:
    a, b = by_id[groups[0][0]][cid], by_id[groups[1][0]][cid]
    first = f"at compile {cid}: {_ranks(groups[0])} vs {_ranks(groups[1])}"
    if kind == "cache":
        return f"cache hits differ {first}: {a.cache or 'none'} vs {b.cache or 'none'}"
    if kind == "graphs":
        return f"the captured graphs differ {first} ({len(a.graphs)} vs {len(b.graphs)} " \
               "graph(s))" + _first_diff(a.graphs[0] if a.graphs else "",
                                        b.graphs[0] if b.graphs else "")
    la, lb = _normalized_guards(a), _normalized_guards(b)
    for x, y in zip(la, lb, strict=False):
        if x != y:
            head = x.strip().lstrip("|+- ").split(",")[0]
            return f"guards differ {first}: first differing guard {head}: {_snippets(x, y)}"
    return f"guards differ {first}: {len(la)} vs {len(lb)} guard lines"


def _first_diff(x: str, y: str) -> str:
    for la, lb in zip(x.splitlines(), y.splitlines(), strict=False):
        if la != lb:
            return f"; first difference: {_snippets(la, lb)}"
    return ""


def _snippets(x: str, y: str, context: int = 40) -> str:
    """``'...a...' vs '...b...'`` around the first differing character of two lines."""
    x, y = x.strip(), y.strip()
    i = next((k for k, (p, q) in enumerate(zip(x, y, strict=False)) if p != q),
             min(len(x), len(y)))
    start = max(0, i - context)

    def cut(s: str) -> str:
        return ("..." if start else "") + s[start:i + context] + \
            ("..." if len(s) > i + context else "")

    return f"{cut(x)!r} vs {cut(y)!r}"
