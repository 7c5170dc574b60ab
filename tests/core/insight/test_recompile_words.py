"""A recompile's words are written once, into the record (``Recompile.text``), where the
target's record is built: the summary under the cell shows that sentence, and so does the
inspector (it reads ``text``); a record older than the field is worded the same way."""

from __future__ import annotations

import torch

from nbcompile.core.insight.recompile_words import recompile_text
from nbcompile.core.notebook.capture import snapshot
from nbcompile.core.notebook.targets.compiling import compile_target
from nbcompile.core.notebook.targets.options import CompileOptions
from nbcompile.core.records import CellRef, CompileRecord, FailedVersion
from nbcompile.display.summary_model import summarize_target


def scaled(x):
    return torch.sin(x) * 2


def _record(*compiles: CompileRecord):
    target = compile_target("scaled", scaled, CompileOptions(), CellRef())
    target.compiles.extend(compiles)
    return snapshot.target_record(target)


def _summary_texts(record) -> list[str]:
    return [i.text for i in summarize_target(record, 0.0).items if i.kind == "recompile"]


def test_the_record_carries_the_sentence_the_summary_shows():
    dtype = "tensor 'x' dtype mismatch. expected Float, actual Double"
    record = _record(
        CompileRecord("0/0", "scaled", cell=4),
        CompileRecord("0/1", "scaled", recompile_reason=dtype, cell=6),
        CompileRecord("0/2", "scaled", recompile_reason="SCALE changed", cell=9,
                      changed_by=[7], changes=["cell [7] set SCALE = 0.5"],
                      failed_versions=[FailedVersion("0/1", "x.dtype == float64", 6),
                                       FailedVersion("0/0", "x.dtype == float32", 4)]))
    unknown, known = record.recompiles
    assert unknown.text == (
        f"{dtype} — which cell changed what it reads is not known (not a global or a "
        "module's mode that a cell set); the call in cell [6] recompiled")
    assert known.text == (
        "SCALE changed — cell [7] set SCALE = 0.5; the call in cell [9] recompiled. torch "
        "tried 2 compiled versions: 0/1 (compiled in cell [6]): x.dtype == float64; "
        "0/0 (compiled in cell [4]): x.dtype == float32")
    # the summary's sentence is the record's, word for word
    assert _summary_texts(record) == [unknown.text, known.text]
    assert record.to_dict()["recompiles"][0]["text"] == unknown.text


def test_a_record_older_than_the_field_is_worded_the_same_way():
    record = _record(CompileRecord("0/0", "scaled", cell=4),
                     CompileRecord("0/1", "scaled", recompile_reason="x changed", cell=5))
    words = record.recompiles[0].text
    record.recompiles[0].text = ""  # as saved by an older nbcompile
    assert _summary_texts(record) == [words] == [recompile_text(record.recompiles[0])]
