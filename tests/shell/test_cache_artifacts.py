"""%nbcompile cache save|load: a foreign artifacts file is refused without --trust, the
options belong to their subcommands, and a malformed version record or a truncated
artifacts file is one line with nothing loaded."""

from __future__ import annotations

import json
import os

import pytest
from IPython.core.error import UsageError

from nbcompile.core.compiletime import artifacts
from nbcompile.core.notebook import cache
from tests.support.shell import run_cell


def test_a_foreign_artifacts_file_is_refused_without_trust(ip, home):
    foreign = home / "from-a-colleague.nbcompile-artifacts"
    foreign.write_bytes(b"a pickle would run code here")
    os.chmod(foreign, 0o666)
    with pytest.raises(UsageError, match="writable by group or others.*--trust"):
        ip.run_line_magic("nbcompile", f"cache load {foreign}")
    with pytest.raises(UsageError, match="no saved artifacts at .*unnamed-notebook"):
        ip.run_line_magic("nbcompile", "cache load")
    with pytest.raises(UsageError, match="--trust is for load"):
        ip.run_line_magic("nbcompile", "cache save --trust")
    with pytest.raises(UsageError, match=r"are for %nbcompile cache save\|load"):
        ip.run_line_magic("nbcompile", "cache --trust")


def _one_line(ip, line: str) -> str:
    with pytest.raises(UsageError) as e:
        ip.run_line_magic("nbcompile", line)
    message = str(e.value)
    assert "\n" not in message, message
    return message


@pytest.mark.parametrize(("versions", "words"), [
    ([["torch", "2.13.0"]], "'versions' is a list, not an object"),
    ("2.13.0", "'versions' is a string, not an object"),
    ({"torch": "2.13.0"}, "versions lacks 'python', 'device', 'triton'"),
    ({"torch": 2, "python": "3", "device": "cpu", "triton": ""},
     "versions['torch'] is an integer, not a string"),
    (None, "'versions' is null, not an object"),
])
def test_a_malformed_version_record_is_one_line_and_nothing_loaded(ip, home, capfd,
                                                                   versions, words):
    path, _, _ = artifacts.default_path()
    cache.ensure_dir(path.parent)
    path.write_bytes(b"never unpickled: the record is read first")
    os.chmod(path, 0o600)
    side = path.with_name(path.name + ".json")
    side.write_text(json.dumps({"versions": versions, "saved_at": 1.0, "key": "k",
                                "entries": {}}))
    message = _one_line(ip, "cache load")
    assert message.startswith(f"%nbcompile cache load: not loaded: the version record {side} "
                              "is malformed: ") and words in message
    side.write_text(json.dumps({"saved_at": "yesterday"}))
    assert "'versions' is missing" in _one_line(ip, "cache load")
    side.write_text(json.dumps({"versions": artifacts.versions(), "saved_at": "yesterday",
                                "key": "k", "entries": {}}))
    assert "'saved_at' is a string, not an integer or a number" in _one_line(ip, "cache load")
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err


def test_a_truncated_artifacts_file_is_one_line_and_an_intact_one_loads(ip, home, capfd,
                                                                        monkeypatch):
    """torch's checksum rejects the truncated file (its loader returns None): the magic
    says so in one line and never that anything loaded."""
    import torch

    run_cell(ip, "import torch\n"
                 "def carried_once(x):\n"
                 "    return torch.sigmoid(x) * 5\n"
                 "torch.compile(carried_once)(torch.randn(4))\n")
    ip.run_line_magic("nbcompile", "cache save")
    path, _, _ = artifacts.default_path()
    good = path.read_bytes()
    path.write_bytes(good[:-10])
    # an empty Inductor cache: whatever a load writes there is seen
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(home / "inductor"))
    capfd.readouterr()
    message = _one_line(ip, "cache load")
    assert message.startswith(f"%nbcompile cache load: not loaded: torch could not read {path} "
                              "(RuntimeError: Bytes object is corrupted, checksum does not match)")
    assert "loaded 0" not in message and "nothing was loaded" in message
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and "un-pickle" not in out + err
    assert not [p for p in (home / "inductor").rglob("*") if p.is_file()]
    path.write_bytes(good)
    ip.run_line_magic("nbcompile", "cache load")
    out, _ = capfd.readouterr()
    assert out.startswith("nbcompile: loaded ") and "loaded 0 " not in out
    assert list((home / "inductor" / "fxgraph").rglob("*"))
    torch._dynamo.reset()
