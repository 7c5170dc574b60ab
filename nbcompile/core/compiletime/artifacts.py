"""Compile once per machine: this kernel's compiled artifacts (torch's portable cache,
``torch.compiler.save_cache_artifacts``) saved to a file, and loaded by a later kernel,
with the built C++ kernels beside them (a zip of the shared libraries Inductor loaded, and
the small programs with which Inductor probes the CPU's vector instructions once per cache
directory: torch's portable cache carries Triton kernels but not these, which a later
process would otherwise build again; each is named by its source and compile command, so
a machine that builds with other flags never uses them).

These files are pickles and shared libraries: loading one runs code. So nothing is ever
loaded automatically; a file in nbcompile's own artifacts directory loads only when it and
its directory are this user's and writable by no one else; a file given by path loads only with
``trust=True``. A torch/Python/device mismatch is a note and nothing loaded (compiles run
as usual). A JSON sidecar (never a pickle) holds the versions, read before the pickle.
Every file is checked before anything is loaded: the sidecar field by field, the kernels
zip entry by entry (names, sizes, checksums), the artifacts by torch (a checksum over the
file); anything malformed is one line naming the file and the problem (``ArtifactError``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import platform
import re
import stat
import time
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from .. import torch_compat
from ..notebook import cache
from ..trace import log_taps
from . import untrusted

SUFFIX = ".nbcompile-artifacts"
#: The logger torch's portable cache warns on (a file it cannot read).
CACHE_LOGGER = "torch.compiler._cache"
#: A built kernel's name in the zip: Inductor's cache subdirectory, then the library.
_KERNEL = re.compile(r"^(?P<sub>[a-z0-9]{2})/(?P<key>[a-z0-9]{20,80})(?P<ext>(\.main)?\.so)$")
#: At most this many vector-instruction probes (one per instruction set checked).
MAX_PROBES = 32
#: At most this many kernels and bytes are carried (the rest are built again).
MAX_KERNELS, MAX_KERNEL_BYTES = 4096, 512 * 1024 * 1024
#: A sidecar larger than this is not nbcompile's.
MAX_SIDECAR_BYTES = 64 * 1024


class ArtifactError(Exception):
    """A save or load refused or impossible, in words (nothing was loaded)."""


@dataclass
class ArtifactsResult:
    """What a save or a load did."""

    path: str
    loaded: bool = False  # a load put the artifacts into this kernel's caches
    size_bytes: int = 0
    entries: dict[str, int] = field(default_factory=dict)  # artifacts per cache layer
    kernels: int = 0  # built C++ kernels saved, or placed in the cache directory by a load
    key: str = ""  # the notebook key the default path uses
    note: str = ""  # in words: what was done, or why not


@dataclass(frozen=True)
class Sidecar:
    """The JSON beside saved artifacts: what they were saved with."""

    versions: dict[str, str]  # torch, python, device, triton (``versions()``)
    saved_at: float  # seconds since the epoch
    key: str  # the notebook key ("" for a file saved by path)
    entries: dict[str, int]  # artifacts per cache layer
    kernels: int  # built C++ kernels zipped beside them


def artifacts_dir() -> Path:
    """nbcompile's per-user artifacts directory (beside its Inductor cache)."""
    return cache.user_dir("artifacts")


#: What ``versions()`` records (a sidecar must name each).
VERSION_KEYS = ("torch", "python", "device", "triton")


def versions() -> dict[str, str]:
    """What the artifacts depend on (``VERSION_KEYS``): torch, triton, Python, the device."""
    import torch

    found = {"torch": torch.__version__, "python": platform.python_version(),
             "device": "cpu"}
    try:
        import triton

        found["triton"] = str(triton.__version__)
    except Exception:  # noqa: BLE001 - not installed: nothing to match
        found["triton"] = ""
    if torch.cuda.is_available():
        found["device"] = torch.cuda.get_device_name()
    return found


def notebook_key(notebook: str | None = None) -> tuple[str, str]:
    """``(key, note)``: the notebook's key (its path hashed, the file name kept), or, for
    a kernel that does not know its notebook, the key used instead, said in the note."""
    notebook = notebook or os.environ.get("JPY_SESSION_NAME") or ""
    if not notebook:
        return "unnamed-notebook", ("this kernel does not know its notebook's path: the key "
                                    "'unnamed-notebook' was used")
    digest = hashlib.sha256(os.path.abspath(notebook).encode()).hexdigest()[:12]
    stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in Path(notebook).stem)[:40]
    return f"{stem}-{digest}", ""


def default_path(notebook: str | None = None) -> tuple[Path, str, str]:
    key, note = notebook_key(notebook)
    env = versions()
    tag = hashlib.sha256(json.dumps(env, sort_keys=True).encode()).hexdigest()[:8]
    return artifacts_dir() / f"{key}-{tag}{SUFFIX}", key, note


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".json")


