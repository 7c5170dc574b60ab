"""What torch runs in place of a compiled frame, from Dynamo's transformed bytecode.

Dynamo replaces a frame's code with new code that calls the compiled graphs
(``__compiled_fn_N``), runs what it could not trace in plain Python, and continues in a
resume function (``__resume_at_N_M``, a frame compiled on its own). ``runs_as`` reads that
code: the literal source (decompiled by depyf, torch's bookkeeping calls kept), and the
walk in steps (graphs, the Python run eagerly at the graph break, the resume function),
each step taken from the bytecode's own calls and named from the compile's record.
"""

from __future__ import annotations

import dis
import io
import re
import tokenize
import types
from collections.abc import Callable, Sequence

from ..records import CompileRecord, RunsAs, RunStep, SourceLine
from ..units import clip
from .fx_graph import parse_graph

#: The literal source and ``dis`` kept per compile, in characters (a frame's transformed
#: code is a few dozen lines; a huge one is cut with a mark).
SOURCE_CAP = 20_000
#: Op names a graph step lists before "...".
OPS_SHOWN = 4

GRAPH_PREFIX = "__compiled_fn_"
RESUME_PREFIX = "__resume_at_"

#: The resume function's frame name (``co_name``) for a global Dynamo installed, or None.
ResumeLookup = Callable[[str], "str | None"]


def runs_as(code: types.CodeType, original: types.CodeType | None, record: CompileRecord,
            resume_frame: ResumeLookup | None = None) -> RunsAs:
    """``code`` (Dynamo's transformed code for ``record``'s frame, ``original`` the user's)
    as Python source and steps."""
    source, problem = decompiled(code)
    steps = _steps(_global_names(code), original, record, resume_frame)
    return RunsAs(source=source, steps=steps, walk=walk_text(steps),
                  dis="" if source else clip(dis.Bytecode(code).dis(), SOURCE_CAP),
                  problem=problem)


def decompiled(code: types.CodeType) -> tuple[str, str]:
    """``(source, "")`` from depyf, or ``("", why not)``."""
    try:
        import depyf  # pyright: ignore[reportMissingImports]
    except ImportError:
        return "", ("depyf is not installed (pip install depyf): the transformed code is "
                    "shown as bytecode (dis)")
    try:
        source = depyf.decompile(code)
    except Exception as e:  # noqa: BLE001 - a Python or torch depyf does not know
        why = str(e) if str(e).startswith(type(e).__name__) else f"{type(e).__name__}: {e}"
        return "", (f"depyf could not decompile it ({clip(why, 200)}): the transformed code "
                    "is shown as bytecode (dis)")
    return clip(source, SOURCE_CAP), ""


def _global_names(code: types.CodeType) -> list[str]:
    """The globals ``code`` loads, in bytecode order."""
    return [ins.argval for ins in dis.get_instructions(code)
            if ins.opname == "LOAD_GLOBAL" and isinstance(ins.argval, str)]


#: A global a ``dis`` text's ``LOAD_GLOBAL`` loads (``NULL + `` on Python 3.11+).
_DIS_GLOBAL = re.compile(r"^[ \t\d>]*LOAD_GLOBAL[ \t]+\d+[ \t]+\((?:NULL \+ )?"
                         r"(?P<name>[A-Za-z_][A-Za-z0-9_]{0,200})", re.MULTILINE)

#: A frame compile that made no new code (Dynamo gave the frame up): nothing in its place.
NO_NEW_CODE = ("no transformed code: Dynamo made none for this compile (it gave up the frame; "
               "its error or graph break says why), so a call that goes on runs the frame as "
               "written, in Python")

#: What a trace log holds of a frame's transformed code, in words.
NOT_IN_LOG = ("not in this log: torch logs the transformed code (as bytecode) of resume "
              "functions only, and torch 2.9 not even those")
RESUME_NOT_IN_LOG = ("not in this log: the torch that wrote it logged no transformed code "
                     "for this resume function (torch 2.9 logs none; 2.13 and 2.15 log a "
                     "resume function's, as bytecode)")
