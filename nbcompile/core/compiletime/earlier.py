"""Cache keys across kernels of one notebook: the cache-key components torch listed for
this kernel's compiles, saved as plain JSON (never a pickle) beside nbcompile's compiled
artifacts (``artifacts_dir()``, private, keyed by notebook), and read by a later kernel of
the same notebook to say what differed in the key of a frame compiled there before.

Saved after a cell that compiled (``history.save_cache_keys``, off the compile path: only
then are the trace payloads parsed, and only those heard since the last save). The file is capped
(``MAX_FILE_BYTES``, ``MAX_FRAMES``: the newest kept). Reading treats it as untrusted: only
this user's private file in the private directory, bounded in size, every field of every
entry checked; a file with anything wrong is ignored whole, with a one-line note naming it.
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
from . import untrusted
from .artifacts import artifacts_dir, notebook_key, private_file, private_problem
from .cache_keys import Lookup
from .record import CacheOutcome
from .untrusted import Malformed, json_shape, obj, read_json

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


def _lookup(item: Any, where: str) -> Lookup:
    item = obj(item, where)
    components = untrusted.field(item, "components", dict, where)
    comps = {}
    for name, pair in list(components.items())[:MAX_COMPONENTS]:
        if (not isinstance(pair, list) or len(pair) != 2
                or not all(isinstance(x, str) for x in pair)):
            raise Malformed(f"{where}.components[{name[:40]!r}] is not a [hash, value] pair "
                            "of strings")
        comps[name[:VALUE_CHARS]] = (pair[0][:HASH_CHARS], pair[1][:VALUE_CHARS])
    return Lookup(CacheOutcome(layer=untrusted.field(item, "layer", str, where)[:VALUE_CHARS],
                               outcome=untrusted.field(item, "outcome", str, where)[:VALUE_CHARS],
                               detail=untrusted.field(item, "detail", str, where)[:VALUE_CHARS]),
                  comps)


def _from_json(data: Any, where: str = "frame") -> SavedFrame:
    """One saved frame, every field checked (``Malformed`` names the first one wrong)."""
    data = obj(data, where)
    text = {k: untrusted.field(data, k, str, where) for k in ("frame", "filename", "compile_id",
                                                     "kernel")}
    lineno = untrusted.field(data, "lineno", int, where)
    saved_at = untrusted.field(data, "saved_at", (int, float), where)
    graphs = untrusted.field(data, "graphs", list, where)
    lookups = untrusted.field(data, "lookups", list, where)
    for i, g in enumerate(graphs):
        if not isinstance(g, str):
            raise Malformed(f"{where}.graphs[{i}] is {json_shape(g)}, not a string")
    found = [_lookup(item, f"{where}.lookups[{i}]") for i, item in enumerate(lookups[:8])]
    return SavedFrame(text["frame"][:VALUE_CHARS], text["filename"][:1000], lineno,
                      text["compile_id"][:VALUE_CHARS], float(saved_at),
                      text["kernel"][:VALUE_CHARS], found,
                      [g[:GRAPH_CHARS] for g in graphs[:4]])


# --- the file ----------------------------------------------------------------------------


def read(path: Path) -> EarlierKeys:
    """The frames saved in ``path``: only this user's private file in a private directory,
    at most ``MAX_FILE_BYTES``, every field checked; anything else is ignored whole, with a
    one-line note."""
    out = EarlierKeys(str(path))
    if not path.exists() and not path.is_symlink():
        return out
    if path.is_symlink():  # before its target's owner and mode are read
        out.note = f"ignored the saved cache keys {path}: it is a symbolic link"
        return out
    problem = private_problem(path)
    if problem:
        out.note = f"ignored the saved cache keys {path}: {problem}"
        return out
    try:
        doc = read_json(path, MAX_FILE_BYTES)
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise Malformed(f"it is not a {FORMAT} file")
        if untrusted.field(doc, "version", int) != 1:
            raise Malformed(f"its version {doc['version']} is not 1")
        untrusted.field(doc, "key", str)
        untrusted.field(doc, "saved_at", (int, float))
        frames = [_from_json(item, f"frames[{i}]")
                  for i, item in enumerate(untrusted.field(doc, "frames", list))]
    except Malformed as e:  # one wrong field: the whole file is suspect
        out.note = f"ignored the saved cache keys {path}: {e}"
        return out
    out.frames = frames[:MAX_FRAMES]
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
