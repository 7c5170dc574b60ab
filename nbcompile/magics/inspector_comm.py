"""The Compile inspector's channel to the kernel: a registered comm target.

When the inspector shows a record cut to the output budget and the kernel is live, it
opens a comm to ``COMM_TARGET`` with ``{"target_id": "t3"}``; the kernel answers with one
message ``{"data": {MIME_TYPE: record}}`` (``data`` is ``{}`` for an id it does not know)
and closes the comm. The record is ``display.inspector.whole_record``'s.

When the sidebar (re)connects to a running kernel, it opens one with ``{"held": true}``;
the kernel answers with one such message per target it holds
(``display.inspector.held_records``), then closes the comm.

An inspector drawn from a saved output opens one with ``{"again": [{"name": ..., "cell_id":
...}, ...]}``: the kernel answers with one such message per target it holds now
(``display.inspector.again``), then ``{"data": {}, "text": sentence}`` (what the view
shows: the targets read now, or not held yet), then closes the comm. A kernel without
nbcompile loaded has no such target: the comm closes with no answer.
"""

from __future__ import annotations

import re
from typing import Any

import comm

from ..core.records import MIME_TYPE
from ..display.inspector import SavedTarget, again, held_records, whole_record

#: The comm target name the labextension opens (labextension/src/notebook/wholerecord.ts).
COMM_TARGET = "nbcompile.inspector"

_TARGET_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")


def answer(target_id: object) -> dict[str, Any]:
    """The reply to a request for ``target_id``: the whole record's bundle, or ``{}``."""
    if not isinstance(target_id, str) or not _TARGET_ID.fullmatch(target_id):
        return {"data": {}}
    found = whole_record(target_id)
    return {"data": {MIME_TYPE: found.payload} if found is not None else {}}


def answer_held() -> list[dict[str, Any]]:
    """The replies to ``{"held": true}``: one bundle per target this kernel holds."""
    return [{"data": {MIME_TYPE: payload}} for payload in held_records()]


def answer_again(wanted: object) -> list[dict[str, Any]]:
    """The replies to ``{"again": [...]}``: one bundle per target found, then the
    sentence (``{"data": {}, "text": ...}``)."""
    entries = wanted if isinstance(wanted, list) else []
    targets = [t for t in (SavedTarget.parse(e) for e in entries) if t is not None]
    found = again(targets)
    return [*({"data": {MIME_TYPE: r.payload}} for r in found.records),
            {"data": {}, "text": found.text}]


def _on_open(channel: Any, open_msg: dict[str, Any]) -> None:
    data = open_msg.get("content", {}).get("data") or {}
    try:
        if data.get("held") is True:
            for reply in answer_held():
                channel.send(reply)
        elif "again" in data:
            for reply in answer_again(data.get("again")):
                channel.send(reply)
        else:
            channel.send(answer(data.get("target_id")))
    finally:
        channel.close()


def register() -> None:
    """Register the comm target (idempotent; harmless outside a kernel)."""
    comm.get_comm_manager().register_target(COMM_TARGET, _on_open)


def unregister() -> None:
    manager = comm.get_comm_manager()
    if COMM_TARGET in getattr(manager, "targets", {}):
        manager.unregister_target(COMM_TARGET, _on_open)
