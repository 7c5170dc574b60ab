"""The byte budget of each published output (a leaf: imports only core records).

Every output nbcompile publishes (a cell's live summary, a displayed ``report()``) fits in
one total budget, 256 KB by default (``%nbcompile config --output-budget 512K``). What
does not fit is cut from the published copy only, with an ``Omission`` mark saying how
many items were left out and how to get them in the kernel, where the full record stays.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..core.records import Omission

DEFAULT_OUTPUT_BUDGET = 256 * 1024
#: Below this, a record cannot even carry its counts and marks.
MIN_OUTPUT_BUDGET = 16 * 1024

_budget = DEFAULT_OUTPUT_BUDGET
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)(?:i?[bB])?\s*$")
_UNITS = {"": 1, "k": 1024, "m": 1024 * 1024}


def output_budget() -> int:
    """The current total byte budget of one published output."""
    return _budget


def set_output_budget(size: int | str) -> int:
    """Set the budget from bytes or a size such as ``"512K"``/``"1M"``; returns bytes."""
    value = parse_size(size) if isinstance(size, str) else int(size)
    if value < MIN_OUTPUT_BUDGET:
        raise ValueError(f"output budget {size!r} is too small: at least "
                         f"{MIN_OUTPUT_BUDGET // 1024}K")
    global _budget
    _budget = value
    return value


def parse_size(text: str) -> int:
    """``"256K"`` -> 262144; bytes, K or M (binary), an optional trailing B."""
    m = _SIZE.match(text)
    if not m:
        raise ValueError(f"output budget {text!r} is not a size: use bytes, K or M, "
                         "e.g. 262144, 256K, 1M")
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def json_size(value: Any) -> int:
    """Bytes ``value`` takes as JSON in a saved notebook (UTF-8, compact)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def how_to_get(name: str, attr: str) -> str:
    return f"nbcompile.report({name}).{attr}"


#: What a published record loses first when over budget: (dotted path, report attribute).
#: Bulky details go first; counts, statuses, breaks and advice stay longest.
TRIM_ORDER: tuple[tuple[str, str], ...] = (
    ("torch_logs", "torch_logs"),
    ("compiles[].graphs", "compiles[i].graphs"),
    ("code_diffs", "code_diffs"),
    ("compiles", "compiles"),
    ("annotations[].kernels", "annotations[i].kernels"),
    ("annotations[].externs", "annotations[i].externs"),
    ("annotations[].ops", "annotations[i].ops"),
    ("kernels", "kernels"),
    ("annotations", "annotations"),
    ("recompiles", "recompiles"),
    ("graph_breaks", "graph_breaks"),
)


def _lists(data: dict[str, Any], path: str) -> list[list[Any]]:
    """The lists at ``path``: ``key`` or ``key[].inner`` (one list per item of ``key``)."""
    if "[]." in path:
        outer, key = path.split("[].", 1)
        return [item[key] for item in data.get(outer, []) if item.get(key)]
    return [data[path]] if data.get(path) else []


def fit_record(data: dict[str, Any], budget: int) -> dict[str, Any]:
    """Cut ``data`` (a published target record, changed in place) to ``budget`` bytes of
    JSON: lists are halved, in ``TRIM_ORDER``, keeping their first items; each cut adds
    an ``Omission`` to ``data["omitted"]``. Long texts were capped before."""
    name = data.get("name", "obj")
    omitted: dict[str, int] = {}
    data.setdefault("omitted", [])

    def over() -> bool:
        return json_size(data) > budget

    for path, attr in TRIM_ORDER:
        while over():
            lists = [lst for lst in _lists(data, path) if lst]
            if not lists:
                break
            for lst in lists:
                keep = len(lst) // 2
                omitted[attr] = omitted.get(attr, 0) + len(lst) - keep
                del lst[keep:]
            # Marked before the next measure: the mark's own bytes count too.
            _mark(data, path, how_to_get(name, attr), omitted[attr])
        if path == "code_diffs" and over():
            _cap_output_code(data, budget // 4, name)
    if over():  # last resort: the whole generated module stays in the kernel only
        _cap_output_code(data, 0, name)
    kept = len(data.get("kernels", []))
    for line in data.get("annotations", []):  # no reference to a kernel left out
        line["kernel_refs"] = [i for i in line.get("kernel_refs", []) if i < kept]
    data["truncated"] = data.get("truncated", False) or bool(data["omitted"])
    return data


def _mark(data: dict[str, Any], field: str, how: str, count: int,
          unit: str = "items") -> None:
    data["omitted"] = [o for o in data["omitted"] if o["field"] != field]
    data["omitted"].append(Omission(field, count, how, unit).to_dict())


def _cap_output_code(data: dict[str, Any], limit: int, name: str) -> None:
    code = data.get("output_code", "")
    if len(code) > limit:
        data["output_code"] = code[:limit]
        before = sum(o["count"] for o in data["omitted"] if o["field"] == "output_code")
        _mark(data, "output_code", how_to_get(name, "output_code"),
              before + len(code) - limit, "characters")

