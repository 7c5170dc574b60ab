"""Index a >= 1 GB TORCH_TRACE directory: ``python -m benchmarks.trace_index``.

Builds the directory in a temp dir (deleted after) by replaying real recorded logs
(``tests/fixtures/traces/record_runs.py``: a script with graph breaks and recompiles, one
rank of a torchrun DDP job) under new frame ids and ranks, then times
``nbcompile.open_trace(dir)`` plus the list of compiles per rank in a fresh process (from
interpreter start: the imports count) and reports MB/s and peak RSS above the bare
interpreter. The target (the README's benchmark table): >= 300 MB/s with <= 200 MB above
the interpreter, and no torch imported. Two hostile shapes are timed the same way (built in
the temp dir): a single line of ``--hostile-gb`` without a newline, and a header line of
that size between two events; each must be read in linear time within the same memory. If
a ``tlparse`` binary is found (``--tlparse PATH``, or on PATH; ``pip install tlparse``, a
benchmark-only tool, never a product dependency), its time and peak RSS on the same input
are printed beside ours as a ratio measured in this run.

``make benchmarks`` runs it as benchmark 12 at a reduced size (``bench_trace_index``).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

_FRAME_ID = re.compile(rb'"frame_id": (\d+)')
_RANK = re.compile(rb'"rank": \d+')
TARGET_MB_S = 300
TARGET_RSS_MB = 200

_INDEX = """
import json, resource, sys, time
t0 = time.perf_counter()  # the interpreter's own start-up (~20 ms) is not counted
interpreter = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
import nbcompile
report = nbcompile.open_trace(sys.argv[1])
per_rank = {r: [c.compile_id for c in cs] for r, cs in report.by_rank().items()}
elapsed = time.perf_counter() - t0
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"seconds": elapsed, "cpu_seconds": usage.ru_utime + usage.ru_stime,
                  "compiles": len(report.compiles),
                  "ranks": len(per_rank), "bytes": report.bytes_read,
                  "problems": len(report.problems), "torch": "torch" in sys.modules,
                  "interpreter_rss_kb": interpreter,
                  "peak_rss_kb": usage.ru_maxrss}))
