"""torch's own counters read around a measurement: frames compiled, cache hits, CUDA graph skips."""

from __future__ import annotations

from ..torch_compat import dynamo_counters


def counter(group: str, name: str) -> int:
    return int(dynamo_counters()[group][name])


def cache_counts() -> dict[str, int]:
    return {
        "fx_graph_cache_hit": counter("inductor", "fxgraph_cache_hit"),
        "fx_graph_cache_miss": counter("inductor", "fxgraph_cache_miss"),
        "aotautograd_cache_hit": counter("aot_autograd", "autograd_cache_hit"),
        "aotautograd_cache_miss": counter("aot_autograd", "autograd_cache_miss"),
    }


def frames_compiled() -> int:
    return counter("frames", "total")