LOGGED_DIS = ("decompiled source is not in a trace log: torch logs a resume function's "
              "transformed code as bytecode (dis) only")


def logged_runs_as(dis_text: str, record: CompileRecord) -> RunsAs:
    """A resume function's transformed code as a trace log holds it (torch's ``dis``
    text): the steps read from the globals it loads, the bytecode, no source."""
    names = [m.group("name") for m in _DIS_GLOBAL.finditer(dis_text)]
    steps = _steps(names, None, record, None)
    return RunsAs(steps=steps, walk=walk_text(steps), dis=clip(dis_text, SOURCE_CAP),
                  problem=LOGGED_DIS)


def _steps(names: list[str], original: types.CodeType | None, record: CompileRecord,
           resume_frame: ResumeLookup | None) -> list[RunStep]:
    steps: list[RunStep] = []
    total = sum(n.startswith(GRAPH_PREFIX) for n in names)
    graphs = 0
    broke = False
    for name in names:
        if name.startswith(GRAPH_PREFIX):
            steps.append(_graph_step(record, graphs, total))
            graphs += 1
        elif name.startswith(RESUME_PREFIX):
            if not broke:  # the Python run where the trace stopped, then its resume
                steps.extend(_break_steps(record, original))
                broke = True
            frame = (resume_frame(name) if resume_frame else None) or ""
            before = next((s for s in reversed(steps) if s.kind == "resume"), None)
            what = f"resume in {frame}" if frame else "resume in a resume function"
            if before is not None:  # a data-dependent jump: one resume per branch
                what = ("or its copy for the other branch" if frame == before.frame
                        else f"or {what} (the other branch)")
            steps.append(RunStep(kind="resume", frame=frame, alternative=before is not None,
                                 text=what))
    if not broke:
        steps.extend(_break_steps(record, original))  # a break with nothing left to resume
    return steps


def _graph_step(record: CompileRecord, index: int, total: int) -> RunStep:
    """A compiled graph's call, named by its compile (``graph of 0/0 (2 ops: sin, mul)``)."""
    name = f"graph {index + 1} of {record.compile_id}" if total > 1 else (
        f"graph of {record.compile_id}")
    if index >= len(record.graphs):
        return RunStep(kind="graph", graph=index, text=f"{name} (not logged)")
    nodes = [n for n in parse_graph(record.graphs[index]) if n.is_compute]
    names = list(dict.fromkeys(n.op for n in nodes))
    shown = ", ".join(names[:OPS_SHOWN]) + (", ..." if len(names) > OPS_SHOWN else "")
    ops = f"{len(nodes)} op{'s' if len(nodes) != 1 else ''}" + (f": {shown}" if shown else "")
    return RunStep(kind="graph", graph=index, text=f"{name} ({ops})")


def _break_steps(record: CompileRecord, original: types.CodeType | None) -> list[RunStep]:
    """The Python run eagerly where this frame's trace stopped: its graph breaks, at this
    frame's line (a break inside a called function: the call, with the break's place)."""
    steps = []
    lines = _lines_of(original)
    for gb in record.graph_breaks:
        lineno, line, inner = gb.lineno, gb.line, None
        here = [f for f in gb.stack if original is not None
                and f.filename == original.co_filename and f.lineno in lines]
        if here and (here[-1].lineno, here[-1].filename) != (gb.lineno, gb.filename):
            lineno, line = here[-1].lineno, here[-1].line
            inner = SourceLine(gb.filename or "", gb.lineno or 0, gb.line)
        code = _code_only(line) or "the code"
        where = f" (line {lineno})" if lineno else ""
        text = f"{code} in Python{where}" + (
            f", whose call breaks at line {inner.lineno}" if inner else "")
        steps.append(RunStep(kind="python", lineno=lineno, text=text, inner=inner))
    return steps


