"""Cache layers in torch's own words: each ``*_cache_hit|miss|bypass`` artifact read into a
``CacheOutcome``, and what differs between the keys of two compiles of one frame, read from
the key's components torch lists (``[hash] name: value`` lines): an Inductor option, the
graph, an input's dtype or shape, the torch version.

Evidence only: a miss torch gives no component list or reason for is said to be so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..units import clip
from .record import CacheOutcome, KeyChange

#: Artifact name prefix -> the layer's name in records.
LAYERS = {"fx_graph_cache_": "fx_graph", "aotautograd_cache_": "aotautograd",
          "autotune_cache_": "autotune", "mega_cache_": "portable"}
#: A component line: ``[hash] name: value`` (the value can span lines: the graph's code).
_COMPONENT = re.compile(r"^\[(?P<hash>[a-z0-9]{8,64})\] (?P<name>[^:\n]+):\s?(?P<value>.*)$",
                        re.S)
_CAP = 160


@dataclass
class Lookup:
    """One cache artifact: the outcome and the key's components (name -> (hash, value))."""

    outcome: CacheOutcome
    components: dict[str, tuple[str, str]] = field(default_factory=dict)


def layer_of(artifact: str) -> str | None:
    """The cache layer an artifact name reports on (``None``: not a cache artifact)."""
    for prefix, layer in LAYERS.items():
        if artifact.startswith(prefix) and artifact.rsplit("_", 1)[-1] in (
                "hit", "miss", "bypass"):
            return layer
    return None


def read_lookup(artifact: str, payload: str) -> Lookup | None:
    """The ``CacheOutcome`` (and key components) of one cache artifact's JSON payload."""
    layer = layer_of(artifact)
    if layer is None:
        return None
    try:
        data = json.loads(payload) if payload else {}
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    state = str(data.get("cache_state") or artifact.rsplit("_", 1)[-1])
    saved = data.get("time_saved_ns")
    outcome = CacheOutcome(
        layer=layer, outcome=state, detail=str(data.get("cache_status_detailed") or ""),
        reason=str(data.get("cache_bypass_reason") or ""), key=str(data.get("key") or ""),
        time_saved_s=round(saved / 1e9, 4) if isinstance(saved, (int, float)) else None)
    return Lookup(outcome, components(data.get("components")))


def components(lines: Any) -> dict[str, tuple[str, str]]:
    """``name -> (hash, value)`` of torch's key-component lines."""
    found: dict[str, tuple[str, str]] = {}
    for line in lines if isinstance(lines, list) else ():
        m = _COMPONENT.match(line) if isinstance(line, str) else None
        if m:
            found[m.group("name").strip()] = (m.group("hash"), m.group("value"))
    return found


def _cap(text: str) -> str:
    text = " ".join(text.split())
    return clip(text, _CAP - 3, "...")


def _kind(name: str) -> str:
    if name.startswith(("inductor_config[", "inductor_config_comms[")):
        return "inductor_option"
    if name == "gm":
        return "graph"
    if name.startswith("example_inputs"):
        return "inputs"
    if name == "torch_version":
        return "torch_version"
    return "other"


def _words(kind: str, name: str, before: str, after: str) -> str:
    if kind == "inductor_option":
        option = name[name.index("[") + 1:-1] if "[" in name else name
        return f"Inductor option {option}: {_cap(before)} -> {_cap(after)}"
    if kind == "graph":
        return "the graph differs (its ops, constants or shapes)"
    if kind == "inputs":
        return f"input {name.removeprefix('example_inputs')}: {_cap(before)} -> {_cap(after)}"
    if kind == "torch_version":
        return "the torch version differs"
    if not before or not after:
        return f"{name} {'added' if not before else 'removed'}"
    return f"{name}: {_cap(before)} -> {_cap(after)}"


def key_changes(layer: str, before: Mapping[str, tuple[str, str]],
                after: Mapping[str, tuple[str, str]]) -> list[KeyChange]:
    """The components whose hash differs between two lookups of one layer (graph first,
    then inputs, options, the rest)."""
    changes = []
    for name in list(before) + [n for n in after if n not in before]:
        old, new = before.get(name), after.get(name)
        if old is not None and new is not None and old[0] == new[0]:
            continue
        kind = _kind(name)
        old_value = old[1] if old else ""
        new_value = new[1] if new else ""
        changes.append(KeyChange(
            layer=layer, component=name, kind=kind,
            words=_words(kind, name, old_value, new_value),
            before="" if kind == "graph" else _cap(old_value),
            after="" if kind == "graph" else _cap(new_value)))
    order = {"graph": 0, "inputs": 1, "inductor_option": 2, "torch_version": 3, "other": 4}
    return sorted(changes, key=lambda c: order.get(c.kind, 9))


def cache_note(outcomes: Iterable[CacheOutcome], changes: list[KeyChange],
               compiled_before: bool, compared: Collection[str] | None = None) -> str:
    """Why the caches missed (or what served the compile), in words, from torch's own
    outcome, reason and key components; says so when torch gave no reason. ``compared``:
    the layers whose key components both compiles listed (``None``: every layer)."""
    outcomes = list(outcomes)
    if not outcomes:
        return "torch logged no cache lookup for this compile (caches disabled, or a " \
               "backend other than Inductor)"
    parts = []
    for o in outcomes:
        name = {"fx_graph": "FX graph cache", "aotautograd": "AOTAutograd cache"}.get(
            o.layer, f"{o.layer} cache")
        if o.outcome == "hit":
            saved = f" (saved {o.time_saved_s:.2f} s)" if o.time_saved_s else ""
            parts.append(f"{name} hit{saved}")
        elif o.outcome == "bypass":
            parts.append(f"{name} bypassed: "
                         + (o.reason or "torch gave no reason"))
        else:
            mine = [c.words for c in changes if c.layer == o.layer]
            if mine:
                parts.append(f"{name} missed: " + "; ".join(mine[:4])
                             + (f" (and {len(mine) - 4} more)" if len(mine) > 4 else ""))
            elif compiled_before and compared is not None and o.layer not in compared:
                parts.append(f"{name} missed ({o.detail or o.outcome}); torch listed no "
                             "key components of this cache to compare with the earlier "
                             "compile")
            elif compiled_before:
                parts.append(f"{name} missed ({o.detail or o.outcome}); torch gave no "
                             "component that differs from the earlier compile")
            else:
                parts.append(f"{name} missed ({o.detail or o.outcome}): nothing was "
                             "cached under this key; torch gave no other reason")
    return "; ".join(parts)
