"""The annotated source and code diffs of a target's record are computed once per
change of what they read: a call starting (pending -> compiling) reuses them."""

from __future__ import annotations

import torch

from nbcompile.core.insight import annotate
from nbcompile.core.notebook.capture import snapshot
from nbcompile.core.notebook.targets.compiling import compile_target
from nbcompile.core.notebook.targets.options import CompileOptions
from nbcompile.core.records import CellRef


def f(x):
    return torch.sin(x) + 1


def test_views_are_kept_while_only_the_status_changes(monkeypatch):
    calls = []
    real = annotate.annotate_record

    def counted(record, spans=()):
        calls.append(record.status)
        return real(record, spans)

    monkeypatch.setattr(annotate, "annotate_record", counted)
    target = compile_target("f", f, CompileOptions(), CellRef())
    pending = snapshot.target_record(target)
    assert calls == ["pending"]
    assert {a.category for a in pending.annotations} >= {"pending"}
    target.status = "compiling"
    compiling = snapshot.target_record(target)
    assert calls == ["pending"]  # nothing it reads changed
    assert compiling.annotations == pending.annotations
    target.status = "disabled"  # read: a disabled target's lines run outside
    disabled = snapshot.target_record(target)
    assert calls == ["pending", "disabled"]
    assert "pending" not in {a.category for a in disabled.annotations}
