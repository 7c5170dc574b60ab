"""A persistent, per-user compile cache, so a restarted kernel compiles warm.

Inductor keeps its on-disk caches (FX graph cache, AOTAutograd cache, compiled C++
kernels) under ``TORCHINDUCTOR_CACHE_DIR``; by default that is
``/tmp/torchinductor_<user>``, which does not survive a reboot and lives in a
world-writable parent. nbcompile points it at ``~/.cache/nbcompile/inductor``
(``$XDG_CACHE_HOME`` honoured), created with mode 0700.

Inductor reads ``TORCHINDUCTOR_CACHE_DIR`` lazily (``torch._inductor.runtime.
cache_dir_utils.cache_dir()`` looks at ``os.environ`` on every call, and its compile
workers get the variable passed with each job), so setting it after ``import torch``
works; on a change of directory, Inductor's in-process lookup caches are cleared the
way ``torch._inductor.runtime.cache_dir_utils.temporary_cache_dir`` does it.

Safety: compiled artifacts are code. nbcompile never points Inductor at a directory
that is not owned by the current user or that group/others can write, nor at one whose
existing parents (resolved) could be replaced by someone else (each must be owned by
this user or root, and not group/world-writable unless sticky, like ``/tmp``), nor under
``/proc``, ``/sys`` or ``/dev``; it creates missing directories with mode 0700 whatever
the umask, and warns when the user's own ``TORCHINDUCTOR_CACHE_DIR`` is unsafe.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import torch_compat

ENV = "TORCHINDUCTOR_CACHE_DIR"
MARKER = ".nbcompile-cache"
_MARKER_TEXT = "Inductor compile cache managed by nbcompile (%nbcompile cache --info)\n"


class CacheDirError(ValueError):
    """A directory that must not hold compile artifacts (owner or permissions)."""


@dataclass
class CacheState:
    """Where the cache is and who chose it."""

    path: str | None = None
    source: str = "unset"  # nbcompile-default | user-env | magic | unset
    warnings: list[str] = field(default_factory=list)
    previous_env: str | None = None
    configured: bool = False


_state = CacheState()


def state() -> CacheState:
    return _state


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/nbcompile/inductor`` (``~/.cache/...``; LOCALAPPDATA on Windows)."""
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "nbcompile" / "inductor"


def user_dir(name: str) -> Path:
    """nbcompile's per-user folder ``name`` (``artifacts``, ``isa-probes``), beside its
    compile cache (``default_cache_dir``)."""
    return default_cache_dir().parent / name


_REFUSED_ROOTS = (Path("/proc"), Path("/sys"), Path("/dev"))


def _refuse_special(p: Path, real: Path) -> None:
    for root in _REFUSED_ROOTS:
        if p == root or p.is_relative_to(root) or real == root or real.is_relative_to(root):
            raise CacheDirError(f"{p} is under {root}: not a place for a compile cache")


def check_parents(path: str | os.PathLike[str]) -> None:
    """Raise ``CacheDirError`` unless every existing parent of ``path`` (symlinks
    resolved) is owned by this user or root and not writable by group or others (a
    sticky directory such as ``/tmp`` is fine), and ``path`` is not under ``/proc``,
    ``/sys`` or ``/dev``."""
    p = Path(path).expanduser().absolute()
    real = p.resolve()  # the existing prefix resolved, the rest appended
    _refuse_special(p, real)
    if not hasattr(os, "getuid"):
        return
    uid = os.getuid()
    for parent in real.parents:
        try:
            st = os.stat(parent)
        except FileNotFoundError:
            continue
        if st.st_uid not in (uid, 0):
            raise CacheDirError(
                f"{parent} (a parent of {p}) is owned by another user (uid {st.st_uid}): "
                "they could replace the cache; choose another directory")
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not st.st_mode & stat.S_ISVTX:
            raise CacheDirError(
                f"{parent} (a parent of {p}) is writable by group or others (mode "
                f"{stat.S_IMODE(st.st_mode):o}, not sticky): they could replace the cache; "
                "choose another directory")


