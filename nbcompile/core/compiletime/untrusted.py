"""JSON files nbcompile reads back (a version record beside saved artifacts, the saved cache
keys): untrusted input, read bounded and checked field by field. Every problem is a
``Malformed`` whose words name the one thing wrong ("frames[2].lineno is a string, not an
integer"), for a one-line answer; nothing here raises anything else.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

#: A JSON value's type in words.
JSON_TYPES: dict[type, str] = {
    dict: "an object", list: "a list", str: "a string", bool: "a boolean",
    int: "an integer", float: "a number", type(None): "null"}


class Malformed(ValueError):
    """A file or field of the wrong shape, in words."""


def json_shape(value: Any) -> str:
    """``value``'s JSON type in words (``a list``)."""
    return JSON_TYPES.get(type(value), type(value).__name__)


def read_json(path: Path, max_bytes: int) -> Any:
    """The JSON document in ``path``: a regular file (never through a symbolic link) of at
    most ``max_bytes``, UTF-8."""
    if path.is_symlink():
        raise Malformed("it is a symbolic link")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise Malformed("it is not a regular file")
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise Malformed(f"it could not be read: {e.strerror or e}") from None
    if len(data) > max_bytes:
        raise Malformed(f"it is larger than {max_bytes} bytes")
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise Malformed("it is not valid JSON") from None


def obj(value: Any, where: str) -> dict[str, Any]:
    """``value``, which must be a JSON object."""
    if not isinstance(value, dict):
        raise Malformed(f"{where or 'it'} is {json_shape(value)}, not an object")
    return value


def field(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str = "",
          optional: bool = False, default: Any = None) -> Any:
    """``data[key]``, which must be present (unless ``optional``: ``default`` then) and of
    ``kind`` (a boolean is never taken for a number)."""
    label = f"{where}.{key}" if where else repr(key)
    if key not in data:
        if optional:
            return default
        raise Malformed(f"{label} is missing")
    value = data[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise Malformed(f"{label} is {json_shape(value)}, not "
                        + " or ".join(JSON_TYPES[k] for k in kinds))
    return value


def items(mapping: dict[str, Any], kind: type, where: str) -> dict[str, Any]:
    """``mapping``, each of whose values must be of ``kind`` (never a boolean for a number)."""
    for name, value in mapping.items():
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise Malformed(f"{where}[{name[:40]!r}] is {json_shape(value)}, not "
                            f"{JSON_TYPES[kind]}")
    return mapping
