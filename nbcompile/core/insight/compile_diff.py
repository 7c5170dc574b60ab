"""What changed between compiles of the same frame: kernel-level code diffs."""

from __future__ import annotations

import difflib
import re

from ..records import CodeDiff, CompileRecord, Kernel

_RESUME_AT = re.compile(r"_at_\d+$")


def _frame_key(record: CompileRecord) -> str:
    return _RESUME_AT.sub("", record.frame)  # a resume frame's line moves when a cell is edited


def diff_compiles(compiles: list[CompileRecord], previous: list[CompileRecord] | None = None,
                  context: int = 2) -> list[CodeDiff]:
    """Unified diffs, kernel by kernel, of each compile against the one before it.

    ``compiles`` are a target's compiles in order (a recompile after a new shape or dtype
    is compared with the previous compile of the same frame); ``previous`` are the
    compiles of the target the cell defined before it was re-run (compared with the
    first compile of the same frame). Identical kernels are left out.
    """
    previous = list(previous or [])
    history = previous + list(compiles)
    diffs: list[CodeDiff] = []
    for idx in range(len(previous), len(history)):
        current = history[idx]
        if not current.kernels:
            continue
        before = next((history[j] for j in range(idx - 1, -1, -1)
                       if history[j].kernels and _frame_key(history[j]) == _frame_key(current)),
                      None)
        if before is None:
            continue
        rerun = any(before is p for p in previous)
        cause = current.recompile_reason or ("cell re-run" if rerun else "")
        diffs.extend(diff_kernels(before, current, cause, context))
    return diffs


def _pair(old: list[Kernel], new: list[Kernel]) -> list[tuple[Kernel | None, Kernel | None]]:
    pairs: list[tuple[Kernel | None, Kernel | None]] = []
    old_left, new_left = list(old), []
    for k in new:
        match = next((o for o in old_left if o.name == k.name), None)
        if match is not None:
            old_left.remove(match)
            pairs.append((match, k))
        else:
            new_left.append(k)
    still_new = []
    for k in new_left:  # renamed (other ops fused, other number): same stem, else in order
        stem = re.sub(r"_\d+$", "", k.name)
        match = next((o for o in old_left if re.sub(r"_\d+$", "", o.name) == stem), None)
        if match is None and len(old_left) == 1 and len(new_left) == 1:
            match = old_left[0]
        if match is not None:
            old_left.remove(match)
            pairs.append((match, k))
        else:
            still_new.append(k)
    pairs.extend((None, k) for k in still_new)
    pairs.extend((o, None) for o in old_left)
    return pairs


def diff_kernels(before: CompileRecord, after: CompileRecord, cause: str = "",
                 context: int = 2) -> list[CodeDiff]:
    """Per-kernel unified diffs (generated kernels and the ``call`` wrapper)."""
    diffs: list[CodeDiff] = []
    stages = list(dict.fromkeys(k.stage for k in before.kernels + after.kernels))
    for stage in stages:
        old = [k for k in before.kernels if k.stage == stage and k.kind != "extern"]
        new = [k for k in after.kernels if k.stage == stage and k.kind != "extern"]
        for o, n in _pair(old, new):
            if o is not None and n is not None and o.source == n.source:
                continue
            text = "\n".join(difflib.unified_diff(
                o.source.splitlines() if o else [], n.source.splitlines() if n else [],
                fromfile=f"{o.name} (compile {before.compile_id})" if o else "/dev/null",
                tofile=f"{n.name} (compile {after.compile_id})" if n else "/dev/null",
                lineterm="", n=context,
            ))
            body = text.splitlines()[2:]
            diffs.append(CodeDiff(
                kernel=(n or o).name,  # type: ignore[union-attr]
                compile_id=after.compile_id,
                previous_compile_id=before.compile_id,
                previous_kernel=o.name if o else "",
                stage=stage,
                language=(n or o).language,  # type: ignore[union-attr]
                change="changed" if o and n else ("added" if n else "removed"),
                cause=cause,
                diff=text,
                added=sum(1 for ln in body if ln.startswith("+")),
                removed=sum(1 for ln in body if ln.startswith("-")),
            ))
    return diffs
