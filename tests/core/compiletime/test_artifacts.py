"""Compiled artifacts carried across kernels: never loaded from a file another user could
write, nor from a path without trust; a version mismatch loads nothing and says so."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest

from nbcompile.core.compiletime import artifacts


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
    (home / "old.nbcompile-artifacts.json").write_text(json.dumps(  # saved before kernels
        {"versions": dict(artifacts.versions(), torch="1.0.0"), "saved_at": 1.0, "key": "",
         "entries": {}}))
    done = artifacts.load(path, trust=True)
    assert not done.loaded
    assert done.note.startswith("not loaded: saved with a different torch '1.0.0'")


def test_nothing_compiled_nothing_saved(home, monkeypatch):
    import torch

    # what torch answers in a kernel that compiled nothing (other tests here compiled)
    monkeypatch.setattr(torch.compiler, "save_cache_artifacts", lambda: None)
    with pytest.raises(artifacts.ArtifactError, match="nothing compiled"):
        artifacts.save()


KEY = "c" + "ab" + "q" * 49


def _zip(saved: Path, entries: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED
         ) -> Path:
    with zipfile.ZipFile(artifacts.kernels_path(saved), "w", compression) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    os.chmod(artifacts.kernels_path(saved), 0o600)
    return artifacts.kernels_path(saved)


def test_built_kernels_are_placed_only_from_a_zip_of_inductors_names(home, monkeypatch):
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(home / "inductor"))
    saved = home / "art" / "x.nbcompile-artifacts"
    saved.parent.mkdir(mode=0o700)
    zipped = _zip(saved, {f"ab/{KEY}.main.so": b"\x7fELF kernel"})
    placed, note = artifacts.place_kernels(saved, trust=False)
    assert (placed, note) == ([f"ab/{KEY}.main.so"], "")
    assert sorted(p.relative_to(home) for p in home.rglob("*.so")) == [
        Path("inductor") / "ab" / f"{KEY}.main.so"]
    (home / "inductor" / "ab" / f"{KEY}.main.so").unlink()
    os.chmod(zipped, 0o666)  # anyone could have written it
    placed, note = artifacts.place_kernels(saved, trust=False)
    assert placed == [] and "writable by group or others" in note
    # an entry nbcompile never writes: the zip is not its own, nothing is placed
    for bad, words in (("../../evil.main.so", "'../../evil.main.so', not a kernel name"),
                       (f"zz/{KEY}.main.so", f"'zz/{KEY}.main.so', not a kernel name"),
                       (f"/ab/{KEY}x.main.so", "not a kernel name"),
                       ("ab/notes.txt", "'ab/notes.txt', not a kernel name")):
        _zip(saved, {f"ab/{KEY}.main.so": b"kernel", bad: b"x"})
        with pytest.raises(artifacts.ArtifactError, match=words):
            artifacts.kernel_members(saved)
        placed, note = artifacts.place_kernels(saved, trust=False)
        assert placed == [] and words.split(",")[0] in note and "\n" not in note
    assert not list(home.rglob("*.so"))


def _artifacts_file(home: Path) -> Path:
    """A private artifacts file in nbcompile's own directory (its bytes never unpickled
    by these tests: every check below stops before torch sees them)."""
    path, _, _ = artifacts.default_path()
    from nbcompile.core.notebook import cache

    cache.ensure_dir(path.parent)
    path.write_bytes(b"never unpickled")
    os.chmod(path, 0o600)
    return path


GOOD = {"versions": None, "saved_at": 1.0, "key": "k", "entries": {"inductor": 1},
        "kernels": 0}


@pytest.mark.parametrize(("sidecar", "words"), [
    ({"versions": [1, 2]}, "'versions' is a list, not an object"),
    ({"versions": "2.13.0"}, "'versions' is a string, not an object"),
    ([1, 2], "it is a list, not an object"),
    ("versions", "it is a string, not an object"),
    ({"saved_at": 1.0}, "'versions' is missing"),
    ({**GOOD, "kernels": "3"}, "'kernels' is a string, not an integer"),
    ({**GOOD, "kernels": True}, "'kernels' is a boolean, not an integer"),
    ({**GOOD, "saved_at": None}, "'saved_at' is null, not an integer or a number"),
    ({**GOOD, "entries": [1]}, "'entries' is a list, not an object"),
    ({**GOOD, "entries": {"inductor": "1"}}, "entries['inductor'] is a string, not an integer"),
    ({**GOOD, "key": 7}, "'key' is an integer, not a string"),
    ({k: v for k, v in GOOD.items() if k != "key"}, "'key' is missing"),
    ({**GOOD, "kernels": -1}, "a count is negative"),
    ({**GOOD, "versions": {"torch": 2}}, "versions['torch'] is an integer, not a string"),
    ({**GOOD, "versions": {"torch": "2.13.0"}}, "versions lacks 'python', 'device', 'triton'"),
])
def test_a_malformed_version_record_loads_nothing(home, sidecar, words):
    path = _artifacts_file(home)
    side = path.with_name(path.name + ".json")
    if isinstance(sidecar, dict) and sidecar.get("versions", 0) is None:
        sidecar = {**sidecar, "versions": artifacts.versions()}
    side.write_text(json.dumps(sidecar))
    with pytest.raises(artifacts.ArtifactError) as e:
        artifacts.load()
    message = str(e.value)
    assert message.startswith(f"not loaded: the version record {side} is malformed: ")
    assert words in message and "\n" not in message


def test_a_version_record_that_is_not_json_or_too_large_loads_nothing(home):
    path = _artifacts_file(home)
    side = path.with_name(path.name + ".json")
    for raw, words in ((b"{not json", "is not valid JSON"), (b"\xff\xfe", "is not valid JSON"),
                       (b"[" * 50_000, "is not valid JSON"),
                       (b" " * (artifacts.MAX_SIDECAR_BYTES + 1), "is larger than")):
        side.write_bytes(raw)
        with pytest.raises(artifacts.ArtifactError, match=words):
            artifacts.load()
    side.unlink()
    side.symlink_to(path)
    with pytest.raises(artifacts.ArtifactError, match="is malformed: it is a symbolic link"):
        artifacts.load()


def test_a_damaged_kernels_zip_loads_nothing(home, monkeypatch):
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(home / "inductor"))
    path = _artifacts_file(home)
    (path.with_name(path.name + ".json")).write_text(
        json.dumps({**GOOD, "versions": artifacts.versions()}))
    for compression, words in ((zipfile.ZIP_STORED, "are damaged: 'ab/.* fails its checksum"),
                               (zipfile.ZIP_DEFLATED,
                                "(are damaged|are not a readable zip: zlib.error)")):
        zipped = _zip(path, {f"ab/{KEY}.main.so": bytes(range(256)) * 8}, compression)
        data = bytearray(zipped.read_bytes())
        data[200] ^= 0xFF  # one byte of the entry's data flipped
        zipped.write_bytes(bytes(data))
        with pytest.raises(artifacts.ArtifactError, match="^not loaded: the built kernels "
                           + ".*" + words):
            artifacts.load()
    zipped.write_bytes(b"PK not a zip")
    with pytest.raises(artifacts.ArtifactError, match="are not a readable zip: BadZipFile"):
        artifacts.load()
    assert not (home / "inductor").exists() or not list((home / "inductor").rglob("*.so"))


@pytest.mark.slow
def test_a_truncated_artifacts_file_loads_nothing_and_an_intact_one_is_hit(home, tmp_path,
                                                                          monkeypatch,
                                                                          capfd):
    """torch's own checksum finds the truncation (``load_cache_artifacts`` returns None):
    one line, nothing in the empty cache directory; the intact file fills it, and torch's
    counters show the next compile of the same code hitting the FX graph cache."""
    import torch
    from torch._dynamo.utils import counters

    def wobble(x):
        return torch.cos(x) * 3 - 1

    x = torch.randn(8)
    torch._dynamo.reset()
    torch.compile(wobble)(x)
    done = artifacts.save()
    path = Path(done.path)
    good = path.read_bytes()
    empty = tmp_path / "empty-inductor"
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(empty))
    path.write_bytes(good[: len(good) // 2])
    capfd.readouterr()
    with pytest.raises(artifacts.ArtifactError) as e:
        artifacts.load()
    message = str(e.value)
    assert message.startswith(f"not loaded: torch could not read {path} (RuntimeError: ")
    assert "checksum" in message and "truncated or damaged" in message
    assert "\n" not in message
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and "un-pickle" not in out + err
    assert not empty.exists() or not [p for p in empty.rglob("*") if p.is_file()]

    path.write_bytes(good)
    loaded = artifacts.load()
    assert loaded.loaded and sum(loaded.entries.values()) > 0
    assert loaded.note.startswith(f"loaded {sum(loaded.entries.values())} compiled artifacts")
    assert list((empty / "fxgraph").rglob("*"))  # torch wrote them where it will look
    hits = counters["inductor"]["fxgraph_cache_hit"]
    torch._dynamo.reset()
    torch.compile(wobble)(x)
    torch._dynamo.reset()
    assert counters["inductor"]["fxgraph_cache_hit"] == hits + 1