def read_sidecar(path: Path) -> Sidecar | None:
    """The version record saved beside the artifacts at ``path`` (``None``: there is none),
    every field checked; ``ArtifactError`` names the first thing wrong."""
    side = _sidecar(path)
    if not side.exists() and not side.is_symlink():
        return None
    try:
        doc = untrusted.obj(untrusted.read_json(side, MAX_SIDECAR_BYTES), "")
        found = Sidecar(
            versions=untrusted.items(untrusted.field(doc, "versions", dict), str, "versions"),
            saved_at=float(untrusted.field(doc, "saved_at", (int, float))),
            key=untrusted.field(doc, "key", str),
            entries=untrusted.items(untrusted.field(doc, "entries", dict), int, "entries"),
            # absent from a record saved before the kernels were carried
            kernels=untrusted.field(doc, "kernels", int, optional=True, default=0))
        missing = [k for k in VERSION_KEYS if k not in found.versions]
        if missing:
            raise untrusted.Malformed(f"versions lacks {', '.join(map(repr, missing))}")
        if found.kernels < 0 or any(n < 0 for n in found.entries.values()):
            raise untrusted.Malformed("a count is negative")
    except untrusted.Malformed as e:
        raise ArtifactError(f"not loaded: the version record {side} is malformed: {e}"
                            ) from None
    return found


def kernels_path(path: Path) -> Path:
    """The zip of built C++ kernels saved beside the artifacts at ``path``."""
    return path.with_name(path.name + ".kernels.zip")


def _kernel_name(name: str) -> re.Match[str] | None:
    """``name`` read as a kernel's zip name, when it is of Inductor's form: the library in
    the subdirectory Inductor looks in (its key's second and third characters)."""
    found = _KERNEL.match(name)
    return found if found is not None and found["key"][1:3] == found["sub"] else None


def _kernel_count(names: list[str]) -> int:
    """How many of the zip names are kernels (the rest are CPU probes)."""
    return sum(n.endswith(".main.so") for n in names)


def _libraries(names: list[str]) -> str:
    """``"2 built C++ kernels (and 6 CPU probes)"``, from the zip names."""
    kernels = _kernel_count(names)
    probes = len(names) - kernels
    return (f"{kernels} built C++ kernel{'' if kernels == 1 else 's'}"
            + (f" (and {probes} CPU probe{'' if probes == 1 else 's'})" if probes else ""))


def save_kernels(path: Path) -> list[str]:
    """Zip the shared libraries of this process's C++ kernels and probes; their names."""
    names: list[tuple[str, Path]] = []
    total = 0
    root = torch_compat.inductor_cache_dir()
    # Inductor's vector-instruction probes: ``<sub>/<key>.so`` (kernels are ``.main.so``)
    probes = sorted(p for p in Path(root).glob("??/*.so")
                    if not p.name.endswith(".main.so"))[:MAX_PROBES] if root else []
    for lib in [*map(Path, torch_compat.built_cpp_kernels()), *probes]:
        name = f"{lib.parent.name}/{lib.name}"
        if not _kernel_name(name) or not lib.is_file() or len(names) >= MAX_KERNELS:
            continue
        total += lib.stat().st_size
        if total > MAX_KERNEL_BYTES:
            break
        names.append((name, lib))
    if not names:
        kernels_path(path).unlink(missing_ok=True)
        return []
    with private_file(kernels_path(path)) as f, zipfile.ZipFile(f, "w",
                                                                  zipfile.ZIP_DEFLATED) as z:
        for name, lib in names:
            z.write(lib, name)
    return [name for name, _ in names]


def kernel_members(path: Path) -> list[zipfile.ZipInfo]:
    """The entries of the kernels zip beside the artifacts at ``path`` (none: no zip), all
    checked before anything is placed: names of Inductor's own form (``<key[1:3]>/<key>.so``
    or ``.main.so``), each once, within the count and size caps, each entry's checksum read
    whole. ``ArtifactError`` names the first thing wrong."""
    zipped = kernels_path(path)
    if not zipped.exists():
        return []
    bad = f"not loaded: the built kernels {zipped} "
    try:
        with zipfile.ZipFile(zipped) as z:
            members = z.infolist()
            if len(members) > MAX_KERNELS + MAX_PROBES:
                raise ArtifactError(bad + f"hold {len(members)} entries (at most "
                                    f"{MAX_KERNELS + MAX_PROBES} are carried)")
            seen: set[str] = set()
            for m in members:
                if _kernel_name(m.filename) is None:
                    raise ArtifactError(bad + f"hold {m.filename[:120]!r}, not a kernel "
                                        "name of Inductor's form")
                if m.filename in seen:
                    raise ArtifactError(bad + f"hold {m.filename!r} twice")
                seen.add(m.filename)
            if sum(m.file_size for m in members) > MAX_KERNEL_BYTES:
                raise ArtifactError(bad + f"are larger than {MAX_KERNEL_BYTES} bytes")
            broken = z.testzip()  # reads each entry whole: its checksum checked
            if broken is not None:
                raise ArtifactError(bad + f"are damaged: {broken!r} fails its checksum")
            return members
    except (OSError, zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError,
            NotImplementedError, RuntimeError, zlib.error) as e:
        kind = "zlib.error" if isinstance(e, zlib.error) else type(e).__name__
        raise ArtifactError(bad + f"are not a readable zip: {kind}: "
                            f"{str(e).splitlines()[0] if str(e) else ''}") from None


