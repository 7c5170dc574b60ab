"""Compiled artifacts carried across kernels: never loaded from a file another user could
write, nor from a path without trust; a version mismatch loads nothing and says so."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from nbcompile.core.compiletime import artifacts


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    os.chmod(tmp_path, 0o700)
    return tmp_path


def test_a_kernel_without_its_notebook_path_says_which_key(home, monkeypatch):
    key, note = artifacts.notebook_key()
    assert key == "unnamed-notebook" and "'unnamed-notebook' was used" in note
    monkeypatch.setenv("JPY_SESSION_NAME", "/work/my notebook.ipynb")
    key, note = artifacts.notebook_key()
    assert key.startswith("my_notebook-") and not note


def test_a_foreign_file_is_refused_without_trust(home):
    shared = home / "shared"
    shared.mkdir(mode=0o700)
    bad = shared / "model.nbcompile-artifacts"
    bad.write_bytes(b"not even a pickle")
    os.chmod(bad, 0o666)  # anyone could have written it
    with pytest.raises(artifacts.ArtifactError, match="writable by group or others"):
        artifacts.load(bad)
    os.chmod(bad, 0o600)  # private, but given by path: loading runs its code
    with pytest.raises(artifacts.ArtifactError, match="add --trust"):
        artifacts.load(bad)
    assert not list(artifacts.artifacts_dir().glob("*")) if artifacts.artifacts_dir().exists() \
        else True


def test_a_version_mismatch_loads_nothing(home):
    path = home / "old.nbcompile-artifacts"
    path.write_bytes(b"never unpickled")
    os.chmod(path, 0o600)
    (home / "old.nbcompile-artifacts.json").write_text(json.dumps(
        {"versions": dict(artifacts.versions(), torch="1.0.0")}))
    done = artifacts.load(path, trust=True)
    assert not done.loaded
    assert done.note.startswith("not loaded: saved with a different torch '1.0.0'")


def test_nothing_compiled_nothing_saved(home, monkeypatch):
    import torch

    # what torch answers in a kernel that compiled nothing (other tests here compiled)
    monkeypatch.setattr(torch.compiler, "save_cache_artifacts", lambda: None)
    with pytest.raises(artifacts.ArtifactError, match="nothing compiled"):
        artifacts.save()


def test_only_kernel_names_of_inductors_form_are_placed(home, monkeypatch):
    import zipfile

    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(home / "inductor"))
    saved = home / "art" / "x.nbcompile-artifacts"
    saved.parent.mkdir(mode=0o700)
    key = "c" + "ab" + "q" * 49
    with zipfile.ZipFile(artifacts.kernels_path(saved), "w") as z:
        z.writestr(f"ab/{key}.main.so", b"\x7fELF kernel")
        z.writestr(f"zz/{key}.main.so", b"not where Inductor looks")
        z.writestr("../../evil.main.so", b"outside")
        z.writestr(f"/ab/{key}x.main.so", b"absolute")
        z.writestr("ab/notes.txt", b"other files")
    os.chmod(artifacts.kernels_path(saved), 0o600)
    placed, note = artifacts.place_kernels(saved, trust=False)
    assert (placed, note) == ([f"ab/{key}.main.so"], "")
    assert sorted(p.relative_to(home) for p in home.rglob("*.so")) == [
        Path("inductor") / "ab" / f"{key}.main.so"]
    os.chmod(artifacts.kernels_path(saved), 0o666)  # anyone could have written it
    (home / "inductor" / "ab" / f"{key}.main.so").unlink()
    placed, note = artifacts.place_kernels(saved, trust=False)
    assert placed == [] and "writable by group or others" in note
