"""The persistent compile cache: safe per-user directory, lazy env, warm restarts."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from nbcompile.core.notebook import cache

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def clean_state(monkeypatch):
    """Run with nbcompile's cache state and TORCHINDUCTOR_CACHE_DIR restored afterwards."""
    saved = os.environ.get(cache.ENV)
    monkeypatch.setattr(cache, "_state", cache.CacheState())
    yield
    if saved is None:
        os.environ.pop(cache.ENV, None)
    else:
        os.environ[cache.ENV] = saved


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


def test_setup_default_respects_user_env(clean_state, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    os.environ[cache.ENV] = str(mine)
    st = cache.setup_default()
    assert st.source == "user-env" and os.environ[cache.ENV] == str(mine)
    assert not st.configured  # nothing to undo


def test_setup_default_warns_on_unsafe_user_env(clean_state, tmp_path):
    unsafe = tmp_path / "unsafe"
    unsafe.mkdir()
    os.chmod(unsafe, 0o777)
    os.environ[cache.ENV] = str(unsafe)
    with pytest.warns(UserWarning, match="unsafe"):
        st = cache.setup_default()
    assert st.warnings and cache.info()["safe"] is False


def test_setup_default_replaces_torch_tmp_default_and_restores(clean_state, monkeypatch,
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


def test_clear_only_a_managed_dir(clean_state, tmp_path):
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


LAZY = textwrap.dedent("""
    import os, sys, torch
    from nbcompile.core.notebook import cache
    def f(x):
        return torch.sin(x) + 1
    torch.compile(f)(torch.randn(8))          # Inductor used: its cache dir is now fixed?
    new = cache.use_dir(sys.argv[1])
    def g(x):
        return torch.cos(x) * 3
    torch.compile(g)(torch.randn(8))
    print(sorted(os.listdir(new)))
""")


def test_inductor_reads_the_dir_lazily(tmp_path):
    """Setting the directory after import torch and after a compile takes effect."""
    env = {**os.environ, cache.ENV: str(tmp_path / "first")}
    out = subprocess.run([sys.executable, "-c", LAZY, str(tmp_path / "second")], env=env,
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    listed = out.stdout.strip().splitlines()[-1]
    assert "fxgraph" in listed and "aotautograd" in listed
    assert list((tmp_path / "second" / "fxgraph").rglob("*"))


RESTART = """
import json, os
from IPython.testing.globalipapp import start_ipython
ip = start_ipython()
ip.run_line_magic("load_ext", "nbcompile")
cell = "import torch\\ndef warm_me(x):\\n    return torch.tanh(x) * 2 + torch.sigmoid(x)\\n"
ip.run_cell_magic("compile", "", cell)
ip.run_cell("warm_me(torch.randn(16, 16))").raise_error()
import nbcompile
from nbcompile.display.bundle import summary_text
rep = nbcompile.report(ip.user_ns["warm_me"])
print(json.dumps({"dir": os.environ["TORCHINDUCTOR_CACHE_DIR"],
                  "cache": [c.cache for c in rep.compiles],
                  "text": summary_text([rep])}))
"""


def test_restarted_kernel_compiles_warm_from_the_default_dir(tmp_path):
    """Two fresh processes with nbcompile's default dir: the second is served from disk,
    and the report says so."""
    env = {k: v for k, v in os.environ.items() if k != cache.ENV}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    runs = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", RESTART], env=env, capture_output=True,
                             text=True, timeout=600, cwd=tmp_path)
        assert out.returncode == 0, out.stderr[-3000:]
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    cold, warm = runs
    assert cold["dir"] == warm["dir"] == str(tmp_path / "nbcompile" / "inductor")
    assert cold["cache"][0].get("fx_graph_cache_miss") == 1
    assert warm["cache"][0].get("fx_graph_cache_hit") == 1
    assert "compile cache: cold" in cold["text"]
    assert "compile cache: warm" in warm["text"]
    assert stat.S_IMODE(os.stat(warm["dir"]).st_mode) == 0o700