def check_dir(path: str | os.PathLike[str]) -> None:
    """Raise ``CacheDirError`` unless ``path`` is a directory only its owner, this user,
    can write (a symlink is judged by what it points to, and must be ours too)."""
    p = Path(path)
    check_parents(p)
    if not hasattr(os, "getuid"):  # Windows: no POSIX owners/modes to check
        if not p.is_dir():
            raise CacheDirError(f"{p} is not a directory")
        return
    uid = os.getuid()
    if p.is_symlink() and p.lstat().st_uid != uid:
        raise CacheDirError(f"{p} is a symlink owned by another user (uid {p.lstat().st_uid})")
    try:
        st = p.stat()
    except FileNotFoundError:
        raise CacheDirError(f"{p} does not exist") from None
    if not stat.S_ISDIR(st.st_mode):
        raise CacheDirError(f"{p} is not a directory")
    if st.st_uid != uid:
        raise CacheDirError(
            f"{p} is owned by another user (uid {st.st_uid}, you are {uid}): compiled "
            "code loaded from there could be anyone's"
        )
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise CacheDirError(
            f"{p} is writable by group or others (mode {stat.S_IMODE(st.st_mode):o}): "
            f"run chmod go-w {p}, or choose another directory"
        )


def ensure_dir(path: str | os.PathLike[str]) -> Path:
    """Create ``path`` and its missing parents (each mode 0700, whatever the umask) after
    checking the existing parents (``check_parents``), check it, mark it as nbcompile's."""
    p = Path(path).expanduser()
    if not p.is_absolute():
        p = Path.cwd() / p
    check_parents(p)
    created = not p.exists()
    if created:
        missing = [d for d in (p, *p.parents) if not d.exists()]
        for d in reversed(missing):
            try:
                os.mkdir(d, 0o700)
            except FileExistsError:
                continue  # made meanwhile: checked below (check_dir) like any other
            os.chmod(d, 0o700)  # mkdir's mode is masked by the umask
    check_dir(p)
    marker = p / MARKER
    if created or (not marker.exists() and not any(p.iterdir())):
        marker.write_text(_MARKER_TEXT)
    return p


def _torch_default() -> str | None:
    """The directory Inductor falls back to (it writes it into the env once used)."""
    torch_default = torch_compat.default_cache_dir()
    return os.path.abspath(torch_default) if torch_default is not None else None


def _clear_inductor_lookup_caches() -> None:
    torch_compat.clear_inductor_caches()  # only if torch imported it


def use_dir(path: str | os.PathLike[str], source: str = "magic") -> Path:
    """Point Inductor's caches at ``path`` (created 0700, checked) from now on."""
    p = ensure_dir(path)
    if _state.previous_env is None and not _state.configured:
        _state.previous_env = os.environ.get(ENV)
    os.environ[ENV] = str(p)
    _clear_inductor_lookup_caches()
    _state.path, _state.source, _state.configured = str(p), source, True
    _state.warnings = []
    return p


def setup_default() -> CacheState:
    """At extension load: use the per-user default unless the user chose a directory.

    A ``TORCHINDUCTOR_CACHE_DIR`` the user set is respected (and checked: a warning if
    others can write it). The value Inductor itself wrote into the environment after a
    compile (its ``/tmp`` default) is not a choice, and is replaced.
    """
    current = os.environ.get(ENV)
    if _state.configured:
        return _state
    if current and os.path.abspath(current) != _torch_default():
        _state.path, _state.source = os.path.abspath(current), "user-env"
        _state.warnings = []
        try:
            if os.path.exists(current):
                check_dir(current)
        except CacheDirError as e:
            msg = f"nbcompile: your TORCHINDUCTOR_CACHE_DIR is unsafe: {e}"
            _state.warnings.append(msg)
            warnings.warn(msg, stacklevel=2)
        return _state
    try:
        use_dir(default_cache_dir(), source="nbcompile-default")
    except (OSError, CacheDirError) as e:
        msg = f"nbcompile: persistent compile cache not enabled: {e}"
        _state.warnings.append(msg)
        warnings.warn(msg, stacklevel=2)
    return _state


