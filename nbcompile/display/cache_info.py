"""Text for ``%nbcompile cache --info``."""

from __future__ import annotations

from typing import Any

from .units import format_bytes


def info_text(data: dict[str, Any]) -> str:
    session = data["session"]
    lines = [
        f"compile cache: {data['path']}",
        f"  chosen by: {data['source']}",
        f"  {'exists' if data['exists'] else 'not created yet'}, {data['files']} file(s), "
        f"{format_bytes(data['size_bytes'])}",
        "  safe: " + ("yes (yours, not writable by others)" if data["safe"]
                      else "NO: " + data["problem"]),
        "  this kernel: FX graph cache "
        f"{session.get('fx_graph_cache_hit', 0)} hit(s) / "
        f"{session.get('fx_graph_cache_miss', 0)} miss(es); AOTAutograd cache "
        f"{session.get('aotautograd_cache_hit', 0)} hit(s) / "
        f"{session.get('aotautograd_cache_miss', 0)} miss(es)",
    ]
    lines += [f"  warning: {w}" for w in data["warnings"]]
    return "\n".join(lines)
