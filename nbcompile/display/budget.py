"""The byte budget of each published output (a leaf: imports only core records).

Every output nbcompile publishes (a cell's live summary, a displayed ``report()``, a
trace, profile, comparison, suggestions, diagnosis) fits in one total budget, 256 KB by
default (``%nbcompile config --output-budget 512K``): the whole MIME bundle, every type
together. The split, one rule for every kind: each fallback (``text/html``,
``text/plain``, a chart) takes at most a quarter (``fallback_budget``); the JSON record
takes what the fallbacks leave (``record_budget``). What does not fit is cut from the
published copy only: a record carries an ``Omission`` mark, a fallback's long list ends
with a line saying how many were left out and where the full list is (``Room``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from ..core.records import Omission

DEFAULT_OUTPUT_BUDGET = 256 * 1024
#: Below this, a record cannot even carry its counts and marks.
MIN_OUTPUT_BUDGET = 16 * 1024
#: The largest budget accepted: no output the kernel publishes is larger, and the front end
#: refuses a record that is (the generated schema carries it: ``x-nbcompile-limits``).
MAX_OUTPUT_BUDGET = 8 * 1024 * 1024
#: Bytes of the one record sent to the Compile inspector on request (never saved in a
#: notebook): a target's record whole. The front end accepts this much from that reply only.
WHOLE_RECORD_BUDGET = 32_000_000

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
    if value > MAX_OUTPUT_BUDGET:
        raise ValueError(f"output budget {size!r} is too large: at most "
                         f"{MAX_OUTPUT_BUDGET // (1024 * 1024)}M (Lab refuses larger records; "
                         "nbcompile.report(x) has everything)")
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


def entry_size(value: Any) -> int:
    """Bytes of one MIME entry: a text as UTF-8, anything else as compact JSON."""
    return len(value.encode()) if isinstance(value, str) else json_size(value)


def bundle_size(bundle: dict[str, Any]) -> int:
    """Bytes of a whole MIME bundle, every type together."""
    return sum(entry_size(v) for v in bundle.values())


#: Each fallback of an output (``text/html``, ``text/plain``, a chart) takes at most
#: 1/FALLBACK_SHARE of the budget; the JSON record takes what the fallbacks leave.
FALLBACK_SHARE = 4


def fallback_budget(budget: int | None = None) -> int:
    """Bytes one fallback of an output may take (of ``budget``, the output budget by
    default)."""
    return (output_budget() if budget is None else budget) // FALLBACK_SHARE


def record_budget(*fallbacks: str, budget: int | None = None) -> int:
    """Bytes the JSON record may take: the budget less what its ``fallbacks`` took."""
    total = output_budget() if budget is None else budget
    return max(total - sum(entry_size(f) for f in fallbacks), total // FALLBACK_SHARE)


def more_note(count: int, what: str, where: str) -> str:
    """The line that ends a capped list: ``... and 2,950 more compiles; the full list:
    WHERE``."""
    return f"... and {count:,} more {what}; the full list: {where}"


class Room:
    """What is left of one fallback's bytes, spent piece by piece. Long lists (ranked,
    most relevant first) take items while they fit and end with a note saying how many
    were left out (``more_note``); room for that note is kept from the start."""

    def __init__(self, limit: int | None) -> None:
        self.left = limit  # None: no limit
        self.shown = 0  # how many items the last ``take`` kept

    def spend(self, text: str) -> str:
        """Count ``text`` (a part always shown: headings, counts) and return it."""
        if self.left is not None:
            self.left -= len(text.encode())
        return text

    def take(self, items: Iterable[str], count: int, note: Callable[[int], str],
             share: float = 1.0) -> list[str]:
        """The first of ``items`` (``count`` in all, rendered lazily) that fit in
        ``share`` of the room left, then ``note(n)`` for the ``n`` left out."""
        if self.left is None:
            taken = list(items)
            self.shown = len(taken)
            return taken
        limit = int(max(self.left, 0) * share) - (len(note(count).encode()) if count else 0)
        taken: list[str] = []
        used = 0
        for item in items:
            size = len(item.encode()) + 1  # and a separator (a newline)
            if used + size > limit:
                break
            taken.append(item)
            used += size
        self.shown = len(taken)
        if len(taken) < count:
            taken.append(note(count - len(taken)))
        self.left -= sum(len(t.encode()) + 1 for t in taken)
        return taken


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


def fit_record(data: dict[str, Any], budget: int, measured: int | None = None
               ) -> dict[str, Any]:
    """Cut ``data`` (a published target record, changed in place) to ``budget`` bytes of
    JSON: lists are halved, in ``TRIM_ORDER``, keeping their first items; each cut adds
    an ``Omission`` to ``data["omitted"]``. Long texts were capped before."""
    name = data.get("name", "obj")
    omitted: dict[str, int] = {}
    # The size is measured once and then kept by what each cut removes and each mark
    # adds (compact JSON: an item's bytes plus one comma per item but the first), not
    # re-measured after every halving: a live summary update fits its record each time.
    # ``measured``: the record's JSON size where the caller measured it already (unless
    # the record had no "omitted" key then).
    known = measured if "omitted" in data else None
    data.setdefault("omitted", [])
    size = json_size(data) if known is None else known

    def over() -> bool:
        return size > budget

    for path, attr in TRIM_ORDER:
        while over():
            lists = [lst for lst in _lists(data, path) if lst]
            if not lists:
                break
            marks = json_size(data["omitted"])
            for lst in lists:
                keep = len(lst) // 2
                omitted[attr] = omitted.get(attr, 0) + len(lst) - keep
                # The cut items' bytes in place: the slice as one JSON list less its
                # brackets, and the comma that joined it to the items kept.
                size -= json_size(lst[keep:]) - 2 + (1 if keep else 0)
                del lst[keep:]
            # Marked before the next measure: the mark's own bytes count too.
            _mark(data, path, how_to_get(name, attr), omitted[attr])
            size += json_size(data["omitted"]) - marks
        if path == "code_diffs" and over():
            _cap_output_code(data, budget // 4, name)
            size = json_size(data)
    if over():  # last resort: the whole generated module stays in the kernel only
        _cap_output_code(data, 0, name)
    kept = len(data.get("kernels", []))
    for line in data.get("annotations", []):  # no reference to a kernel left out
        line["kernel_refs"] = [i for i in line.get("kernel_refs", []) if i < kept]
    data["truncated"] = data.get("truncated", False) or bool(data["omitted"])
    return data


def fit_list(data: dict[str, Any], key: str, budget: int, how: str) -> dict[str, Any]:
    """Cut the list ``data[key]`` (changed in place), keeping its first items, until
    ``data`` is within ``budget`` bytes of JSON; the cut is said in ``data["notes"]``."""
    items = data.get(key) or []
    whole = len(items)
    note = ""
    while items and json_size(data) > budget:
        del items[len(items) // 2:]
        data["notes"] = [n for n in data.get("notes", []) if n != note]
        note = (f"{whole - len(items)} more {key} left out of this output (output budget): "
                f"{how}")
        data.setdefault("notes", []).append(note)
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