def _code_only(line: str) -> str:
    """A source line without its trailing comment and runs of spaces."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(line.strip()).readline))
    except (tokenize.TokenError, SyntaxError):
        tokens = []
    comment = next((t for t in tokens if t.type == tokenize.COMMENT), None)
    code = line.strip()[:comment.start[1]] if comment is not None else line.strip()
    return " ".join(code.split())


def _lines_of(code: types.CodeType | None) -> set[int]:
    if code is None:
        return set()
    return {line for _, _, line in code.co_lines() if line is not None}


def target_walks(compiles: Sequence[CompileRecord]) -> list[list[RunStep]]:
    """One walk per frame a call enters, in steps: a resume step followed by the steps of
    that resume function's latest compile, a Python step whose call breaks inside by the
    steps of the called function's frame (when it compiled)."""
    latest: dict[str, CompileRecord] = {}
    for c in compiles:
        if c.runs_as is not None:
            latest[c.frame] = c
    called = {f.frame for c in latest.values() for s in c.runs_as.steps  # type: ignore[union-attr]
              if s.inner is not None and (f := _frame_at(s.inner, latest)) is not None}
    return [_stitched(c, latest, set()) for frame, c in latest.items()
            if not frame.startswith("torch_dynamo_resume_in_") and frame not in called]


def _frame_at(where: SourceLine, latest: dict[str, CompileRecord]) -> CompileRecord | None:
    """The compiled (non-resume) frame whose code holds ``where``: the one of its file
    starting last at or before its line."""
    holders = [c for c in latest.values() if c.filename == where.filename
               and 0 < c.firstlineno <= where.lineno
               and not c.frame.startswith("torch_dynamo_resume_in_")]
    return max(holders, key=lambda c: c.firstlineno, default=None)


def walk_text(steps: Sequence[RunStep]) -> str:
    """Steps in one line: ``graph of 0/0 (2 ops: sin, mul) -> print('x') in Python ...``."""
    return " -> ".join(s.text for s in steps)


def break_walks(steps: Sequence[RunStep]) -> list[tuple[RunStep, str]]:
    """A walk told once per graph break: ``(its Python step, "what torch runs at line N:
    the graph before it -> the Python -> where it resumes")``."""
    told = []
    for i, step in enumerate(steps):
        if step.kind != "python":
            continue
        start = i
        while start > 0 and steps[start - 1].kind == "graph":
            start -= 1
        end = i + 1
        while end < len(steps) and steps[end].kind == "resume":
            end += 1
        where = f" at line {step.lineno}" if step.lineno else ""
        told.append((step, f"what torch runs{where}: {walk_text(steps[start:end])}"))
    return told


def break_walk_texts(compiles: Sequence[CompileRecord]) -> dict[tuple[str, int], str]:
    """Each break's walk by the break's place ``(filename, line)``: the line itself, or
    for a break inside a called function, the line it broke at (``RunStep.inner``)."""
    texts: dict[tuple[str, int], str] = {}
    files = {c.frame: c.filename for c in compiles}
    for walk in target_walks(compiles):
        for step, text in break_walks(walk):
            if step.inner is not None:
                texts.setdefault((step.inner.filename, step.inner.lineno), text)
            elif step.lineno:
                for filename in set(files.values()):
                    texts.setdefault((filename, step.lineno), text)
    return texts


def _stitched(c: CompileRecord, latest: dict[str, CompileRecord],
              seen: set[str]) -> list[RunStep]:
    seen.add(c.frame)
    own = c.runs_as.steps if c.runs_as is not None else []
    steps: list[RunStep] = []
    for i, step in enumerate(own):
        steps.append(step)
        if step.kind == "resume" and i + 1 < len(own) and own[i + 1].kind == "resume":
            continue  # a branch's resumes are told together, then the one that compiled
        if step.kind == "resume":
            run = [s for s in reversed(steps) if s.kind == "resume"]
            after = next((latest[s.frame] for s in run if s.frame in latest), None)
        else:
            after = _frame_at(step.inner, latest) if step.inner is not None else None
        if after is not None and after.frame not in seen:
            steps.extend(_stitched(after, latest, seen))
    return steps