def place_kernels(path: Path, trust: bool) -> tuple[list[str], str]:
    """Put the saved kernels into this process's Inductor cache directory (those not
    there yet): ``(names placed, note)``. The zip is checked whole first
    (``kernel_members``); a zip that fails is placed not at all, said in the note."""
    zipped = kernels_path(path)
    if not zipped.exists():
        return [], ""
    problem = private_problem(zipped)
    if problem and not trust:
        return [], f"built kernels not placed: {problem}"
    root = torch_compat.inductor_cache_dir()
    if not root:
        return [], "built kernels not placed: this torch does not say its cache directory"
    try:
        members = kernel_members(path)
    except ArtifactError as e:
        return [], "built kernels not placed: " + str(e).removeprefix("not loaded: ")
    placed: list[str] = []
    try:
        with zipfile.ZipFile(zipped) as z:
            for member in members:
                found = _kernel_name(member.filename)
                assert found is not None  # checked by kernel_members
                out = Path(root) / found["sub"] / f"{found['key']}{found['ext']}"
                if out.exists():
                    continue
                out.parent.mkdir(parents=True, exist_ok=True)
                with private_file(out, mode=0o700) as f:  # a library: executable
                    f.write(z.read(member))
                placed.append(member.filename)
    except (OSError, zipfile.BadZipFile, EOFError, zlib.error) as e:
        return placed, f"built kernels partly placed: {type(e).__name__}: {e}"
    return placed, ""


def save(path: str | os.PathLike[str] | None = None,
         notebook: str | None = None) -> ArtifactsResult:
    """Save what this kernel compiled (torch's portable cache) to ``path`` (default: the
    notebook's file in nbcompile's artifacts directory), mode 0600."""
    import torch

    if path is None:
        target, key, note = default_path(notebook)
        cache.ensure_dir(target.parent)
    else:
        target, key, note = Path(path).expanduser().absolute(), "", ""
        target.parent.mkdir(parents=True, exist_ok=True)
    saved = torch.compiler.save_cache_artifacts()
    if saved is None:
        raise ArtifactError("nothing compiled in this kernel to save (torch's portable "
                            "cache is empty)")
    data, info = saved
    entries = {k: len(v) for k, v in getattr(info, "artifacts", {}).items() if v}
    _write_private(target, data)
    libs = save_kernels(target)
    kernels = _kernel_count(libs)
    _write_private(_sidecar(target), json.dumps(
        {"versions": versions(), "saved_at": time.time(), "key": key,
         "entries": entries, "kernels": kernels}).encode())
    words = (f"saved {sum(entries.values())} compiled artifacts ({len(data)} bytes) "
             f"and {_libraries(libs)} to {target}")
    return ArtifactsResult(str(target), size_bytes=len(data), entries=entries, key=key,
                           kernels=kernels, note=words + (f"; {note}" if note else ""))


@contextlib.contextmanager
def private_file(path: Path, mode: int = 0o600) -> Iterator[BinaryIO]:
    """Write ``path`` whole or not at all: a temporary file of ``mode`` beside it (never
    opened through a link), renamed over ``path`` once written."""
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0),
                 mode)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _write_private(path: Path, data: bytes) -> None:
    with private_file(path) as f:
        f.write(data)


def private_problem(path: Path) -> str:
    """Why ``path`` is not this user's own private file ("" when it is): owner, mode,
    and the directory holding it."""
    if not hasattr(os, "getuid"):
        return ""
    try:
        st = path.stat()
    except FileNotFoundError:
        return f"{path} does not exist"
    uid = os.getuid()
    if not stat.S_ISREG(st.st_mode):
        return f"{path} is not a regular file"
    if st.st_uid != uid:
        return f"{path} is owned by another user (uid {st.st_uid}, you are {uid})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"{path} is writable by group or others (mode {stat.S_IMODE(st.st_mode):o})"
    try:
        cache.check_dir(path.parent)
    except cache.CacheDirError as e:
        return f"its directory is not private: {e}"
    return ""


