"""Hostile nbcompile records for the fuzz test: the cases the security probe found and
seeded random mutations of a real record (tests/fixtures/records/summary.json, from a real compile).

Each case is ``(name, record)``; notebooks hold one display_data output per record, with
the markup payload in the text/plain fallback too."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import big_records

MIME = "application/vnd.nbcompile.v1+json"
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "records" / "summary.json"
TIMING_FIXTURE = (Path(__file__).resolve().parents[2] / "labextension" / "test" / "fixtures"
                  / "timing.json")
# Sets window.__pwned if it ever runs as markup.
XSS = ('<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>'
       '<a href="javascript:window.__pwned=1">x</a>')
PROTO_KEYS = ["__proto__", "toString", "constructor", "hasOwnProperty", "valueOf"]

Case = tuple[str, Any]


def real_record() -> dict:
    return json.loads(FIXTURE.read_text())


def _target(rec: dict, i: int = 0) -> dict:
    return rec["targets"][i]


def issue_cases() -> list[Case]:
    """The cases found by the security probe, one record each."""
    cases: list[Case] = []
    for n in (1000, 3000):
        # A timing record of the 'generic' shape: N rows with a key each (an N x N table).
        cases.append((f"generic timing {n}x{n}", {
            "schema_version": 1, "record": "timing", "title": "generic",
            "results": [{f"k{i}": i} for i in range(n)]}))
    # 150k chart rows of the shape the probe used (no longer a valid record: a note) ...
    rows = [{"mode": "eager", "kind": "eager", "median_s": 0.002}]
    rows += [{"mode": f"m{i}", "kind": "mode", "speedup": 1 + i % 7 / 10}
             for i in range(150_000)]
    cases.append(("timing 150k chart rows", {
        "schema_version": 1, "record": "timing", "name": "f", "rows": rows}))
    # ... and a valid comparison (Comparison.to_dict()) with 2,000 rows: bars and table paged.
    timing = json.loads(TIMING_FIXTURE.read_text())
    eager, mode = timing["rows"][:2]
    timing["rows"] = [eager] + [{**mode, "mode": f"m{i}", "speedup": 1 + i % 7 / 10}
                                for i in range(2_000)]
    cases.append(("timing 2000 rows", timing))
    for size in (250_000, 1_000_000):
        rec = real_record()
        t = _target(rec)
        t["notes"] = ["x" * size]
        t["graph_breaks"][0]["hint"] = "y" * size
        cases.append((f"long word {size // 1000} kB", rec))
    rec = real_record()
    for k in _target(rec)["kernels"]:
        k["language"] = "toString"
    cases.append(("kernel.language toString", rec))
    rec = real_record()
    rec["schema_version"] = 999
    cases.append(("schema_version 999", rec))
    rec = real_record()
    base = _target(rec)
    light = {**base, "compiles": [], "kernels": [], "output_code": "", "graph_breaks": [],
             "recompiles": [], "annotations": [], "code_diffs": [], "advice": [], "notes": []}
    rec["targets"] = [{**light, "id": f"t{i}", "name": f"f{i}",
                       "cell": {**base["cell"], "cell_id": f"c{i}"}} for i in range(20_000)]
    cases.append(("20000 targets", rec))
    # As many as the largest record the kernel publishes holds (the validator's cap).
    at_cap = {**rec, "targets": list(rec["targets"])}
    cases.append(("targets at the size cap",
                  big_records.clip(at_cap, lambda r: r["targets"], big_records.max_record_bytes())))
    rec = real_record()
    _target(rec)["graph_breaks"][0]["lineno"] = 2.5
    cases.append(("fractional line number", rec))
    return cases


def _strings_to_markup(v: Any) -> Any:
    if isinstance(v, str):
        return v + XSS
    if isinstance(v, list):
        return [_strings_to_markup(x) for x in v]
    if isinstance(v, dict):
        return {k: _strings_to_markup(x) for k, x in v.items()}
    return v


def _paths(v: Any, path: tuple = ()) -> Iterator[tuple]:
    yield path
    if isinstance(v, dict):
        for k, x in v.items():
            yield from _paths(x, (*path, k))
    elif isinstance(v, list):
        for i, x in enumerate(v[:3]):
            yield from _paths(x, (*path, i))


def _set(root: Any, path: tuple, value: Any) -> None:
    for p in path[:-1]:
        root = root[p]
    root[path[-1]] = value


def _deep(depth: int) -> Any:
    v: Any = "bottom"
    for i in range(depth):
        v = [v] if i % 2 else {"d": v}
    return v


def _hostile_value(rng: random.Random) -> Any:
    return rng.choice([
        None, True, 0, -1, 2.5, 1e308, -0.0, "", XSS, "z" * rng.choice([10_000, 200_000]),
        [], {}, [XSS] * 5000, {k: XSS for k in PROTO_KEYS}, _deep(rng.choice([50, 150])),
        list(range(20_000)), "toString", "__proto__", {"__proto__": {"polluted": 1}},
    ])


def mutations(seed: int, count: int) -> list[Case]:
    """`count` records, each the real record with a few random fields replaced by
    hostile values (wrong types, huge and deep values, prototype keys, markup)."""
    rng = random.Random(seed)
    base = real_record()
    paths = [p for p in _paths(base) if p]
    cases: list[Case] = []
    for i in range(count):
        rec = copy.deepcopy(base)
        if i % 4 == 0:
            rec = _strings_to_markup(rec)
        for _ in range(rng.randint(1, 6)):
            path = rng.choice(paths)
            try:
                if rng.random() < 0.3 and isinstance(path[-1], str):
                    parent = rec
                    for p in path[:-1]:
                        parent = parent[p]
                    if isinstance(parent, dict):
                        parent[rng.choice(PROTO_KEYS)] = _hostile_value(rng)
                        continue
                _set(rec, path, _hostile_value(rng))
            except (KeyError, IndexError, TypeError):
                continue  # an earlier mutation replaced a parent
        cases.append((f"mutation {seed}/{i}", rec))
    return cases


def write_notebook(path: Path, cases: list[Case]) -> None:
    """One code cell per case, its output the record (untrusted: no signature). Plain
    dicts, not nbformat nodes: those recurse, and some records are deep on purpose."""
    cells = [{
        "cell_type": "code", "id": f"case-{i}", "metadata": {}, "execution_count": None,
        "source": f"# {name}",
        "outputs": [{"output_type": "display_data", "metadata": {},
                     "data": {MIME: record, "text/plain": f"nbcompile record {XSS}"}}],
    } for i, (name, record) in enumerate(cases)]
    nb = {"nbformat": 4, "nbformat_minor": 5, "cells": cells, "metadata": {
        "kernelspec": {"name": "python3", "display_name": "Python 3 (ipykernel)",
                       "language": "python"}}}
    path.write_text(json.dumps(nb, separators=(",", ":")))
