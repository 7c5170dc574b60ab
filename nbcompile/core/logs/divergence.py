"""Where the ranks of a multi-rank run compiled differently: compile ids, collective order,
cache hits, graphs, guards (the first place each differs)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from ..records import Record

DivergenceKind = Literal["compile_ids", "collectives", "cache", "graphs", "guards"]
DIVERGENCE_KINDS: tuple[DivergenceKind, ...] = ("compile_ids", "collectives", "cache", "graphs",
                                                "guards")
#: Ids a guard holds that are each process's own (objects', types', a process group's
#: script-object type under FAKE_SCRIPT_TYPE_MATCH): never a divergence.
_OBJ_ID = re.compile(r"(___check_(?:obj_id|type_id|fake_script_type)\([^)]*?,\s*)\d+")
#: An object's address in its repr (torch 2.11's ID_MATCH lines add ``type=<built-in
#: method relu of type object at 0x7f...>``): each process's own, never a divergence.
_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+")
_UNKNOWN = object()  # a rank's key that takes no part in a comparison
_SHOWN_OPS = 8  # collectives of each schedule named in a collectives divergence's detail


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

    @property
    def collectives(self) -> list[str]: ...


@dataclass
class Divergence(Record):
    """Ranks that compiled differently: ``kind``, the ``groups`` of ranks that agree, and
    ``detail`` (what differs, first place)."""

    kind: DivergenceKind
    groups: list[list[int]]  # ranks that agree with each other, one list per variant
    detail: str  # what differs, first place
    compile_id: str = ""  # the first compile id where it shows



def find_divergences(compiles: Sequence[RankCompile]) -> list[Divergence]:
    """Where ranks compiled differently: compile ids, collective order (Inductor's
    collective schedule per compile id: ranks that issue different collectives hang),
    cache hits, graphs, guards."""
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
        ("collectives", _schedule_key),
        ("cache", lambda c: tuple(sorted(c.cache.items()))),
        ("graphs", lambda c: c._graph_hashes),
        ("guards", lambda c: _guards_key(c)))
    for kind, key in checks:
        for cid in order:
            keys = {r: key(by_id[r][cid]) for r in by_id}
            groups = _groups({r: k for r, k in keys.items() if k is not _UNKNOWN})
            if len(groups) > 1:
                out.append(Divergence(kind, groups, _detail(kind, cid, groups, by_id), cid))
                break
    return out


def _schedule_key(c: RankCompile) -> Any:
    """A compile's collective schedule, or ``_UNKNOWN`` when it hit a compile cache and
    logged none (Inductor logs the schedule only when it generates the code): such a rank
    is left out of the comparison."""
    if not c.collectives and any(k.endswith("_cache_hit") for k in c.cache):
        return _UNKNOWN
    return tuple(c.collectives)


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
    if kind == "collectives":
        return _collectives_detail(cid, groups, a.collectives, b.collectives)
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


def _collectives_detail(cid: str, groups: list[list[int]], a: list[str], b: list[str]) -> str:
    """The first collective where two ranks' schedules part, and both schedules."""
    i = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
             min(len(a), len(b)))

    def schedule(ops: list[str], group: list[int]) -> str:
        shown = ", ".join(_op(op) for op in ops[:_SHOWN_OPS]) or "none"
        return f"{_ranks(group)}: {shown}" + (f" (+{len(ops) - _SHOWN_OPS} more)"
                                              if len(ops) > _SHOWN_OPS else "")

    if i < len(a) and i < len(b):
        first = (f"collective {i + 1} is {_op(a[i])} on {_ranks(groups[0])} but {_op(b[i])} "
                 f"on {_ranks(groups[1])}")
    else:
        (more, g_more), (fewer, g_fewer) = sorted(((a, groups[0]), (b, groups[1])),
                                                  key=lambda p: -len(p[0]))
        first = (f"{_ranks(g_more)} {_issue(g_more)} collective {i + 1} ({_op(more[i])}) but "
                 f"{_ranks(g_fewer)} {_issue(g_fewer)} "
                 + (f"only {len(fewer)}" if fewer else "none"))
    return (f"the collectives differ at compile {cid}: {first} (ranks whose collectives do "
            f"not match wait on each other: a classic distributed hang). Schedules: "
            f"{schedule(a, groups[0])}; {schedule(b, groups[1])}")


def _issue(group: list[int]) -> str:
    return "issues" if len(group) == 1 else "issue"


def _op(name: str) -> str:
    """A collective kernel's short name: ``torch.ops._c10d_functional.all_reduce_.default``
    -> ``all_reduce_`` (an overload other than ``default`` kept: ``op.out``)."""
    parts = name.removeprefix("torch.ops.").split(".")
    if len(parts) != 3:
        return name
    return parts[1] if parts[2] == "default" else f"{parts[1]}.{parts[2]}"


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
