"""Writing TORCH_TRACE logs for the log reader's tests: events, graph breaks, compiles,
and generated hostile trace directories (every field of every kind nbcompile reads, filled
with the wrong types, junk, special files, markup and many files)."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
from pathlib import Path

SECRET = "NBCOMPILE-SECRET-7f3a9c"


HEADER = "V1122 09:00:00.000000 1 torch/_dynamo/convert_frame.py:1] "


HUGE = "__NBCOMPILE_HUGE__"  # written as the JSON number 1e400 (inf once parsed)


IDS = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}


# --- writing logs --------------------------------------------------------------------
def event(metadata: dict, payload: str | None = None) -> str:
    """One trace event as torch writes it: glog header + JSON, then tab-indented payload."""
    md = dict(metadata)
    if payload is not None:
        md["has_payload"] = hashlib.md5(payload.encode()).hexdigest()
    text = HEADER + json.dumps(md).replace(f'"{HUGE}"', "1e400") + "\n"
    if payload is not None:
        text += "".join(f"\t{ln}\n" for ln in payload.split("\n"))
    return text


def break_payload(file: str, line: int, *, printed: str | None = None,
                  url: str = "https://docs.pytorch.org/docs/stable/compile/gb0059.html",
                  reason: str = "Failed to trace builtin operator") -> str:
    """A torch 2.13-shaped ``dynamo_graph_break_reason`` (see graph_break.log)."""
    frame = f'  File "{file}", line {line}, in f'
    return "\n".join([
        f"Graph break in user code at {file}:{line}",
        "Graph Break Reason: Encountered graph break when attempting to trace CALL: a "
        "function call, e.g. f(x, y):",
        "",
        reason,
        "  Explanation: Dynamo does not know how to trace builtin operator `print`",
        "  Hint: Avoid calling builtin `print`.",
        "",
        f" For more details about this graph break, please visit: {url}",
        "",
        "User code traceback:",
        frame,
        *([f"    {printed}"] if printed is not None else []),
        "",
    ])


def compile_events(frame: int = 0, *, name: str = "f", file: str = "/src/prog.py",
                   metrics: dict | None = None, start: dict | None = None,
                   extra: list[str] = ()) -> list[str]:
    ids = {"frame_id": frame, "frame_compile_id": 0, "attempt": 0}
    start = start if start is not None else {"stack": [{"line": 4, "name": name,
                                                        "filename": file}]}
    m = {"co_name": name, "co_filename": file, "co_firstlineno": 4,
         "entire_frame_compile_time_s": 0.5, **(metrics or {})}
    return [event({"dynamo_start": start, **ids}), *extra,
            event({"compilation_metrics": m, **ids})]


def write_log(path: Path, *events: str | list[str]) -> Path:
    flat: list[str] = []
    for e in events:
        flat.extend([e] if isinstance(e, str) else e)
    path.write_text("".join(flat))
    return path


def break_artifact(payload: str, frame: int = 0) -> str:
    return event({"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"},
                  "frame_id": frame, "frame_compile_id": 0, "attempt": 0}, payload)


def _kernel_code(handle: str) -> str:
    return ("def call(args):\n    a, b = args\n    buf0 = empty((2, 2))\n"
            f"    # [Provenance debug handles] {handle}\n"
            "    extern_kernels.mm(a, b, out=buf0)\n    return (buf0, )\n")


# --- fuzz: generated hostile directories ---------------------------------------------------
#: Every metadata field of the event kinds nbcompile reads, with its path in the metadata.
FIELDS = [
    ("str", ()), ("dynamo_start", ()), ("dynamo_start", ("stack",)),
    ("dynamo_start", ("stack", 0)), ("dynamo_start", ("stack", 0, "line")),
    ("dynamo_start", ("stack", 0, "name")), ("dynamo_start", ("stack", 0, "filename")),
    ("dynamo_start", ("stack", 0, "loc")), ("ids", ("frame_id",)),
    ("ids", ("frame_compile_id",)), ("ids", ("attempt",)), ("ids", ("rank",)),
    ("ids", ("has_payload",)), ("artifact", ()), ("artifact", ("name",)),
    ("compilation_metrics", ()),
    *[("compilation_metrics", (k,)) for k in (
        "co_name", "co_filename", "co_firstlineno", "graph_op_count", "fail_type",
        "fail_reason", "fail_user_frame_filename", "fail_user_frame_lineno",
        "dynamo_config", "recompile_reason", "restart_reasons",
        "dynamo_time_before_restart_s", "entire_frame_compile_time_s",
        "dynamo_cumulative_compile_time_us", "inductor_cumulative_compile_time_us",
        "guard_latency_us", "inductor_fx_local_cache_hit_count")],
    ("bwd_compilation_metrics", ("inductor_compile_time_s",)),
    ("inductor_output_code", ("filename",)), ("chromium_event", ()),
]


VALUES = [None, True, -1, 2 ** 70, HUGE, "abc", "", [], {}, [1, "x", None], {"a": {"b": 1}},
          "\x1b[2J<script>alert(1)</script>\u202e", "9" * 30]


def _base_events(rng: random.Random, secret: Path) -> list[tuple[dict, str | None]]:
    """(metadata, payload) of a small healthy compile that names the secret everywhere."""
    s = str(secret)
    ids = dict(IDS)
    chromium = json.dumps({"name": "backend_compile", "ts": 1.0, "ph": "B"})
    return [
        ({"str": [s, 0]}, None),
        ({"dynamo_start": {"stack": [{"line": 1, "name": "f", "filename": 0, "loc": "x"}]},
          **ids}, None),
        ({"chromium_event": {}, **ids}, chromium),
        ({"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"}, **ids},
         break_payload(s, 1, url="javascript:alert(1)")),
        ({"artifact": {"name": "recompile_reasons", "encoding": "json"}, **ids},
         json.dumps(["0/0: L['x'] == 1"])),
        ({"dynamo_output_graph": {"sizes": {}}, **ids},
         f"def forward(self, x):\n    # File: {s}:1 in f, code: x\n    sin = torch.sin(x)"),
        ({"inductor_output_code": {"filename": s}, **ids}, _kernel_code("extern_kernels.mm:1")),
        ({"artifact": {"name": "inductor_provenance_tracking_kernel_stack_traces",
                       "encoding": "json"}, **ids},
         json.dumps({"extern_kernels.mm:1": [f'  File "{s}", line 1, in f\n']})),
        ({"compilation_metrics": {"co_name": "f", "co_filename": s, "co_firstlineno": 1,
                                  "fail_type": "Unsupported", "fail_reason": "x",
                                  "fail_user_frame_filename": s, "fail_user_frame_lineno": 1,
                                  "entire_frame_compile_time_s": 0.1}, **ids}, None),
        ({"bwd_compilation_metrics": {"inductor_compile_time_s": 0.1}, **ids}, None),
    ]


def _set(md: dict, kind: str, path: tuple, value) -> bool:
    """Replace the field at ``path`` under ``md[kind]`` (or a locating field): True if set."""
    if kind == "ids":
        md[path[0]] = value
        return True
    if kind not in md:
        return False
    if not path:
        md[kind] = value
        return True
    node = md[kind]
    for part in path[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return False
    if isinstance(node, (dict, list)):
        try:
            node[path[-1]] = value
            return True
        except IndexError:
            return False
    return False


def _type_confusion(directory: Path, rng: random.Random, secret: Path) -> None:
    """One file per (field, hostile value): each file is one mutated healthy compile."""
    n = 0
    for kind, path in FIELDS:
        for value in VALUES:
            lines = []
            for md, payload in _base_events(rng, secret):
                md = json.loads(json.dumps(md))
                if event_kind_of(md) == kind or kind == "ids":
                    _set(md, kind, path, value)
                lines.append(event(md, payload))
            (directory / f"dedicated_log_torch_trace_rank_{n % 3}_{n}.log").write_text(
                "".join(lines))
            n += 1


def event_kind_of(md: dict) -> str:
    keys = {"rank", "frame_id", "frame_compile_id", "attempt", "has_payload"}
    return next((k for k in md if k not in keys), "")


def _healthy(rng: random.Random, secret: Path) -> str:
    return "".join(event(md, p) for md, p in _base_events(rng, secret))


def _junk(directory: Path, rng: random.Random, secret: Path) -> None:
    healthy = _healthy(rng, secret).encode()
    (directory / "dedicated_log_torch_trace_rank_0_bin.log").write_bytes(rng.randbytes(50_000))
    (directory / "junk.log").write_bytes(b"V1122 " + rng.randbytes(5000))
    (directory / "dedicated_log_torch_trace_rank_1_gz.log").write_bytes(gzip.compress(healthy))
    (directory / "trace.log.gz").write_bytes(gzip.compress(healthy))
    for i in range(8):  # truncated at random points, and with bytes flipped
        cut = rng.randrange(1, len(healthy))
        (directory / f"dedicated_log_torch_trace_rank_2_cut{i}.log").write_bytes(healthy[:cut])
        flipped = bytearray(healthy)
        for _ in range(20):
            flipped[rng.randrange(len(flipped))] = rng.randrange(256)
        (directory / f"dedicated_log_torch_trace_rank_3_flip{i}.log").write_bytes(flipped)
    bad_utf8 = (HEADER + '{"dynamo_start": {"stack": []}, "frame_id": 0}').encode() \
        .replace(b"[]", b'["\xff\xfe\xc3"]') + b"\n\t\xff\xfe payload\n"
    (directory / "dedicated_log_torch_trace_rank_4_utf8.log").write_bytes(
        bad_utf8 + healthy)
    (directory / "dedicated_log_torch_trace_rank_5_nul.log").write_bytes(
        healthy.replace(b"f", b"f\x00", 3))


def _special(directory: Path, rng: random.Random, secret: Path) -> None:
    (directory / "dedicated_log_torch_trace_rank_0_ok.log").write_text(_healthy(rng, secret))
    os.mkfifo(directory / "x.log")
    os.mkfifo(directory / "dedicated_log_torch_trace_rank_1_fifo.log")
    (directory / "dedicated_log_torch_trace_rank_2_out.log").symlink_to(secret)
    (directory / "dedicated_log_torch_trace_rank_3_zero.log").symlink_to("/dev/zero")
    (directory / "dedicated_log_torch_trace_rank_4_dir.log").symlink_to(secret.parent)
    (directory / "dedicated_log_torch_trace_rank_5_dangling.log").symlink_to(
        directory / "nowhere")
    (directory / "sub.log").mkdir()
    (directory / "\x1b[2Jname\u202e.log").write_text(_healthy(rng, secret))
    (directory / b"bad\xffname.log".decode("utf-8", "surrogateescape")).write_text(
        _healthy(rng, secret))


def _markup(directory: Path, rng: random.Random, secret: Path) -> None:
    evil = "<script>alert(1)</script>\x1b[31m\u202e\r\n'\"&"
    lines = compile_events(name=evil, file=evil, extra=[
        break_artifact(break_payload(evil, 1, reason=evil, printed=evil,
                                     url=f"https://docs.pytorch.org/{evil}"))])
    (directory / "dedicated_log_torch_trace_rank_0_m.log").write_text(
        "".join(lines) + evil + "\n" + _healthy(rng, secret))


def _many(directory: Path, rng: random.Random, secret: Path) -> None:
    """2000 small logs, one compile each (one of them with a line that is not a trace)."""
    for i in range(2000):
        text = "".join(compile_events(name=f"f{i}", file=str(secret)))
        if i == 1000:
            text += "\x1b[2J not a trace line\n"
        (directory / f"dedicated_log_torch_trace_rank_{i}_m.log").write_text(text)


CASES = {"type_confusion": _type_confusion, "junk": _junk, "special": _special,
         "markup": _markup, "many": _many}


def write_trace_dir(directory: Path, files: int, mb_per_file: int = 0) -> Path:
    """``files`` rank logs, each one compile (``f<rank>``, frame 0) and then
    ``mb_per_file`` MiB of guard events (written from one repeated block: cheap)."""
    directory.mkdir(parents=True)
    for rank in range(files):
        ids = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
        stack = [{"line": 4, "name": f"f{rank}", "filename": "/src/prog.py"}]
        metrics = {"co_name": f"f{rank}", "co_filename": "/src/prog.py", "co_firstlineno": 4,
                   "entire_frame_compile_time_s": 0.5}
        head = (f"{HEADER}{json.dumps({'dynamo_start': {'stack': stack}, **ids})}\n"
                f"{HEADER}{json.dumps({'compilation_metrics': metrics, **ids})}\n")
        guard = f"{HEADER}{json.dumps({'guard_added_fast': {'expr': 'Eq(s0, 4)'}, **ids})}\n"
        block = (guard * ((1 << 20) // len(guard) + 1)).encode()
        with open(directory / f"dedicated_log_torch_trace_rank_{rank}_gen.log", "wb") as f:
            f.write(head.encode())
            for _ in range(mb_per_file):
                f.write(block)
    return directory
