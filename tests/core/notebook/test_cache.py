"""The persistent compile cache: safe per-user directory, lazy env, warm restarts."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from nbcompile.core.notebook import cache


def test_default_dir_is_per_user(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.default_cache_dir() == tmp_path / "xdg" / "nbcompile" / "inductor"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache.default_cache_dir() == Path.home() / ".cache" / "nbcompile" / "inductor"


def test_ensure_dir_creates_0700_with_marker(tmp_path):
    d = cache.ensure_dir(tmp_path / "a" / "b")
    assert stat.S_IMODE(d.stat().st_mode) == 0o700
    assert (d / cache.MARKER).exists()


def test_refuses_group_or_world_writable_dir(tmp_path):
    d = tmp_path / "shared"
    d.mkdir()
    os.chmod(d, 0o777)
    with pytest.raises(cache.CacheDirError, match="writable by group or others"):
        cache.ensure_dir(d)
    os.chmod(d, 0o775)
    with pytest.raises(cache.CacheDirError, match="chmod go-w"):
        cache.check_dir(d)


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root to chown")
def test_refuses_dir_owned_by_another_user(tmp_path):
    d = tmp_path / "theirs"
    d.mkdir(mode=0o700)
    os.chown(d, 65534, 65534)
    with pytest.raises(cache.CacheDirError, match="owned by another user"):
        cache.ensure_dir(d)
    link = tmp_path / "link"
    link.symlink_to(d)
    with pytest.raises(cache.CacheDirError, match="owned by another user"):
        cache.check_dir(link)


def test_setup_default_respects_user_env(cache_state, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    os.environ[cache.ENV] = str(mine)
    st = cache.setup_default()
    assert st.source == "user-env" and os.environ[cache.ENV] == str(mine)
    assert not st.configured  # nothing to undo


def test_setup_default_warns_on_unsafe_user_env(cache_state, tmp_path):
    unsafe = tmp_path / "unsafe"
    unsafe.mkdir()
    os.chmod(unsafe, 0o777)
    os.environ[cache.ENV] = str(unsafe)
    with pytest.warns(UserWarning, match="unsafe"):
        st = cache.setup_default()
    assert st.warnings and cache.info()["safe"] is False


def test_setup_default_replaces_torch_tmp_default_and_restores(cache_state, monkeypatch,
                                                                tmp_path):
    from torch._inductor.runtime.cache_dir_utils import default_cache_dir as torch_default

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    os.environ[cache.ENV] = torch_default()  # what Inductor writes after its first use
    st = cache.setup_default()
    assert st.source == "nbcompile-default"
    assert os.environ[cache.ENV] == str(tmp_path / "nbcompile" / "inductor")
    info = cache.info()
    assert info["safe"] and info["managed"] and info["source"] == "nbcompile-default"
    cache.restore()
    assert os.environ[cache.ENV] == torch_default()


def test_clear_only_a_managed_dir(cache_state, tmp_path):
    foreign = tmp_path / "foreign"
    foreign.mkdir(mode=0o700)
    (foreign / "precious.txt").write_text("x")
    with pytest.raises(cache.CacheDirError, match="not a cache directory nbcompile created"):
        cache.clear(foreign)
    assert (foreign / "precious.txt").exists()
    managed = cache.ensure_dir(tmp_path / "managed")
    (managed / "fxgraph" / "ab").mkdir(parents=True)
    (managed / "fxgraph" / "ab" / "entry").write_bytes(b"0" * 100)
    assert cache.clear(managed) == 100 + len(cache._MARKER_TEXT)
    assert [p.name for p in managed.iterdir()] == [cache.MARKER]


def test_describe_cache():
    assert cache.describe_cache([{}]) == ""
    assert cache.describe_cache([{"fx_graph_cache_hit": 1, "aotautograd_cache_hit": 1}]) == (
        "compile cache: warm (AOTAutograd 1 hit; FX graph 1 hit)")
    assert cache.describe_cache([{"fx_graph_cache_miss": 2}, {"fx_graph_cache_hit": 1}]) == (
        "compile cache: partly warm (FX graph 1 hit, 2 misses)")


# --- `%nbcompile cache --dir`: where a cache may live ------------------------------
def test_cache_dir_refuses_special_trees_and_unsafe_parents(tmp_path, cache_state):
    for special in ("/proc/self/cwd/x", "/sys/kernel/x", "/dev/shm/nbcompile-x", "/dev"):
        with pytest.raises(cache.CacheDirError, match="not a place for a compile cache"):
            cache.ensure_dir(special)
    assert not Path("/dev/shm/nbcompile-x").exists()
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    with pytest.raises(cache.CacheDirError, match="a parent of .* is writable by group"):
        cache.ensure_dir(shared / "a" / "b")
    assert not (shared / "a").exists()
    os.chmod(shared, 0o1777)  # sticky, like /tmp: fine
    made = cache.ensure_dir(shared / "a" / "b")
    assert stat.S_IMODE(made.stat().st_mode) == 0o700


def test_cache_dir_creates_every_missing_directory_0700(tmp_path, cache_state):
    old = os.umask(0o002)
    try:
        made = cache.ensure_dir(tmp_path / "p" / "q" / "r")
    finally:
        os.umask(old)
    for d in (tmp_path / "p", tmp_path / "p" / "q", made):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700, d


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to chown")
def test_cache_dir_refuses_a_parent_owned_by_another_user(tmp_path, cache_state):
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o755)
    os.chown(theirs, 65534, 65534)
    with pytest.raises(cache.CacheDirError, match="a parent of .* is owned by another user"):
        cache.ensure_dir(theirs / "mine")
