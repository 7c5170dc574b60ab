"""Cache keys across kernels of one notebook: a kernel saves the key components torch listed
for its compiles (private JSON), a later kernel names what differed; a file that is not the
user's own private, well-formed file is ignored with a note."""

from __future__ import annotations

import json
import logging
import os

import pytest

from nbcompile.core.compiletime import earlier
from nbcompile.core.compiletime.cache_keys import Lookup
from nbcompile.core.compiletime.history import CacheHistory, kernel_frames, save_cache_keys
from nbcompile.core.compiletime.record import CacheOutcome
from nbcompile.core.compiletime.where import records_from_events

NOTEBOOK = "/work/two kernels.ipynb"


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _compile(fn, x, **options):
    """One "kernel": ``fn`` compiled with ``options``, heard on the structured trace."""
    import torch

    history = CacheHistory()
    logger = logging.getLogger("torch.__trace")
    logger.addHandler(history)
    try:
        torch._dynamo.reset()
        torch.compile(fn, options=options or None)(x)
    finally:
        logger.removeHandler(history)
        torch._dynamo.reset()
    return history


@pytest.mark.slow
def test_a_later_kernel_names_the_option_an_earlier_one_compiled_with(home, tmp_path,
                                                                      monkeypatch):
    import torch

    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "inductor"))

    def scale(x):
        return torch.relu(x) * 2 + 1

    x = torch.randn(4)
    first = earlier.KernelKeys(NOTEBOOK)  # kernel 1 compiles, then saves after its cell
    history = _compile(scale, x)
    assert save_cache_keys(first, history)
    assert not save_cache_keys(first, history)  # nothing heard since: no work
    path = first.path
    assert path.parent == home / "nbcompile" / "artifacts" and path.name.endswith(earlier.SUFFIX)
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    saved = json.loads(path.read_text())  # plain JSON, torch's components in it
    assert saved["format"] == earlier.FORMAT and saved["frames"][0]["frame"] == "scale"

    # kernel 2: another Inductor option; it reads what kernel 1 saved
    second = earlier.KernelKeys(NOTEBOOK)
    found = second.earlier()
    assert not found.note and [f.frame for f in found.frames] == ["scale"]
    history = _compile(scale, x, epilogue_fusion=False)
    [frame] = kernel_frames(scale, history, earlier=found.frames)
    # torch's own record: the FX graph cache missed
    assert any(c.layer == "fx_graph" and c.outcome == "miss" for c in frame.caches)
    assert frame.earlier is not None and frame.earlier.same_key is False
    options = [c for c in frame.key_changes if c.kind == "inductor_option"]
    # once per cache layer whose key lists it (the AOTAutograd cache's too on torch 2.9)
    assert [c.component for c in options if c.layer == "fx_graph"] == \
        ["inductor_config[epilogue_fusion]"]
    assert {(c.component, c.before, c.after) for c in options} == \
        {("inductor_config[epilogue_fusion]", "True", "False")}
    assert frame.cache_note.startswith("compiled in an earlier kernel of this notebook (saved ")
    assert "Inductor option epilogue_fusion: True -> False" in frame.cache_note
    assert frame.earlier.saved_at == earlier.iso(found.frames[0].saved_at)

    # kernel 3: kernel 1's options again: equal keys, and torch's hit
    history = _compile(scale, x)
    [frame] = kernel_frames(scale, history, earlier=found.frames)
    assert frame.earlier is not None and frame.earlier.same_key is True, frame.cache_note
    assert not frame.key_changes
    assert "the cache keys were equal" in frame.cache_note
    assert any(c.layer == "fx_graph" and c.outcome == "hit" for c in frame.caches)


def _saved(name: str, when: float, option: str = "True") -> earlier.SavedFrame:
    lookup = Lookup(CacheOutcome("fx_graph", "miss", "full_miss"),
                    {"inductor_config[max_autotune]": (f"h{option}", option),
                     "gm": ("gmhash", "def forward(self, x): ...")})
    return earlier.SavedFrame(name, "<ipython-input-3-0123abcd>", 1, "0/0", when, "k1",
                              [lookup], [])


def test_the_file_is_capped_keeping_the_newest(home, monkeypatch):
    monkeypatch.setattr(earlier, "MAX_FILE_BYTES", 3000)
    path, key, _ = earlier.keys_path(NOTEBOOK)
    frames = [_saved(f"f{i}", 1000.0 + i) for i in range(40)]
    earlier.write(path, frames, key)
    assert path.stat().st_size <= 3000
    kept = earlier.read(path).frames
    assert kept and len(kept) < 40
    assert [f.frame for f in kept] == [f"f{i}" for i in range(39, 39 - len(kept), -1)]


def test_a_saved_frame_without_components_says_torch_gave_none(home):
    from nbcompile.core.compiletime.where import where
    from nbcompile.core.records import CompileRecord

    record = CompileRecord(compile_id="0/0", frame="f", filename="<ipython-input-5-ffff>",
                           firstlineno=1)
    silent = earlier.SavedFrame("f", "<ipython-input-3-0123abcd>", 1, "0/0", 1e9, "k1",
                                [Lookup(CacheOutcome("fx_graph", "miss"))], [])
    [frame] = where([(record, [Lookup(CacheOutcome("fx_graph", "miss"))])],
                    earlier=[silent]).frames
    assert frame.earlier is not None and frame.earlier.same_key is None
    assert not frame.earlier.same_cell  # the cell's text changed since
    assert "torch gave no cache-key components to compare" in frame.cache_note
    assert "from a cell whose text has changed since" in frame.cache_note


def _note(path) -> str:
    found = earlier.read(path)
    assert not found.frames
    assert found.note and "\n" not in found.note
    return found.note


