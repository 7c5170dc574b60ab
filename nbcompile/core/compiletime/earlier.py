"""Cache keys across kernels of one notebook: the cache-key components torch listed for
this kernel's compiles, saved as plain JSON (never a pickle) beside nbcompile's compiled
artifacts (``artifacts_dir()``, private, keyed by notebook), and read by a later kernel of
the same notebook to say what differed in the key of a frame compiled there before.

Saved after a cell that compiled (``history.save_cache_keys``, off the compile path: only
then are the trace payloads parsed, and only those heard since the last save). The file is capped
(``MAX_FILE_BYTES``, ``MAX_FRAMES``: the newest kept). Reading treats it as untrusted: only
this user's private file in the private directory, bounded in size, each entry checked;
anything else is ignored with a one-line note.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..frames import cell_key, is_cell_file
from ..notebook import cache
from ..records import CompileRecord
from .artifacts import artifacts_dir, notebook_key, private_file, private_problem
from .cache_keys import Lookup
from .record import CacheOutcome

SUFFIX = ".cache-keys.json"
FORMAT = "nbcompile-cache-keys"
#: The file's cap: past it, the oldest frames are dropped when saving (a file read that is
#: larger is ignored).
MAX_FILE_BYTES = 2_000_000
MAX_FRAMES = 64  # frames kept (the newest compile of each)
MAX_COMPONENTS = 4000  # components kept per lookup (torch lists ~650 for the FX graph)
HASH_CHARS = 16  # a component's hash, cut: equality is all that is compared
VALUE_CHARS = 200  # a component's value, cut: only words are made from it
GRAPH_CHARS = 16_000  # a frame's Dynamo graph text (its changed cell lines)
#: Set to ``off`` to neither save nor read the file (the test suite sets it).
ENV = "NBCOMPILE_CACHE_KEYS"

_CELL_NAME = re.compile(r"<ipython-input-\d+-[0-9a-f]+>|\S*ipykernel_\d+[/\\]\d+\.py")


@dataclass
class SavedFrame:
    """The newest compile of one frame in some kernel: its cache lookups (torch's key
    components) and its Dynamo graphs, as saved."""

    frame: str
    filename: str
    lineno: int
    compile_id: str
    saved_at: float  # seconds since the epoch
    kernel: str  # the kernel that compiled it (pid and start time)
    lookups: list[Lookup] = field(default_factory=list)
    graphs: list[str] = field(default_factory=list)

    @property
    def ident(self) -> tuple[str, str, int]:
        return (self.frame, cell_key(self.filename), self.lineno)


@dataclass
class EarlierKeys:
    """What a later kernel read: the frames earlier kernels saved, and a note when the file
    was ignored (or whose key was used)."""

    path: str = ""
    frames: list[SavedFrame] = field(default_factory=list)
    note: str = ""


def keys_path(notebook: str | None = None) -> tuple[Path, str, str]:
    """``(path, key, note)``: the notebook's key file (the note says which key was used
    when the kernel does not know its notebook)."""
    key, note = notebook_key(notebook)
    return artifacts_dir() / f"{key}{SUFFIX}", key, note


def enabled() -> bool:
    return os.environ.get(ENV, "").strip().lower() not in ("off", "0", "no", "false")


def iso(when: float) -> str:
    return datetime.fromtimestamp(when, timezone.utc).isoformat(timespec="seconds")


# --- frames from compiles, and back ------------------------------------------------------


def snapshot(compiles: Iterable[tuple[CompileRecord, list[Lookup]]], kernel: str,
             when: float | None = None) -> list[SavedFrame]:
    """The newest compile of each frame among ``compiles`` that logged a cache lookup."""
    when = time.time() if when is None else when
    newest: dict[tuple[str, str, int], SavedFrame] = {}
    for record, lookups in compiles:
        if not lookups:
            continue
        saved = SavedFrame(record.frame, record.filename, record.firstlineno,
                           record.compile_id, when, kernel,
                           [cut_lookup(lk) for lk in lookups],
                           [g[:GRAPH_CHARS] for g in record.graphs[:4]])
        newest[saved.ident] = saved
    return list(newest.values())


def cut_lookup(lookup: Lookup) -> Lookup:
    """A lookup as saved: hashes and values cut (compare this kernel's cut the same way)."""
    o = lookup.outcome
    comps = {name[:VALUE_CHARS]: (h[:HASH_CHARS], v[:VALUE_CHARS])
             for name, (h, v) in list(lookup.components.items())[:MAX_COMPONENTS]}
    return Lookup(CacheOutcome(layer=o.layer, outcome=o.outcome, detail=o.detail[:VALUE_CHARS]),
                  comps)


def _to_json(f: SavedFrame) -> dict[str, Any]:
    return {"frame": f.frame, "filename": f.filename, "lineno": f.lineno,
            "compile_id": f.compile_id, "saved_at": f.saved_at, "kernel": f.kernel,
            "graphs": f.graphs,
            "lookups": [{"layer": lk.outcome.layer, "outcome": lk.outcome.outcome,
                         "detail": lk.outcome.detail,
                         "components": {n: [h, v] for n, (h, v) in lk.components.items()}}
                        for lk in f.lookups]}


def _str(data: dict[str, Any], key: str, cap: int = VALUE_CHARS) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise ValueError(key)
    return value[:cap]


def _from_json(data: Any) -> SavedFrame:
    """One saved frame, every field checked (``ValueError`` on anything unexpected)."""
    if not isinstance(data, dict):
        raise ValueError("frame")
    lineno, saved_at = data.get("lineno"), data.get("saved_at")
    if not isinstance(lineno, int) or isinstance(lineno, bool):
        raise ValueError("lineno")
    if not isinstance(saved_at, (int, float)) or isinstance(saved_at, bool):
        raise ValueError("saved_at")
    graphs = data.get("graphs", [])
    lookups = data.get("lookups", [])
    if not isinstance(graphs, list) or not isinstance(lookups, list):
        raise ValueError("graphs/lookups")
    found = []
    for item in lookups[:8]:
        if not isinstance(item, dict) or not isinstance(item.get("components", {}), dict):
            raise ValueError("lookup")
        comps = {}
        for name, pair in list(item.get("components", {}).items())[:MAX_COMPONENTS]:
            if (not isinstance(pair, list) or len(pair) != 2
                    or not all(isinstance(x, str) for x in pair)):
                raise ValueError("component")
            comps[name[:VALUE_CHARS]] = (pair[0][:HASH_CHARS], pair[1][:VALUE_CHARS])
        found.append(Lookup(CacheOutcome(layer=_str(item, "layer"),
                                         outcome=_str(item, "outcome"),
                                         detail=_str(item, "detail")), comps))
    if not all(isinstance(g, str) for g in graphs):
        raise ValueError("graph")
    return SavedFrame(_str(data, "frame"), _str(data, "filename", 1000), lineno,
                      _str(data, "compile_id"), float(saved_at), _str(data, "kernel"),
                      found, [g[:GRAPH_CHARS] for g in graphs[:4]])


# --- the file ----------------------------------------------------------------------------


def read(path: Path) -> EarlierKeys:
    """The frames saved in ``path``: only this user's private file in a private directory,
    at most ``MAX_FILE_BYTES``; anything else is ignored with a one-line note."""
    out = EarlierKeys(str(path))
    if not path.exists() and not path.is_symlink():
        return out
    if path.is_symlink():
        out.note = f"ignored the saved cache keys {path}: it is a symbolic link"
        return out
    problem = private_problem(path)
    if problem:
        out.note = f"ignored the saved cache keys {path}: {problem}"
        return out
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        out.note = f"ignored the saved cache keys {path}: {e.strerror or e}"
        return out
    if len(data) > MAX_FILE_BYTES:
        out.note = (f"ignored the saved cache keys {path}: larger than "
                    f"{MAX_FILE_BYTES} bytes")
        return out
    try:
        doc = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        out.note = f"ignored the saved cache keys {path}: not valid JSON"
        return out
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(
            doc.get("frames"), list):
        out.note = f"ignored the saved cache keys {path}: not a {FORMAT} file"
        return out
    bad = 0
    for item in doc["frames"][:MAX_FRAMES]:
        try:
            out.frames.append(_from_json(item))
        except (ValueError, TypeError, AttributeError):
            bad += 1
    if bad:
        out.note = f"skipped {bad} malformed entries of the saved cache keys {path}"
    return out


def write(path: Path, frames: Sequence[SavedFrame], key: str) -> int:
    """Write ``frames`` (newest first kept within the caps) as private JSON; bytes written."""
    cache.ensure_dir(path.parent)
    frames = sorted(frames, key=lambda f: -f.saved_at)[:MAX_FRAMES]
    entries = [_to_json(f) for f in frames]
    head = {"format": FORMAT, "version": 1, "key": key, "saved_at": time.time()}
    sizes = [len(json.dumps(e)) + 2 for e in entries]
    room = MAX_FILE_BYTES - len(json.dumps({**head, "frames": []}))
    kept = 0
    while kept < len(entries) and sizes[kept] <= room:
        room -= sizes[kept]
        kept += 1
    data = json.dumps({**head, "frames": entries[:kept]}).encode()
    with private_file(path) as f:
        f.write(data)
    return len(data)


# --- matching a compile with an earlier kernel's ------------------------------------------


def match(frames: Sequence[SavedFrame], record: CompileRecord) -> SavedFrame | None:
    """The earlier kernels' newest compile of ``record``'s frame: the same function name in
    the same file (a cell: the same cell text), else in any notebook cell (a cell edited
    since); the same first line preferred."""
    same = [f for f in frames if f.frame == record.frame
            and cell_key(f.filename) == cell_key(record.filename)]
    if not same and is_cell_file(record.filename):
        same = [f for f in frames if f.frame == record.frame and is_cell_file(f.filename)]
    if not same:
        return None
    return max(same, key=lambda f: (f.lineno == record.firstlineno, f.saved_at))


def portable_graphs(graphs: Sequence[str]) -> list[str]:
    """Graph texts with notebook cell file names (which name the kernel's pid) as ``cell``,
    so two kernels' graphs compare line by line."""
    return [_CELL_NAME.sub("cell", g) for g in graphs]


# --- this kernel --------------------------------------------------------------------------


class KernelKeys:
    """This kernel's side: the earlier kernels' frames (read once, at first use) and this
    kernel's own, written after each cell that compiled."""

    def __init__(self, notebook: str | None = None) -> None:
        self.path, self.key, self.key_note = keys_path(notebook)
        self.kernel = f"{os.getpid()}-{time.time_ns()}"
        self.mine: dict[tuple[str, str, int], SavedFrame] = {}
        self.cursor = 0  # history events already saved
        self.problem = ""  # the last save's failure, in words
        self._earlier: EarlierKeys | None = None

    def earlier(self) -> EarlierKeys:
        if self._earlier is None:
            found = read(self.path)
            found.frames = [f for f in found.frames if f.kernel != self.kernel]
            self._earlier = found
        return self._earlier

    def save(self, compiles: Iterable[tuple[CompileRecord, list[Lookup]]]) -> bool:
        """Save the newest compile of each frame among ``compiles`` with the frames saved
        before (this kernel's, and the earlier kernels' not compiled again here)."""
        new = snapshot(compiles, self.kernel)
        if not new:
            return False
        earlier = self.earlier()  # read before the first write replaces the file
        for f in new:
            self.mine[f.ident] = f
        others = [f for f in earlier.frames if f.ident not in self.mine]
        try:
            write(self.path, list(self.mine.values()) + others, self.key)
            self.problem = ""
        except (OSError, cache.CacheDirError) as e:
            self.problem = f"the cache keys of this kernel's compiles were not saved: {e}"
        return True

    def notes(self) -> list[str]:
        """One-line notes for records: an ignored file, a failed save, the key used."""
        found = [self.earlier().note, self.problem]
        if self.key_note and self.mine:
            found.append("cache keys saved for later kernels: " + self.key_note)
        return [n for n in found if n]


_kernel: KernelKeys | None = None


def install(notebook: str | None = None) -> KernelKeys | None:
    """Start saving (and reading) this notebook's cache keys (idempotent; not when
    ``NBCOMPILE_CACHE_KEYS=off``)."""
    global _kernel
    if _kernel is None and enabled():
        _kernel = KernelKeys(notebook)
    return _kernel


def uninstall() -> None:
    global _kernel
    _kernel = None


def current() -> KernelKeys | None:
    return _kernel
