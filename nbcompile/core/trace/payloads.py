"""Reading the text payloads of the structured trace: graph breaks and recompile reasons."""

from __future__ import annotations

import linecache
import re
from dataclasses import dataclass, field

from ..records import GraphBreak

_BREAK_AT = re.compile(r"^Graph break in user code at (?P<file>.+):(?P<line>\d+)\s*$", re.M)
_COMPILE_PREFIX = re.compile(r"^\s*(?P<frame>\d+)/(?P<version>\d+):\s*")
_GUARD_COMMENT = re.compile(r"\s{2,}#\s.*$")  # "guard   # source line  # file:line in fn"
_DOC_URL = re.compile(r"For more details about this graph break, please visit:\s*(?P<url>\S+)")
_GB_ID = re.compile(r"/gb(?P<num>\d+)\.html", re.I)


def source_line(filename: str | None, lineno: int | None) -> str:
    """The stripped text of ``filename:lineno`` (cells live in ``linecache``)."""
    if not filename or not lineno:
        return ""
    return linecache.getline(filename, lineno).strip()


@dataclass(frozen=True)
class DynamoMessage:
    """A Dynamo error or graph-break message: its title, ``Explanation:`` and ``Hint:``s."""

    title: str
    explanation: str = ""
    hints: list[str] = field(default_factory=list)

    @property
    def summary(self) -> str:
        """``title: explanation`` (or just the title)."""
        return f"{self.title}: {self.explanation}" if self.explanation else self.title


def parse_dynamo_message(text: str) -> DynamoMessage:
    """Split a Dynamo message; the generic "report an issue to PyTorch" hint is dropped."""
    lines = [ln.strip() for ln in text.strip().splitlines()]
    explanation = next((ln.removeprefix("Explanation:").strip() for ln in lines
                        if ln.startswith("Explanation:")), "")
    hints = [ln.removeprefix("Hint:").strip() for ln in lines
             if ln.startswith("Hint:") and "report an issue" not in ln]
    return DynamoMessage(lines[0] if lines else "", explanation, hints)


def parse_graph_break(payload: str, compile_id: str = "") -> GraphBreak:
    """Parse a ``dynamo_graph_break_reason`` artifact into a ``GraphBreak``."""
    head = payload.split("User code traceback:", 1)[0]
    filename = lineno = None
    m = _BREAK_AT.search(head)
    if m:
        filename, lineno = m.group("file"), int(m.group("line"))
    message = parse_dynamo_message(head)
    explanation, hints = message.explanation, message.hints
    raw_reason = ""
    gb_type = ""
    after_reason = False
    for line in head.splitlines():
        stripped = line.strip()
        if stripped.startswith("Graph Break Reason:"):
            raw_reason = stripped.removeprefix("Graph Break Reason:").strip()
            after_reason = True
        elif stripped.startswith(("Explanation:", "Hint:")):
            after_reason = False
        elif after_reason and stripped and not gb_type:
            gb_type = stripped
    if gb_type and explanation:
        reason = f"{gb_type}: {explanation}"
    else:
        reason = explanation or raw_reason or head.strip().splitlines()[0] if head.strip() else ""
    return GraphBreak(
        reason=reason,
        filename=filename,
        lineno=lineno,
        line=source_line(filename, lineno),
        hint="\n".join(hints),
        explanation=explanation,
        gb_type=gb_type,
        compile_id=compile_id,
        **graph_break_link(payload, gb_type),
    )


def graph_break_link(payload: str, gb_type: str = "") -> dict[str, str]:
    """``gb_id`` ("GB0170") and ``doc_url`` of a break: the URL torch prints in the reason,
    else torch's registry looked up by ``gb_type``; empty strings when neither knows it."""
    m = _DOC_URL.search(payload)
    url = m.group("url").rstrip(".") if m else ""
    if not url and gb_type:
        try:
            from torch._dynamo.exc import get_gbid_documentation_link

            url = get_gbid_documentation_link(gb_type) or ""
        except (ImportError, OSError, ValueError):
            url = ""
    gb = _GB_ID.search(url)
    return {"gb_id": f"GB{gb.group('num')}" if gb else "", "doc_url": url}