"""


def source_logs(source: Path | None, work: Path) -> list[bytes]:
    """The recorded logs to replay (recorded now unless ``source`` holds them)."""
    if source is None:
        from tests.fixtures.traces import record_runs

        source = work / "recorded"
        for name in ("breaks", "ddp_healthy"):
            record_runs.record(name, source)
    logs = sorted(source.rglob("dedicated_log_torch_trace_*.log"))
    if not logs:
        sys.exit(f"no recorded logs under {source}")
    return [p.read_bytes() for p in logs]


def replay(logs: list[bytes], out: Path, ranks: int, target_bytes: int) -> int:
    """Write ``ranks`` per-rank logs totalling >= ``target_bytes``; returns bytes written."""
    out.mkdir(parents=True)
    per_rank = target_bytes // ranks + 1
    total = 0
    for rank in range(ranks):
        written, copy = 0, 0
        with open(out / f"dedicated_log_torch_trace_rank_{rank}_bench.log", "wb") as f:
            while written < per_rank:
                for data in logs:
                    offset = copy * 1000  # new frame ids -> new compile ids, payloads intact
                    chunk = _FRAME_ID.sub(lambda m, o=offset: b'"frame_id": %d'
                                          % (int(m.group(1)) + o), data)
                    chunk = _RANK.sub(b'"rank": %d' % rank, chunk)
                    f.write(chunk)
                    written += len(chunk)
                    copy += 1
        total += written
    return total


_HEADER = b"V1123 07:34:03.362000 14222 torch/_dynamo/utils.py:1759] "
_EVENT = _HEADER + b'{"dynamo_start": {"stack": []}, "frame_id": 0, "frame_compile_id": 0, ' \
    b'"attempt": 0}\n'


def hostile(out: Path, size: int) -> dict[str, Path]:
    """The hostile shapes, ``size`` bytes each, one directory each."""
    block = b"x" * (8 << 20)
    shapes = {}
    for name, head, tail in (
            ("a line without newline", _EVENT + _HEADER + b'{"junk": "', b""),
            ("a header line", _EVENT + _HEADER + b'{"junk": "', b'"}\n' + _EVENT)):
        d = out / name.replace(" ", "_")
        d.mkdir(parents=True)
        with open(d / "dedicated_log_torch_trace_rank_0_x.log", "wb") as f:
            f.write(head)
            for _ in range(size // len(block)):
                f.write(block)
            f.write(tail)
        shapes[name] = d
    return shapes


def find_tlparse() -> str | None:
    """A tlparse binary on PATH or next to this interpreter (a venv's bin), else None."""
    beside = Path(sys.executable).with_name("tlparse")
    return shutil.which("tlparse") or (str(beside) if beside.is_file() else None)


def index(trace_dir: Path) -> dict:
    """``_INDEX`` on ``trace_dir`` in a fresh process: its figures."""
    done = subprocess.run([sys.executable, "-c", _INDEX, str(trace_dir)],
                          capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        raise RuntimeError(done.stderr[-2000:])
    ours = json.loads(done.stdout.strip().splitlines()[-1])
    ours["above_mb"] = (ours["peak_rss_kb"] - ours["interpreter_rss_kb"]) / 1024
    ours["mb_s"] = ours["bytes"] / 1e6 / ours["seconds"]
    return ours


_CHILD = """
import json, resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"returncode": done.returncode, "peak_rss_kb": usage.ru_maxrss,
                  "cpu_seconds": usage.ru_utime + usage.ru_stime}))
"""


def _timed(cmd: list[str]) -> tuple[float, dict[str, int]]:
    """Wall seconds, exit code and peak RSS (kB) of ``cmd``, measured alone."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _CHILD, *cmd], capture_output=True, text=True,
                          check=True)
    return time.perf_counter() - t0, json.loads(done.stdout)


def run(size_gb: float = 1.0, ranks: int = 8, source: Path | None = None,
        tlparse: str | None = None, hostile_gb: float = 1.0) -> list[dict]:
    """Build, index and compare; returns the rows (``benchmarks/__main__.py``'s format)."""
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="nbcompile-trace-bench-") as tmp:
        work = Path(tmp)
        logs = source_logs(source, work)
        trace_dir = work / "trace"
        t0 = time.perf_counter()
        size = replay(logs, trace_dir, ranks, int(size_gb * (1 << 30)))
        built = time.perf_counter() - t0
        ours = index(trace_dir)
        mb = ours["bytes"] / 1e6
        detail = (f"{mb:.0f} MB in {ranks} rank logs (built from {len(logs)} recorded log(s) "
                  f"in {built:.1f} s): {ours['compiles']} compiles in {ours['seconds']:.2f} s "
                  f"from interpreter start ({ours['cpu_seconds']:.2f} s of CPU), peak RSS "
                  f"{ours['peak_rss_kb'] / 1024:.0f} MB "
                  f"({ours['above_mb']:.0f} MB above the interpreter), torch imported: "
                  f"{'yes' if ours['torch'] else 'no'}, {ours['problems']} problem(s)")
        rows.append({"name": f"12a. open_trace, {size / 1e9:.2f} GB of {ranks}-rank logs, MB/s",
                     "value": ours["mb_s"], "spread": None,
                     "target": f">= {TARGET_MB_S} MB/s",
                     "ok": ours["mb_s"] >= TARGET_MB_S and not ours["torch"],
                     "detail": detail})
        rows.append({"name": "12b. open_trace, peak RSS above the interpreter, MB",
                     "value": ours["above_mb"], "spread": None,
                     "target": f"<= {TARGET_RSS_MB} MB", "ok": ours["above_mb"] <= TARGET_RSS_MB})
        if tlparse:
            out = work / "tl_out"
            seconds, child = _timed([tlparse, str(trace_dir), "--all-ranks-html",
                                     "-o", str(out), "--overwrite", "--no-browser"])
            status = "ok" if child["returncode"] == 0 else f"exit {child['returncode']}"
            rows.append({"name": "12c. open_trace time / tlparse --all-ranks-html time",
                         "value": ours["seconds"] / seconds, "spread": None,
                         "target": "< 1 (faster)", "ok": ours["seconds"] < seconds,
                         "detail": f"tlparse ({status}) {seconds:.1f} s "
                                   f"({child['cpu_seconds']:.1f} s of CPU) = "
                                   f"{mb / seconds:.0f} MB/s, peak RSS "
                                   f"{child['peak_rss_kb'] / 1024:.0f} MB"})
        shutil.rmtree(trace_dir)
        if hostile_gb > 0:
            shapes = hostile(work / "hostile", int(hostile_gb * (1 << 30)))
            for letter, (name, path) in zip("de", shapes.items(), strict=True):
                h = index(path)
                rows.append({"name": f"12{letter}. hostile: {hostile_gb:g} GB {name}, MB/s",
                             "value": h["mb_s"], "spread": None,
                             "target": f"<= {TARGET_RSS_MB} MB RSS",
                             "ok": h["above_mb"] <= TARGET_RSS_MB and h["compiles"] >= 1,
                             "detail": f"{h['seconds']:.2f} s ({h['cpu_seconds']:.2f} s of "
                                       f"CPU), {h['above_mb']:.0f} MB above "
                                       f"the interpreter, {h['compiles']} compile(s), "
                                       f"{h['problems']} problem(s) noted"})
                shutil.rmtree(path)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-gb", type=float, default=1.0)
    parser.add_argument("--ranks", type=int, default=8)
    parser.add_argument("--hostile-gb", type=float, default=1.0,
                        help="size of each hostile shape (0: none)")
    parser.add_argument("--source", type=Path, default=None,
                        help="a directory of recorded logs (default: record them now)")
    parser.add_argument("--tlparse", default=find_tlparse(),
                        help="a tlparse binary to compare with (default: on PATH or in "
                             "this interpreter's bin)")
    args = parser.parse_args(argv)
    rows = run(args.size_gb, args.ranks, args.source, args.tlparse, args.hostile_gb)
    for r in rows:
        print(f"{r['name']}: {r['value']:.2f} (target {r['target']}: "
              f"{'met' if r['ok'] else 'MISSED'})")
        if r.get("detail"):
            print(f"    {r['detail']}")
    if not args.tlparse:
        print("tlparse: not found (pip install tlparse to compare; benchmark only)")


if __name__ == "__main__":
    main()
