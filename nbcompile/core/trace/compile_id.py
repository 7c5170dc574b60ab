"""Dynamo's compile id, typed: frame id, frame compile id and attempt.

Dynamo prints it ``0/1`` (frame 0, its second compile) and ``0/1_1`` for a restarted
attempt. Records keep the printed form in JSON; code that needs the parts parses it once
here instead of re-splitting strings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_TEXT = re.compile(r"^\[?(?P<frame>\d+)/(?P<compile>\d+)(?:_(?P<attempt>\d+))?\]?$")


@dataclass(frozen=True, order=True)
class CompileId:
    """One Dynamo frame compile attempt; ``str()`` prints it as Dynamo does."""

    frame_id: int
    frame_compile_id: int
    attempt: int = 0

    def __str__(self) -> str:
        base = f"{self.frame_id}/{self.frame_compile_id}"
        return f"{base}_{self.attempt}" if self.attempt else base

    @property
    def key(self) -> tuple[int, int]:
        """The frame compile this attempt belongs to: ``(frame_id, frame_compile_id)``."""
        return (self.frame_id, self.frame_compile_id)

    @property
    def frame_compile(self) -> CompileId:
        """The same compile without the attempt (printed ``0/1``): what records name."""
        return CompileId(self.frame_id, self.frame_compile_id)

    @classmethod
    def parse(cls, text: str) -> CompileId | None:
        """``"0/1"``, ``"0/1_1"`` or ``"[0/1]"`` -> a ``CompileId``; ``None`` if not one."""
        m = _TEXT.match(text.strip())
        if m is None:
            return None
        return cls(int(m["frame"]), int(m["compile"]), int(m["attempt"] or 0))

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, Any]) -> CompileId | None:
        """The id a structured-trace record's metadata carries (``None`` if it has none)."""
        frame = metadata.get("frame_id")
        if not isinstance(frame, int):
            return None
        compile_ = metadata.get("frame_compile_id")
        attempt = metadata.get("attempt")
        return cls(frame, compile_ if isinstance(compile_, int) else 0,
                   attempt if isinstance(attempt, int) else 0)


def frame_of(compile_id: str) -> str:
    """The frame part of a printed id (``"0/1"`` -> ``"0"``); the text itself if not an id."""
    parsed = CompileId.parse(compile_id)
    return str(parsed.frame_id) if parsed else compile_id


def compile_number(compile_id: str) -> int:
    """The frame compile number of a printed id (``"0/1_1"`` -> 1; 0 if not an id)."""
    parsed = CompileId.parse(compile_id)
    return parsed.frame_compile_id if parsed else 0
