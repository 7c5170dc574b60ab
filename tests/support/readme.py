"""The README's fenced code blocks."""

from __future__ import annotations

import re
from pathlib import Path

FENCE = re.compile(r"^```(?P<lang>[\w+-]*)[^\n]*\n(?P<code>.*?)^```\s*$", re.M | re.S)


def blocks(path: Path) -> list[tuple[int, str, str]]:
    """``(line, language, code)`` of each fenced block of a Markdown file."""
    text = path.read_text()
    return [(text.count("\n", 0, m.start()) + 1, m.group("lang").lower(), m.group("code"))
            for m in FENCE.finditer(text)]
