"""Index a >= 1 GB TORCH_TRACE directory: ``python -m benchmarks.trace_index``.

Builds the directory in a temp dir (deleted after) by replaying real recorded logs
(``tests/fixtures/traces/record_runs.py``: a script with graph breaks and recompiles, one
rank of a torchrun DDP job) under new frame ids and ranks, then times
``nbcompile.open_trace(dir)`` plus the list of compiles per rank in a fresh process and
reports MB/s and peak RSS. Issue 11's target: under 30 s and under 500 MB on this 2-core
machine. If a ``tlparse`` binary is found (``--tlparse PATH``, or on PATH; ``pip install
tlparse``, a benchmark-only tool, never a product dependency), its time and peak RSS on
the same input are printed beside ours as a ratio.
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

_INDEX = """
import json, resource, sys, time
t0 = time.perf_counter()
import nbcompile
baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
report = nbcompile.open_trace(sys.argv[1])
per_rank = {r: [c.compile_id for c in cs] for r, cs in report.by_rank().items()}
elapsed = time.perf_counter() - t0
print(json.dumps({"seconds": elapsed, "compiles": len(report.compiles),
                  "ranks": len(per_rank), "bytes": report.bytes_read,
                  "problems": len(report.problems),
                  "baseline_rss_kb": baseline,
                  "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
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


_CHILD = """
import json, resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True)
print(json.dumps({"returncode": done.returncode,
                  "peak_rss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def _timed(cmd: list[str]) -> tuple[float, dict[str, int]]:
    """Wall seconds, exit code and peak RSS (kB) of ``cmd``, measured alone."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _CHILD, *cmd], capture_output=True, text=True,
                          check=True)
    return time.perf_counter() - t0, json.loads(done.stdout)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-gb", type=float, default=1.0)
    parser.add_argument("--ranks", type=int, default=8)
    parser.add_argument("--source", type=Path, default=None,
                        help="a directory of recorded logs (default: record them now)")
    parser.add_argument("--tlparse", default=shutil.which("tlparse"),
                        help="a tlparse binary to compare with (default: from PATH)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="nbcompile-trace-bench-") as tmp:
        work = Path(tmp)
        logs = source_logs(args.source, work)
        trace_dir = work / "trace"
        t0 = time.perf_counter()
        size = replay(logs, trace_dir, args.ranks, int(args.size_gb * (1 << 30)))
        print(f"built {size / 1e6:.0f} MB in {args.ranks} rank logs from {len(logs)} recorded "
              f"log(s) in {time.perf_counter() - t0:.1f} s")

        done = subprocess.run([sys.executable, "-c", _INDEX, str(trace_dir)],
                              capture_output=True, text=True, cwd=ROOT)
        if done.returncode:
            sys.exit(done.stderr)
        ours = json.loads(done.stdout.strip().splitlines()[-1])
        mb = ours["bytes"] / 1e6
        rss_mb = ours["peak_rss_kb"] / 1024
        print(f"nbcompile.open_trace: {ours['compiles']} compiles on {ours['ranks']} ranks, "
              f"{mb:.0f} MB in {ours['seconds']:.1f} s = {mb / ours['seconds']:.0f} MB/s, "
              f"peak RSS {rss_mb:.0f} MB ({ours['baseline_rss_kb'] / 1024:.0f} MB of it is "
              f"'import nbcompile', i.e. torch), {ours['problems']} problem(s)")
        print(f"  target: < 30 s ({'met' if ours['seconds'] < 30 else 'MISSED'}), "
              f"< 500 MB ({'met' if rss_mb < 500 else 'MISSED'})")
        if args.tlparse:
            out = work / "tl_out"
            seconds, child = _timed([args.tlparse, str(trace_dir), "--all-ranks-html",
                                     "-o", str(out), "--overwrite", "--no-browser"])
            status = "ok" if child["returncode"] == 0 else f"exit {child['returncode']}"
            print(f"tlparse --all-ranks-html ({status}): {seconds:.1f} s = "
                  f"{mb / seconds:.0f} MB/s, peak RSS {child['peak_rss_kb'] / 1024:.0f} MB; "
                  f"nbcompile/tlparse time ratio {ours['seconds'] / seconds:.2f}")
        else:
            print("tlparse: not found (pip install tlparse to compare; benchmark only)")


if __name__ == "__main__":
    main()
