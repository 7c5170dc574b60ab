"""``python -m nbcompile open PATH [--json FILE] [--html FILE] [--source-root DIR]``: a
TORCH_TRACE run in a terminal (the text summary), as the JSON record, or as one
self-contained HTML page.

The log is untrusted: what reaches the terminal has its control characters escaped
(``display.trace.terminal_safe``), and no local file but the logs is read unless
``--source-root DIR`` names where sources may be read from. Reading logs imports no torch;
on a terminal, reading that takes over a second shows one updating line on stderr.
Ctrl-C prints the report of the files read whole (marked interrupted) and exits 130."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .trace_report import TraceInterrupted, open_trace  # no torch: reading logs needs none


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m nbcompile",
                                     description="nbcompile from a terminal.")
    commands = parser.add_subparsers(dest="command", required=True)
    open_ = commands.add_parser("open", help="Read a TORCH_TRACE log file or directory.")
    open_.add_argument("path", help="a TORCH_TRACE log file or a directory of per-rank logs")
    open_.add_argument("--json", metavar="FILE", type=Path,
                       help="also write the trace record (JSON) to FILE")
    open_.add_argument("--html", metavar="FILE", type=Path,
                       help="also write one self-contained HTML page of the view to FILE")
    open_.add_argument("--source-root", metavar="DIR", type=Path, default=None,
                       help="read source lines the log did not print from regular files "
                            "under DIR (by default no local file but the logs is read)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 for a missing/unreadable path,
    130 after Ctrl-C: the partial report of the files read whole is printed)."""
    args = _parser().parse_args(argv)
    from .display.trace import terminal_safe, trace_page, trace_text

    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    try:
        report = open_trace(args.path, source_root=args.source_root)
    except (FileNotFoundError, NotADirectoryError, PermissionError) as e:
        print(terminal_safe(f"nbcompile open: {e}"), file=sys.stderr)
        return 2
    except TraceInterrupted as e:  # Ctrl-C: what was read, marked interrupted
        print(trace_text(e.partial), flush=True)
        if args.json or args.html:
            print("nbcompile open: interrupted (Ctrl-C); --json/--html not written",
                  file=sys.stderr)
        return 130
    print(trace_text(report))
    try:
        if args.json:
            args.json.write_text(json.dumps(report.to_dict(), indent=1), encoding="utf-8")
            print(terminal_safe(f"wrote {args.json}"))
        if args.html:
            args.html.write_text(trace_page(report), encoding="utf-8")
            print(terminal_safe(f"wrote {args.html}"))
    except OSError as e:
        print(terminal_safe(f"nbcompile open: cannot write {e.filename}: {e.strerror}"),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # a second Ctrl-C (e.g. while printing): no traceback
        sys.exit(130)