def load(path: str | os.PathLike[str] | None = None, notebook: str | None = None,
         trust: bool = False) -> ArtifactsResult:
    """Load saved artifacts into this kernel's caches. Refused (``ArtifactError``) without
    ``trust`` for a file given by path or one that is not this user's private file, and for
    any file here that is malformed (the sidecar, the kernels zip, or artifacts torch cannot
    read): nothing is loaded then. A version or device mismatch loads nothing and says so."""
    if path is None:
        target, key, note = default_path(notebook)
    else:
        target, key, note = Path(path).expanduser().absolute(), "", ""
    if not target.exists():
        raise ArtifactError(f"no saved artifacts at {target}"
                            + (f" ({note})" if note else ""))
    problem = private_problem(target)
    if not trust:
        if problem:
            raise ArtifactError(f"refused to load {target}: {problem}. Compiled artifacts "
                                "are pickles (loading one runs code); add --trust "
                                "(trust=True) only if you trust whoever could write it")
        if path is not None and target.parent != artifacts_dir():
            raise ArtifactError(f"refused to load {target}: a file given by path runs the "
                                "code it holds when loaded; add --trust (trust=True) if "
                                "you trust it")
    side = read_sidecar(target)
    here = versions()
    differ = [f"{k} {side.versions.get(k)!r} (here {here[k]!r})" for k in here
              if side is not None and side.versions.get(k) != here[k]]
    if differ:
        return ArtifactsResult(str(target), key=key, note=(
            f"not loaded: saved with a different {', '.join(differ)}; compiles run as usual"))
    if kernels_path(target).exists() and (trust or not private_problem(kernels_path(target))):
        kernel_members(target)  # a damaged zip: nothing loaded
    data = target.read_bytes()
    entries = _into_torch(target, data)
    placed, kernel_note = place_kernels(target, trust)
    words = (f"loaded {sum(entries.values())} compiled artifacts from {target}"
             + (" (trusted by you: " + problem + ")" if problem else "")
             + ("" if side else "; no version record beside it, versions not checked")
             + (f"; {_libraries(placed)} placed in the Inductor cache directory"
                if placed else "")
             + (f"; {kernel_note}" if kernel_note else "")
             + "; later compiles of the same code, inputs and options look them up "
             "(each compile's record shows torch's hit or miss)")
    return ArtifactsResult(str(target), loaded=True, size_bytes=len(data), entries=entries,
                           kernels=_kernel_count(placed), key=key,
                           note=words + (f"; {note}" if note else ""))


class _Unreadable(logging.Filter):
    """Keeps torch's "Failed to un-pickle cache artifacts" warning (and its traceback) off
    the user's output, holding the exception it carried."""

    def __init__(self) -> None:
        super().__init__()
        self.error: BaseException | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING and "cache artifacts" in str(record.msg):
            exc = record.exc_info[1] if record.exc_info else None
            self.error = exc if exc is not None else Exception(record.getMessage())
            return False
        return True


def _into_torch(target: Path, data: bytes) -> dict[str, int]:
    """Hand ``data`` to ``torch.compiler.load_cache_artifacts``: the artifacts it loaded,
    per cache layer. torch returns ``None`` (logging a warning) when it cannot read the
    file (a checksum over the whole file: truncated or damaged): ``ArtifactError`` then."""
    import torch

    try:
        with log_taps.filtering(CACHE_LOGGER, _Unreadable()) as unreadable:
            info = torch.compiler.load_cache_artifacts(data)
    except Exception as e:  # noqa: BLE001 - torch's own failure, said in one line
        raise ArtifactError(f"torch failed while loading {target} (what it loaded before "
                            f"stays in the caches): {_first_line(e)}") from None
    if info is None:
        why = _first_line(unreadable.error) if unreadable.error else "it gave no reason"
        damaged = unreadable.error is not None and any(
            w in str(unreadable.error) for w in ("checksum", "too short"))
        raise ArtifactError(f"not loaded: torch could not read {target} ({why})"
                            + ("; the file is truncated or damaged" if damaged else "")
                            + "; nothing was loaded, compiles run as usual")
    entries = {k: len(v) for k, v in getattr(info, "artifacts", {}).items() if v}
    if not entries:
        raise ArtifactError(f"not loaded: {target} holds no compiled artifacts")
    return entries


def _first_line(error: BaseException) -> str:
    """``Type: message``, the message's first sentence of its first line, capped."""
    text = (str(error).strip().splitlines() or [""])[0]
    text = text.split(". ", 1)[0]
    return f"{type(error).__name__}: {text[:160]}" if text else type(error).__name__