def restore() -> None:
    """Undo ``setup_default``/``use_dir`` (at extension unload)."""
    if not _state.configured:
        return
    if _state.previous_env is None:
        os.environ.pop(ENV, None)
    else:
        os.environ[ENV] = _state.previous_env
    _clear_inductor_lookup_caches()
    _state.__init__()  # type: ignore[misc]


def current_dir() -> Path:
    """The directory Inductor uses now."""
    value = os.environ.get(ENV) or _torch_default() or ""
    return Path(os.path.abspath(value))


def clear(path: str | os.PathLike[str] | None = None) -> int:
    """Delete the cache's contents (only a directory nbcompile manages); bytes freed."""
    p = Path(path) if path is not None else current_dir()
    if not (p / MARKER).exists():
        raise CacheDirError(
            f"{p} is not a cache directory nbcompile created (no {MARKER} file); "
            "delete its contents yourself if you are sure"
        )
    check_dir(p)
    freed = _size(p)[0]
    for child in p.iterdir():
        if child.name == MARKER:
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)
    _clear_inductor_lookup_caches()
    return freed


def _size(p: Path) -> tuple[int, int]:
    total = files = 0
    for root, _dirs, names in os.walk(p):
        for name in names:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
                files += 1
            except OSError:
                pass
    return total, files


def session_counts() -> dict[str, int]:
    """Cache hits and misses of this process so far (Dynamo's counters)."""
    counters = torch_compat.dynamo_counters()
    return {
        "fx_graph_cache_hit": int(counters["inductor"]["fxgraph_cache_hit"]),
        "fx_graph_cache_miss": int(counters["inductor"]["fxgraph_cache_miss"]),
        "aotautograd_cache_hit": int(counters["aot_autograd"]["autograd_cache_hit"]),
        "aotautograd_cache_miss": int(counters["aot_autograd"]["autograd_cache_miss"]),
    }


def info() -> dict[str, Any]:
    """What ``%nbcompile cache --info`` shows."""
    p = current_dir()
    safe, problem = True, ""
    try:
        check_dir(p)
    except CacheDirError as e:
        safe, problem = False, str(e)
    size, files = _size(p) if p.is_dir() else (0, 0)
    return {
        "path": str(p),
        "source": _state.source if _state.configured or _state.source != "unset"
        else ("user-env" if os.environ.get(ENV) else "torch-default"),
        "exists": p.is_dir(),
        "safe": safe,
        "problem": problem,
        "managed": (p / MARKER).exists(),
        "size_bytes": size,
        "files": files,
        "session": session_counts(),
        "warnings": list(_state.warnings),
    }


# --- hit/miss of one target's compiles -------------------------------------------------


def cache_totals(caches: Iterable[dict[str, int]]) -> dict[str, int]:
    """Sum ``CompileRecord.cache`` dicts into ``{"hit": n, "miss": m}`` per cache."""
    totals: dict[str, int] = {}
    for cache in caches:
        for name, count in cache.items():
            totals[name] = totals.get(name, 0) + int(count)
    return totals


_CACHE_NAMES = {"fx_graph_cache": "FX graph", "aotautograd_cache": "AOTAutograd"}


def describe_cache(caches: Iterable[dict[str, int]]) -> str:
    """One phrase for a target's compiles, e.g.
    ``"compile cache: warm (FX graph 1 hit; AOTAutograd 1 hit)"``; "" if nothing known."""
    totals = cache_totals(caches)
    hits = sum(v for k, v in totals.items() if k.endswith("_hit"))
    misses = sum(v for k, v in totals.items() if k.endswith("_miss"))
    if not hits and not misses:
        return ""
    verdict = "warm" if not misses else "cold" if not hits else "partly warm"
    parts = []
    for prefix in sorted({k.rsplit("_", 1)[0] for k in totals}):
        h, m = totals.get(f"{prefix}_hit", 0), totals.get(f"{prefix}_miss", 0)
        counts = [f"{h} hit{'s' if h != 1 else ''}"] if h else []
        counts += [f"{m} miss{'es' if m != 1 else ''}"] if m else []
        if counts:
            parts.append(f"{_CACHE_NAMES.get(prefix, prefix)} {', '.join(counts)}")
    return f"compile cache: {verdict} ({'; '.join(parts)})"
