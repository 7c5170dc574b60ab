"""Counting nbcompile's own Python frames during calls (``sys.setprofile``): what a
compiled call runs of nbcompile's, counted, not timed."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import nbcompile

PACKAGE = str(Path(nbcompile.__file__).resolve().parent)


def nbcompile_frames(f: Any, *args: Any, calls: int = 20) -> Counter:
    """The nbcompile frames (file under the package, function name) entered during
    ``calls`` calls of ``f(*args)``, each with its count."""
    seen: Counter = Counter()

    def profile(frame, event, _arg):
        if event == "call":
            path = frame.f_code.co_filename
            if path.startswith(PACKAGE):
                seen[(path[len(PACKAGE) + 1:], frame.f_code.co_name)] += 1

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        for _ in range(calls):
            f(*args)
    finally:
        sys.setprofile(previous)
    return seen
