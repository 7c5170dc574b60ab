"""Big but well-formed records of the kinds found freezing Lab (a trace of 60k
compiles over 300 ranks, 20k ranks x 20k compile ids, 1e6 problems, a 200k-frame stack,
50k graph breaks, a profile of 150k kernels, 40k suggestions), each built from a real
record (tests/fixtures/records/) and clipped to the largest record the validator accepts
(``x-nbcompile-limits`` in the generated schema: the kernel's largest output budget).
Shared by test_fuzz_records.py and measure_stalls.py."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nbcompile.display.budget import json_size

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "tests" / "fixtures" / "records"
SCHEMA = ROOT / "nbcompile" / "schema" / "record-v1.schema.json"

Case = tuple[str, Any]


def max_record_bytes() -> int:
    """The largest record the validator accepts, in bytes of JSON (from the schema)."""
    return json.loads(SCHEMA.read_text())["x-nbcompile-limits"]["max_record_bytes"]


def _fixture(kind: str) -> dict:
    return json.loads((RECORDS / f"{kind}.json").read_text())


def clip(record: dict, key: Callable[[dict], list], max_bytes: int | None) -> dict:
    """``record`` with the list ``key(record)`` cut (from the end) until the record is at
    most ``max_bytes`` of JSON (``json_size``, as the kernel's budget counts): what the
    kernel publishes at its largest budget. The longest prefix that fits, found from each
    item's bytes (the record measured once without the list, each item once): not by
    measuring the whole record again and again."""
    if max_bytes is None:
        return record
    items = key(record)
    whole = list(items)
    items[:] = []
    used = json_size(record)  # the empty list's brackets included
    kept = 0
    for item in whole:
        used += json_size(item) + (1 if kept else 0)  # and a comma before all but the first
        if used > max_bytes:
            break
        kept += 1
    items[:] = whole[:kept]
    return record


def _index_entry(base: dict, rank: int | None, compile_id: str) -> dict:
    """A compile as the kernel publishes it beyond its content budget (index only)."""
    return {**base, "rank": rank, "compile_id": compile_id, "graph_breaks": [], "graphs": [],
            "guards": "", "kernels": [], "output_code": "", "contents_omitted": True}


def _trace(compiles: list[dict], ranks: list[int]) -> dict:
    rec = _fixture("trace")
    rec.update(compiles=compiles, ranks=ranks, truncated=True)
    return rec


def cases(max_bytes: int | None) -> list[Case]:
    """The issue's shapes, each clipped to ``max_bytes`` (None: whole)."""
    trace = _fixture("trace")
    base = trace["compiles"][1]
    out: list[Case] = []
    compiles = [_index_entry(base, r, f"{i}/0") for i in range(200) for r in range(300)]
    out.append(("trace 60k compiles x 300 ranks",
                clip(_trace(compiles, list(range(300))), lambda r: r["compiles"], max_bytes)))
    compiles = [_index_entry(base, i, f"{i}/0") for i in range(20_000)]
    out.append(("trace 20k ranks x 20k ids",
                clip(_trace(compiles, list(range(20_000))), lambda r: r["compiles"], max_bytes)))
    rec = _trace(trace["compiles"], [])
    rec["problems"] = [f"rank_{i % 8}.log:{i}: a malformed event (not JSON)"
                       for i in range(1_000_000)]
    out.append(("trace 1e6 problems", clip(rec, lambda r: r["problems"], max_bytes)))
    deep = copy.deepcopy(base)
    deep["stack"] = [{"filename": f"/src/mod{i % 97}.py", "line": f"f{i}(x)", "lineno": i + 1}
                     for i in range(200_000)]
    out.append(("trace 200k-frame stack",
                clip(_trace([deep], []), lambda r: r["compiles"][0]["stack"], max_bytes)))
    broken = copy.deepcopy(base)
    gb = _fixture("summary")["targets"][0]["graph_breaks"][0]
    gb = {**gb, "stack": gb["stack"][-2:]}
    broken["graph_breaks"] = [{**gb, "lineno": i} for i in range(50_000)]
    out.append(("trace 50k breaks",
                clip(_trace([broken], []), lambda r: r["compiles"][0]["graph_breaks"],
                     max_bytes)))
    prof = _fixture("profile")
    k = prof["kernels"][0]
    prof["kernels"] = [{**k, "name": f"triton_poi_fused_{i}", "event": f"graph_0_k{i}",
                        "lines": []} for i in range(150_000)]
    prof["truncated"] = True
    out.append(("profile 150k kernels", clip(prof, lambda r: r["kernels"], max_bytes)))
    sug = _fixture("suggestions")
    item = sug["items"][0]
    sug["items"] = [{**item, "problem": {**item["problem"], "lineno": i}} for i in range(40_000)]
    out.append(("suggestions 40k", clip(sug, lambda r: r["items"], max_bytes)))
    return out
