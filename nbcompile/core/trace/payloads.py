"""Reading the text payloads of the structured trace: graph breaks and recompile reasons.

Source lines: a break or a stack names ``file:line``; its text comes from a *source
reader* (``SourceReader``). Live capture reads ``linecache`` (notebook cells live there);
a TORCH_TRACE log is untrusted input, so its reader (``core/logs``) never looks at local
files unless asked to (``source_root=``) and otherwise shows the line as the log printed
it. The reader in effect is a context variable (``reading_sources``), so the parsers that
call ``source_line`` need not pass it along; ``linecache_line`` is the default.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .. import sources
from ..records import GraphBreak
from ..torch_compat import gbid_documentation_link

_BREAK_AT = re.compile(r"^Graph break in user code at (?P<file>.+):(?P<line>\d{1,9})\s*$", re.M)
_COMPILE_PREFIX = re.compile(r"^\s*(?P<frame>\d+)/(?P<version>\d+):\s*")
_GUARD_COMMENT = re.compile(r"\s{2,}#\s.*$")  # "guard   # source line  # file:line in fn"
_DOC_URL = re.compile(r"For more details about this graph break, please visit:\s*(?P<url>\S+)")
_GB_ID = re.compile(r"/gb(?P<num>\d+)\.html", re.I)
#: A frame line of a Python traceback as Dynamo prints user stacks.
FRAME_LINE = re.compile(
    r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d{1,9})(?:, in (?P<name>.+))?\s*$')
_CARETS = re.compile(r"^[\s^~]*$")
#: Documentation sites a break's link may point to (https only; anything else is dropped).
DOC_SITES = ("https://pytorch.org/", "https://docs.pytorch.org/",
             # torch's own graph-break registry (``torch._dynamo.exc`` links there)
             "https://meta-pytorch.github.io/compile-graph-break-site/",
             "https://pytorch-labs.github.io/compile-graph-break-site/")
_URL_CHARS = re.compile(r"^[A-Za-z0-9._~:/?#@!$&()*+,;=%-]+$")
_MAX_URL = 300

#: ``(filename, lineno, text the payload printed or "") -> the line's text``.
SourceReader = Callable[[str, int, str], str]


def linecache_line(filename: str, lineno: int, logged: str = "") -> str:
    """Live capture's reader: the stripped text of ``filename:lineno`` as the file is now
    (``sources.line``: cells from ``linecache``, files as on disk). ``logged`` is
    ignored."""
    return sources.line(filename, lineno)


def logged_line(filename: str, lineno: int, logged: str = "") -> str:
    """A log's reader: only the text the log itself printed (no file is read)."""
    return logged.strip()


_reader: contextvars.ContextVar[SourceReader] = contextvars.ContextVar(
    "nbcompile_source_reader", default=linecache_line)


@contextlib.contextmanager
def reading_sources(reader: SourceReader) -> Iterator[None]:
    """Within this block, ``source_line`` (and every parser that calls it) uses ``reader``."""
    token = _reader.set(reader)
    try:
        yield
    finally:
        _reader.reset(token)


def source_line(filename: str | None, lineno: int | None, logged: str = "",
                reader: SourceReader | None = None) -> str:
    """The stripped text of ``filename:lineno``, from ``reader`` (else the reader in
    effect, see ``reading_sources``); ``logged`` is the text the payload printed, if any."""
    if not filename or not lineno or not isinstance(lineno, int) or isinstance(lineno, bool):
        return ""
    return (reader or _reader.get())(filename, lineno, logged)


def printed_lines(text: str) -> dict[tuple[str, int], str]:
    """``(file, line) -> code`` for every traceback frame in ``text`` that printed its code
    line (the line after ``File "...", line N, in fn``)."""
    out: dict[tuple[str, int], str] = {}
    lines = text.splitlines()
    for i, raw in enumerate(lines):
        m = FRAME_LINE.match(raw)
        if m is None or i + 1 >= len(lines):
            continue
        code = lines[i + 1]
        if FRAME_LINE.match(code) or _CARETS.match(code) or \
                code.startswith("Traceback (most recent call last)"):
            continue
        out.setdefault((m.group("file"), int(m.group("line"))), code.strip())
    return out


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


def parse_graph_break(payload: str, compile_id: str = "",
                      reader: SourceReader | None = None) -> GraphBreak:
    """Parse a ``dynamo_graph_break_reason`` artifact into a ``GraphBreak``.

    Two shapes: torch 2.13+ writes ``Graph Break Reason: Encountered graph break when
    attempting to trace ...`` and the break type on a later line; torch <= 2.9 writes the
    break type on the ``Graph Break Reason:`` line itself, followed by ``Explanation:``.
    The break's line text comes from ``reader`` (see ``source_line``), given what the
    payload's user traceback printed for that line.
    """
    head = payload.split("User code traceback:", 1)[0]
    filename: str | None = None
    lineno: int | None = None
    m = _BREAK_AT.search(head)
    if m:
        filename, lineno = m.group("file"), int(m.group("line"))
    message = parse_dynamo_message(head)
    explanation, hints = message.explanation, message.hints
    raw_reason = ""
    gb_type = ""
    after_reason = False
    reason_then_explanation = False  # torch <= 2.9: the reason line is the break type
    for line in head.splitlines():
        stripped = line.strip()
        if stripped.startswith("Graph Break Reason:"):
            raw_reason = stripped.removeprefix("Graph Break Reason:").strip()
            after_reason = True
        elif stripped.startswith(("Explanation:", "Hint:")):
            if after_reason and not gb_type and stripped.startswith("Explanation:"):
                reason_then_explanation = True
            after_reason = False
        elif after_reason and stripped and not gb_type:
            gb_type = stripped
    if reason_then_explanation and raw_reason and \
            not raw_reason.startswith("Encountered graph break"):
        gb_type = raw_reason
    if gb_type and explanation:
        reason = f"{gb_type}: {explanation}"
    else:
        reason = explanation or raw_reason or head.strip().splitlines()[0] if head.strip() else ""
    logged = printed_lines(payload).get((filename, lineno), "") \
        if filename and lineno is not None else ""
    link = graph_break_link(payload, gb_type)
    return GraphBreak(
        reason=reason,
        filename=filename,
        lineno=lineno,
        line=source_line(filename, lineno, logged, reader),
        hint="\n".join(hints),
        explanation=explanation,
        gb_type=gb_type,
        compile_id=compile_id,
        gb_id=link["gb_id"],
        doc_url=link["doc_url"],
    )


