"""What a header line of a log looks like, and its JSON metadata decoded.

A log is glog-prefixed header lines, each with a JSON metadata object::

    V1122 07:34:03.362000 14222 torch/_dynamo/utils.py:1759] {"dynamo_start": {...}, ...}

followed, when the metadata has ``"has_payload": "<md5>"``, by the payload's lines, each
prefixed with a tab. The patterns here let the reader find header lines without splitting
payloads, and match torch's own chromium headers without decoding them.
"""

from __future__ import annotations

import json
import json.scanner
import re
from dataclasses import dataclass
from typing import Any, cast

#: A newline, then a line that is not a payload line (one search per block finds them).
HEADER_AT = re.compile(rb"\n[^\t\n]")
#: The glog prefix of a header line (what follows it is the JSON metadata).
GLOG = re.compile(rb"^[VIWEFD]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\]]*\] ")
_ID = rb"(0|[1-9]\d{0,8})"  # a JSON integer below 10**9
#: A chromium event's header exactly as torch writes it (ids, an md5, a payload follows):
#: read without the JSON decoder (the match is the decoding). Groups: rank (or None),
#: frame id, frame compile id, attempt.
CHROMIUM = re.compile(
    rb'[VIWEFD]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\]\n]*\] \{"chromium_event": \{\}, '
    rb'(?:"rank": ' + _ID + rb', )?"frame_id": ' + _ID + rb', "frame_compile_id": ' + _ID
    + rb', "attempt": ' + _ID + rb', "has_payload": "[0-9a-f]{32}"\}\n\t')
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
#: ``(obj, end)`` of the JSON value at an index. typeshed types the C scanner's argument as
#: the scanner class itself; it reads the decoder's settings (strict, object_hook...).
_scan_json = json.scanner.make_scanner(cast(Any, json.JSONDecoder()))


@dataclass(frozen=True, slots=True)
class BadMetadata:
    """Why a header's metadata was not read: ``what`` in words; ``decoded``: the text was
    JSON, only not an object (a line cut short does not explain that)."""

    what: str
    decoded: bool = False


def decode_metadata(raw: bytes, column: int = 0) -> dict[str, Any] | BadMetadata:
    """The header's JSON object (which starts at ``column`` of its line), or why not."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return BadMetadata("event metadata is not valid UTF-8 (at byte "
                           f"{column + e.start + 1}): skipped")
    try:
        try:  # the C scanner alone (no whitespace skipping, no trailing-data check)
            metadata, end = _scan_json(text, 0)
        except (ValueError, StopIteration):
            metadata, end = None, -1
        if end != len(text):  # spaces around it, extra data, an error: json.loads
            metadata = json.loads(text)  # reads it or says what is wrong
    except json.JSONDecodeError as e:
        return BadMetadata(f"corrupt JSON in the event metadata ({e.msg} "
                           f"at column {column + e.pos + 1})")
    except (ValueError, RecursionError) as e:  # e.g. a number of 5000 digits, deep nesting
        return BadMetadata("unreadable JSON in the event metadata "
                           f"({type(e).__name__}: {str(e)[:80]})")
    if not isinstance(metadata, dict):
        return BadMetadata("event metadata is not a JSON object", decoded=True)
    return without_surrogates(metadata, raw)


def without_surrogates(metadata: dict[str, Any], raw: bytes) -> dict[str, Any]:
    """``metadata`` with lone surrogates (``"\\ud800"`` in the JSON ``raw``) made printable
    (``metadata`` itself when ``raw`` has none)."""
    if b"\\u" in raw and _SURROGATE.search(raw):
        return _clean(metadata)
    return metadata


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    return value