def test_an_untrusted_or_broken_file_is_ignored_with_a_note(home, monkeypatch):
    path, key, _ = earlier.keys_path(NOTEBOOK)
    earlier.write(path, [_saved("f", 1000.0)], key)
    assert [f.frame for f in earlier.read(path).frames] == ["f"]
    good = path.read_bytes()

    os.chmod(path, 0o666)  # others could write it
    assert "writable by group or others" in _note(path)
    os.chmod(path, 0o600)

    real = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: real + 1)  # as if another user owned it
    assert "owned by another user" in _note(path)
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))

    for garbage, words in ((b"{not json", "not valid JSON"), (b"\xff\xfe", "not valid JSON"),
                           (b"[1, 2]", "not a nbcompile-cache-keys file"),
                           (b"[" * 100_000, "not valid JSON")):
        path.write_bytes(garbage)
        assert words in _note(path)

    monkeypatch.setattr(earlier, "MAX_FILE_BYTES", len(good) - 1)
    path.write_bytes(good)
    assert "larger than" in _note(path)
    monkeypatch.setattr(earlier, "MAX_FILE_BYTES", 2_000_000)

    doc = json.loads(good)
    doc["frames"] += [{"frame": 3}]  # one wrong entry: the whole file is suspect
    path.write_text(json.dumps(doc))
    assert "frames[1].frame is an integer, not a string" in _note(path)

    path.unlink()
    other = path.with_name("elsewhere.json")
    other.write_bytes(good)
    path.symlink_to(other)
    assert "symbolic link" in _note(path)

    keys = earlier.KernelKeys(NOTEBOOK)  # a later kernel: the note reaches the records
    assert keys.earlier().frames == [] and any("symbolic link" in n for n in keys.notes())


def _entry(**change):
    frame = earlier._to_json(_saved("f", 1000.0))
    for name, value in change.items():
        if value is _GONE:
            del frame[name]
        else:
            frame[name] = value
    return frame


_GONE = object()
_LOOKUP = {"layer": "fx_graph", "outcome": "miss", "detail": "", "components": {}}


@pytest.mark.parametrize(("change", "words"), [
    ({"frames": "f"}, "'frames' is a string, not a list"),
    ({"frames": {"f": 1}}, "'frames' is an object, not a list"),
    ({"frames": [["f", 1]]}, "frames[0] is a list, not an object"),
    ({"frames": ["f"]}, "frames[0] is a string, not an object"),
    ({"frames": [_entry(lineno="1")]}, "frames[0].lineno is a string, not an integer"),
    ({"frames": [_entry(lineno=True)]}, "frames[0].lineno is a boolean, not an integer"),
    ({"frames": [_entry(saved_at=None)]}, "frames[0].saved_at is null, not an integer or a "
                                          "number"),
    ({"frames": [_entry(frame=_GONE)]}, "frames[0].frame is missing"),
    ({"frames": [_entry(kernel=_GONE)]}, "frames[0].kernel is missing"),
    ({"frames": [_entry(graphs="g")]}, "frames[0].graphs is a string, not a list"),
    ({"frames": [_entry(graphs=[1])]}, "frames[0].graphs[0] is an integer, not a string"),
    ({"frames": [_entry(lookups={})]}, "frames[0].lookups is an object, not a list"),
    ({"frames": [_entry(lookups=["x"])]}, "frames[0].lookups[0] is a string, not an object"),
    ({"frames": [_entry(lookups=[{**_LOOKUP, "components": 1}])]},
     "frames[0].lookups[0].components is an integer, not an object"),
    ({"frames": [_entry(lookups=[{**_LOOKUP, "components": {"gm": "h"}}])]},
     "frames[0].lookups[0].components['gm'] is not a [hash, value] pair"),
    ({"frames": [_entry(lookups=[{k: v for k, v in _LOOKUP.items() if k != "layer"}])]},
     "frames[0].lookups[0].layer is missing"),
    ({"version": "1"}, "'version' is a string, not an integer"),
    ({"version": 2}, "its version 2 is not 1"),
    ({"key": None}, "'key' is null, not a string"),
    ({"saved_at": _GONE}, "'saved_at' is missing"),
])
def test_a_saved_keys_file_of_any_wrong_shape_is_ignored_whole(home, change, words):
    path, key, _ = earlier.keys_path(NOTEBOOK)
    earlier.write(path, [_saved("g", 999.0)], key)
    doc = json.loads(path.read_text())
    for name, value in change.items():
        if value is _GONE:
            del doc[name]
        else:
            doc[name] = value
    path.write_text(json.dumps(doc))
    note = _note(path)  # nothing read, one line
    assert note.startswith(f"ignored the saved cache keys {path}: ") and words in note, note


def test_a_kernel_without_its_notebook_path_says_which_key(home, monkeypatch):
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    keys = earlier.KernelKeys()
    assert keys.path.name == "unnamed-notebook" + earlier.SUFFIX
    keys.mine[("f", "x", 1)] = _saved("f", 1.0)
    assert any("'unnamed-notebook'" in n for n in keys.notes())


def test_records_from_history_since_a_cursor_keep_the_string_table():
    history = CacheHistory()
    history.emit(_record({"str": ["a.py", 0]}))
    history.emit(_record({"dynamo_start": {}}))
    cursor = history.count
    history.emit(_record({"compilation_metrics": {}}))
    since = history.events_since(cursor)
    assert [next(iter(m)) for m, _ in since] == ["str", "compilation_metrics"]
    records_from_events(since)  # parses without the earlier events


def _record(metadata):
    record = logging.LogRecord("torch.__trace", logging.DEBUG, "", 0, "", (), None)
    record.metadata = metadata  # type: ignore[attr-defined]
    record.payload = ""  # type: ignore[attr-defined]
    return record