def documentation_url(url: str) -> str:
    """``url`` if it is an https link into PyTorch's documentation (``DOC_SITES``), else
    ``""``: a log is untrusted, and its links end up in ``href``s."""
    url = url.strip()
    if len(url) > _MAX_URL or not _URL_CHARS.match(url) or ".." in url:
        return ""
    return url if any(url.startswith(site) for site in DOC_SITES) else ""


def graph_break_link(payload: str, gb_type: str = "") -> dict[str, str]:
    """``gb_id`` ("GB0170") and ``doc_url`` of a break: the URL torch prints in the reason,
    else torch's registry looked up by ``gb_type``; empty strings when neither knows it.
    Only links into PyTorch's documentation are kept (``documentation_url``)."""
    m = _DOC_URL.search(payload)
    url = documentation_url(m.group("url").rstrip(".")) if m else ""
    if not url and gb_type:
        try:
            url = documentation_url(gbid_documentation_link(gb_type))
        except (ImportError, OSError, ValueError, TypeError):
            url = ""
    gb = _GB_ID.search(url)
    return {"gb_id": f"GB{gb.group('num')}" if gb else "", "doc_url": url}


def _reason_lines(payload: str) -> list[str]:
    """The lines of a ``recompile_reasons`` payload (plain text or a JSON list)."""
    text = payload.strip()
    if text.startswith("["):  # json-encoded list
        import json

        try:
            items = json.loads(text)
        except (ValueError, RecursionError):
            items = None
        if isinstance(items, list):
            text = "\n".join(str(i) for i in items)
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


def recompile_versions(payload: str) -> list[tuple[str, str]]:
    """The compiled versions of a ``recompile_reasons`` artifact, newest first, as torch
    lists them: ``(compile id, failed guard(s))``, each version's guards ``; ``-joined
    (the id is "" for lines no ``0/1:`` prefix names)."""
    versions: list[tuple[str, list[str]]] = []
    in_stack = False
    for raw in _reason_lines(payload):
        m = _COMPILE_PREFIX.match(raw)
        if m:
            in_stack = False
            versions.append((f"{m.group('frame')}/{m.group('version')}", []))
        elif raw.strip() == "User stack trace:":
            in_stack = True
        if in_stack:
            continue
        line = _GUARD_COMMENT.sub("", _COMPILE_PREFIX.sub("", raw)).strip()
        if line:
            if not versions:
                versions.append(("", []))
            versions[-1][1].append(line)
    return [(cid, "; ".join(guards)) for cid, guards in versions if guards]


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
    if "GLOBAL_STATE" in g or "___check_global_state" in g or "grad_mode" in g:
        return global_state_text(g)
    return g


#: The parts of torch's global state Dynamo guards on, by the names its
#: ``GLOBAL_STATE changed: ...`` guard gives them (``GlobalStateGuard::reason``), in words.
GLOBAL_STATE_WORDS = {
    "grad_mode": "grad mode",
    "autocast": "autocast",
    "torch_function": "__torch_function__ handling",
    "deterministic_algorithms": "deterministic algorithms",
    "deterministic_algorithms_warn_only": "deterministic algorithms' warn_only",
    "allow_tf32": "TF32 matmuls",
    "allow_fp16_reduce": "reduced-precision fp16 reductions",
    "allow_bf16_reduce": "reduced-precision bf16 reductions",
    "num_threads": "thread count",
    "default_dtype": "default dtype",
}
_GLOBAL_STATE = re.compile(r"GLOBAL_STATE changed:?(?P<names>[\w ]*)")


def global_state_names(guard: str) -> list[str]:
    """The parts of the global state a failed ``GLOBAL_STATE`` guard names, as torch
    names them (``deterministic_algorithms``); [] when it names none (older torch)."""
    m = _GLOBAL_STATE.search(guard)
    return m.group("names").split() if m else []


def global_state_text(guard: str) -> str:
    """A failed global-state guard in words: the parts torch names, or that it named
    none."""
    names = global_state_names(guard)
    if not names:
        return (f"torch's global state changed; this torch does not say which part "
                f"({guard})")
    parts = ", ".join(GLOBAL_STATE_WORDS.get(n, n) for n in names)
    return f"torch's global state changed: {parts} ({guard})"
