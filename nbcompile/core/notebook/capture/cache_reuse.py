"""The side channel of compiles that reused another compile of this kernel: an FX graph
or AOTAutograd cache hit on a key an earlier compile stored (its miss), said as a note on
the reusing targets ("Compile 1/0 reused f's compile 0/0 ...")."""

from __future__ import annotations

from ...records import CompileRecord
from ...trace.builder import Fed
from ..targets.target_state import Target
from .attribution import Key
from .channels import Notes, SideChannel

#: A cache's artifact prefix -> its name in words.
_CACHES = {"fx_graph": "FX graph", "aotautograd": "AOTAutograd"}


class CacheReuse(SideChannel):
    """Cache keys stored by this kernel's compiles, and the hits on them."""

    def __init__(self) -> None:
        # cache key -> the compile that stored it (a miss): (target id, name, compile id)
        self._stored: dict[str, tuple[str, str, str]] = {}

    def compile_finished(self, key: Key, fed: Fed, record: CompileRecord,
                         owners: list[Target]) -> Notes:
        """Which earlier compile of this session the finished one reused, in words per
        owner; its misses are remembered for the compiles after it."""
        if not owners:
            return {}
        compile_id = record.compile_id
        hits: dict[tuple[str, str, str], list[str]] = {}  # origin -> caches that hit
        for artifact, cache_key in fed.cache_keys:
            cache, _, outcome = artifact.rpartition("_cache_")
            if outcome == "miss":
                self._stored.setdefault(cache_key, (owners[-1].id, owners[-1].name,
                                                    compile_id))
            elif outcome == "hit" and (origin := self._stored.get(cache_key)):
                what = _CACHES.get(cache, cache)
                if what not in hits.setdefault(origin, []):
                    hits[origin].append(what)
        notes: Notes = {}
        for (origin_id, origin_name, origin_compile), caches in hits.items():
            for target in owners:
                if origin_id == target.id and origin_compile == compile_id:
                    continue
                whose = (f"an earlier {origin_name}'s" if origin_name == target.name
                         and origin_id != target.id else f"{origin_name}'s")
                notes.setdefault(target.id, []).append(
                    f"Compile {compile_id} reused {whose} compile {origin_compile} "
                    f"({' and '.join(caches)} cache hit{'s' if len(caches) > 1 else ''}: "
                    "the same graph, compiled once in this kernel).")
        return notes