def _reason_lines(payload: str) -> list[str]:
    """The lines of a ``recompile_reasons`` payload (plain text or a JSON list)."""
    text = payload.strip()
    if text.startswith("["):  # json-encoded list
        import json

        try:
            text = "\n".join(str(i) for i in json.loads(text))
        except ValueError:
            pass
    return text.splitlines()


def recompile_failed_versions(payload: str) -> list[tuple[int, int]]:
    """The compiled versions ``(frame id, frame compile id)`` whose guards failed, as
    the ``0/1:`` prefixes of a ``recompile_reasons`` payload name them."""
    found = (_COMPILE_PREFIX.match(raw) for raw in _reason_lines(payload))
    return [(int(m.group("frame")), int(m.group("version"))) for m in found if m]


def recompile_reason_groups(payload: str) -> list[list[str]]:
    """Guard failures of a ``recompile_reasons`` artifact, one list per compiled version
    (``0/1: ...`` starts a version's list; Dynamo lists the newest version first), without
    the ``0/1:`` prefixes, source comments and user stacks."""
    groups: list[list[str]] = []
    in_stack = False
    for raw in _reason_lines(payload):
        if _COMPILE_PREFIX.match(raw):
            in_stack = False
            groups.append([])
        elif raw.strip() == "User stack trace:":
            in_stack = True  # the guard's source location follows: not a reason
        if in_stack:
            continue
        line = _GUARD_COMMENT.sub("", _COMPILE_PREFIX.sub("", raw)).strip()
        if line:
            if not groups:
                groups.append([])
            groups[-1].append(line)
    return [g for g in groups if g]


def split_recompile_reasons(payload: str) -> list[str]:
    """Every distinct guard failure of a ``recompile_reasons`` artifact, newest first."""
    return list(dict.fromkeys(r for group in recompile_reason_groups(payload) for r in group))


_SOURCE = r"(?P<src>[LG]\[['\"](?P<name>[^'\"]+)['\"]\](?:\.\w+|\[[^\]]+\])*)"


def _readable_source(src: str, name: str) -> str:
    scope = "global" if src.startswith("G[") else "argument"
    rest = src[src.index("]") + 1 :]
    return f"{scope} {name}{rest}"


def explain_guard(guard: str) -> str:
    """Say in words what a failed guard means. Tensor reasons already read well."""
    g = guard.strip()
    if g.startswith("tensor ") or "mismatch" in g:
        return g
    m = re.fullmatch(r"len\(" + _SOURCE + r"\)\s*==\s*(?P<val>.+)", g)
    if m:
        what = _readable_source(m.group("src"), m.group("name"))
        return f"the length of {what} changed (the compiled code assumed {m.group('val')})"
    m = re.fullmatch(_SOURCE + r"\s*==\s*(?P<val>.+)", g)
    if m:
        what = _readable_source(m.group("src"), m.group("name"))
        return f"{what} changed (the compiled code assumed {m.group('src')} == {m.group('val')})"
    m = re.fullmatch(r"(?P<name>[A-Za-z_]\w*(?:\.\w+)*)\s*==\s*(?P<val>-?\d+(?:\.\d*)?)", g)
    if m and not m.group("name").startswith("___"):
        return (f"{m.group('name')} changed (the compiled code assumed {g}: a Python number "
                "is specialised on its value)")
    m = re.fullmatch(r"___stack\d+\s*==\s*(?P<val>.+)", g)
    if m:
        return (
            f"a Python number computed at run time changed (the compiled code assumed "
            f"{m.group('val')}); typically an .item() value that Dynamo specialised on"
        )
    m = re.search(r"___check_(?:type|obj)_id\(" + _SOURCE, g)
    if m:
        what = _readable_source(m.group("src"), m.group("name"))
        return f"{what} is a different object or type than when compiled ({g})"
    if "grad_mode" in g or "GLOBAL_STATE" in g:
        return f"global torch state changed, e.g. grad mode or thread count ({g})"
    return g
