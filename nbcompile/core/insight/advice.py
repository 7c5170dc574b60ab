"""Advice in words, from patterns across a target's compiles.

One recompile is information; many of the same kind are a problem the user can fix with
one setting. This module looks at a target's compile records (their ``compile_id``
``frame/count`` and recompile reasons) and says what to change:

* **recompile storm** -- the same code recompiles because a tensor size keeps growing
  (a sequence length; for Hugging Face ``generate()``, the dynamic KV cache). Fix: fixed
  shapes (HF: ``cache_implementation="static"``), bucketing, or a dynamic dimension.
  Each pattern states its cause only on evidence: the KV cache (and ``generate()``) only
  when the growing tensor is a cache (its guard names one), ``--no-dynamic`` only when the
  target was compiled with ``dynamic=False``; a Hugging Face model alone proves neither.
* **scalar specialisation** -- an ``.item()``/``float(tensor)`` value was baked into the
  graph as a constant, so every new value recompiles.
* **rank change** -- a tensor's number of dimensions changes between calls: each rank
  needs its own code, and dynamic shapes (symbolic sizes) cannot help. Fix: a fixed rank.
* **recompile limit** -- a frame hit ``torch._dynamo.config.recompile_limit``: it now runs
  without compiling for new inputs, or raises ``FailOnRecompileLimitHit`` (the settings in
  force say which).

Pure functions of plain data: no torch state is read except the recompile-limit settings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .. import torch_compat
from ..records import Advice, CompileRecord
from ..trace.compile_id import frame_of
from .not_compiled import code_name

_SIZE = re.compile(
    r"tensor '(?P<src>.+?)' size mismatch at index (?P<dim>\d+)\. "
    r"expected (?P<expected>\d+), actual (?P<actual>\d+)"
)


def size_recompile(compile: CompileRecord) -> bool:
    """Whether torch compiled ``compile`` again because a tensor's size changed (its
    failed guard is a size mismatch)."""
    return _SIZE.search(compile.recompile_guard or compile.recompile_reason) is not None


_RANK = re.compile(
    r"tensor '(?P<src>.+?)' rank mismatch\. expected (?P<expected>\d+), actual (?P<actual>\d+)"
)
_SCALAR = re.compile(r"___stack\d+\s*==|Python number computed at run time")
_LIMIT = re.compile(r"recompile[_ ]limit|cache_size_limit", re.I)
_RESUME = re.compile(r"^torch_dynamo_resume_in_(?P<fn>\w+?)_at_(?P<line>\d+)$")
_KV_HINTS = ("past_key_values", "key_cache", "value_cache", "cache", ".keys", ".values")


def _is_cache(src: str) -> bool:
    """Whether a guard's tensor source is a KV cache (``past_key_values...``,
    ``...key_cache[0]``, ``cache.layers[0].keys``): the evidence of a growing cache."""
    return any(h in src for h in _KV_HINTS)


@dataclass
class _Frame:
    """Compiles of one code object (the ``F`` of compile ids ``F/N``)."""

    name: str
    compiles: list[CompileRecord] = field(default_factory=list)
    growth: list[tuple[str, int, int, int]] = field(default_factory=list)  # src, dim, old, new
    growing_recompiles: int = 0
    ranks: list[tuple[str, int, int]] = field(default_factory=list)  # src, old, new
    scalar_recompiles: int = 0


def frame_words(frame: str) -> str:
    """``torch_dynamo_resume_in_f_at_4`` -> the part of `f` after its graph break at line 4."""
    m = _RESUME.match(frame)
    if m:
        return f"the part of `{m.group('fn')}` after its graph break at line {m.group('line')}"
    return f"`{frame}`"


def _frames(name: str, compiles: Iterable[CompileRecord]) -> dict[str, _Frame]:
    """The target's compiles by frame, each frame named as the user wrote it."""
    frames: dict[str, _Frame] = {}
    for c in compiles:
        frame_id = frame_of(c.compile_id)
        f = frames.setdefault(frame_id, _Frame(frame_words(code_name(name, c.frame, c.filename))))
        f.compiles.append(c)
        reason = c.recompile_reason or ""
        grew = [
            (m.group("src"), int(m.group("dim")), int(m.group("expected")), int(m.group("actual")))
            for m in _SIZE.finditer(reason)
            if int(m.group("actual")) > int(m.group("expected"))
        ]
        if grew:
            f.growth.extend(grew)
            f.growing_recompiles += 1
        rank = _RANK.search(reason)  # the first: the newest version's (what changed now)
        if rank:
            f.ranks.append((rank.group("src"), int(rank.group("expected")),
                            int(rank.group("actual"))))
        if _SCALAR.search(reason):
            f.scalar_recompiles += 1
    return frames


def recompile_limit() -> int:
    """``torch._dynamo.config.recompile_limit`` (8 unless the user changed it)."""
    try:
        return torch_compat.recompile_limit()
    except Exception:  # torch without dynamo: keep the documented default
        return 8


ACCUMULATED = "accumulated_recompile_limit"


@dataclass(frozen=True)
class LimitSettings:
    """The recompile-limit settings of the running torch, by its own names."""

    key: str = "recompile_limit"  # ``cache_size_limit`` on a torch before 2.6
    fail_on_hit: bool | None = None  # ``fail_on_recompile_limit_hit`` (None: no such setting)
    accumulated: int | None = None  # ``accumulated_recompile_limit`` (None: no such setting)

    def consequence(self) -> str:
        """What torch does with a new input that fails every compiled version's guards."""
        if self.fail_on_hit:
            return ("torch.compile stopped compiling it: with "
                    "torch._dynamo.config.fail_on_recompile_limit_hit = True, a new input that "
                    "fails the existing guards raises FailOnRecompileLimitHit (fullgraph or "
                    "not).")
        words = ("torch.compile stopped compiling it: new inputs that fail the existing "
                 "guards now run eagerly (uncompiled), and with fullgraph=True they raise "
                 "FailOnRecompileLimitHit")
        if self.fail_on_hit is False:
            words += " (torch._dynamo.config.fail_on_recompile_limit_hit = True makes them raise)"
        return words + "."


def limit_settings() -> LimitSettings:
    """The recompile-limit settings in force now (read when the advice is made, at the end
    of the cell or compile that shows it)."""
    try:
        config = torch_compat.DYNAMO_CONFIG.get()
        key = torch_compat.recompile_limit_key(config)
    except Exception:  # torch without dynamo
        return LimitSettings()
    fail_on_hit = getattr(config, "fail_on_recompile_limit_hit", None)
    accumulated = getattr(config, ACCUMULATED, None)
    return LimitSettings(key, fail_on_hit if isinstance(fail_on_hit, bool) else None,
                         accumulated if isinstance(accumulated, int) else None)


def is_hf_model(module: Any) -> bool:
    """A Hugging Face Transformers model (its class lives in ``transformers``)."""
    if module is None:
        return False
    return any(c.__module__.split(".", 1)[0] == "transformers" for c in type(module).__mro__)


def _growth_words(growth: list[tuple[str, int, int, int]]) -> str:
    src, dim = growth[0][0], growth[0][1]
    sizes = [growth[0][2]] + [new for s, d, _, new in growth if (s, d) == (src, dim)]
    seq = " -> ".join(str(n) for n in dict.fromkeys(sizes))
    return f"{src} at dim {dim}: {seq}"


def advise(name: str, compiles: list[CompileRecord], *, module: Any = None,
           dynamic: bool | None = None, limit: int | None = None,
           call: str = "") -> list[Advice]:
    """Advice for a target named ``name`` from its compile records (oldest first);
    ``call``: a call of it for a ``%suggest`` line (``f(x)``)."""
    limit = recompile_limit() if limit is None else limit
    out: list[Advice] = []
    hf = is_hf_model(module)
    for f in _frames(name, compiles).values():
        if f.growing_recompiles:
            kv = any(_is_cache(src) for src, *_ in f.growth)
            # Transformers' generate() passes its cache as ``past_key_values``
            hf_cache = kv and (hf or any("past_key_values" in src for src, *_ in f.growth))
            if f.growing_recompiles >= 2 or kv:
                out.append(_storm_advice(name, f, hf=hf_cache, kv=kv, dynamic=dynamic))
        if f.ranks:
            out.append(_rank_advice(name, f))
        if f.scalar_recompiles >= 2:
            out.append(Advice(
                kind="scalar-specialization",
                message=(
                    f"{name}: {f.name} recompiled {f.scalar_recompiles} times because a Python "
                    "number read from a tensor (`.item()`, `float(t)`, `int(t)`) was baked into "
                    "the compiled code as a constant; every new value compiles again."
                ),
                fix=("Keep the value a tensor (e.g. torch.where instead of a Python `if`), or "
                     "let Dynamo trace it symbolically: "
                     "torch._dynamo.config.capture_scalar_outputs = True"),
            ))
        failed_on_limit = any(_LIMIT.search(c.error or "") for c in f.compiles)
        # the limit in force when these compiles ran (it may have been patched since)
        frame_limit = max((c.recompile_limit for c in f.compiles), default=0) or limit
        if len(f.compiles) >= frame_limit or failed_on_limit:
            kept, remedy = _kept_changing(f.compiles)
            settings = limit_settings()
            # torch checks accumulated_recompile_limit (all compiles of the frame) first
            hit, value = ((ACCUMULATED, settings.accumulated)
                          if settings.accumulated and len(f.compiles) >= settings.accumulated
                          else (settings.key, frame_limit))
            out.append(Advice(
                kind="recompile-limit",
                message=(
                    f"{name}: {f.name} hit torch._dynamo.config.{hit} "
                    f"({value}) after {len(f.compiles)} compiles. "
                    + settings.consequence() + (f" {kept}" if kept else "")
                ),
                fix=((f"{remedy}; to prove it on a copy, run: %suggest {call}  " if call
                      and remedy else f"{remedy}; " if remedy else "")
                     + "Remove the cause of the recompiles (see the reasons and the advice "
                     f"above); raise torch._dynamo.config.{settings.key} only if the variants "
                     "are really needed."),
            ))
    return out


#: A recompile reason's gist: what changed, without the values (``global SCALE changed``).
_GIST = re.compile(r"^(.*?)(?: \(the compiled code assumed|: expected|\. expected|, expected|$)")


def _kept_changing(compiles: list[CompileRecord]) -> tuple[str, str]:
    """Which guard kept failing across a frame's recompiles, from which cells (in words),
    and the remedy that fits it ("" when none is known)."""
    gists: dict[str, list[CompileRecord]] = {}
    for c in compiles:
        if c.recompile_reason:
            gist = (_GIST.match(c.recompile_reason.splitlines()[0]) or _GIST.match(""))
            gists.setdefault((gist.group(1) if gist else "") or c.recompile_reason, []).append(c)
    if not gists:
        return "", ""
    gist, which = max(gists.items(), key=lambda kv: len(kv[1]))
    changed = sorted({n for c in which for n in c.changed_by})
    calls = sorted({c.cell for c in which if c.cell is not None})
    cells = (f"; changed by cell{'s' if len(changed) > 1 else ''} "
             f"{', '.join(f'[{n}]' for n in changed)}" if changed
             else "; which cell changed it is not known")
    at = (f", recompiled by the calls in cell{'s' if len(calls) > 1 else ''} "
          f"{', '.join(f'[{n}]' for n in calls)}" if calls else "")
    text = f"The guard that kept failing: {gist} ({len(which)} times{cells}{at})."
    guards = " ".join(c.recompile_guard + " " + c.recompile_reason for c in which)
    if "size mismatch" in guards or "size(" in guards or ".size()" in guards:
        remedy = ("make that dimension dynamic (%%compile --dynamic, or "
                  "torch._dynamo.mark_dynamic(x, dim))")
    elif re.search(r"==\s*-?\d|G\['", guards):
        remedy = ("pass that Python number as a tensor (e.g. torch.tensor(value), as an "
                  "argument): a tensor's value is data, one compiled version serves them all")
    else:
        remedy = ""
    return text, remedy


def _rank_advice(name: str, f: _Frame) -> Advice:
    src = f.ranks[0][0]
    ranks = " -> ".join(str(r) for r in dict.fromkeys(
        [f.ranks[0][1]] + [new for s, _, new in f.ranks if s == src]))
    n = len(f.ranks)
    return Advice(
        kind="rank-change",
        message=(f"{name}: {f.name} recompiled {n} time{'s' if n > 1 else ''} because the "
                 f"number of dimensions of {src} changed ({ranks}). Each number of dimensions "
                 "needs its own compiled code; dynamic shapes (--dynamic, mark_dynamic) make "
                 "sizes symbolic, not the number of dimensions, so they cannot help."),
        fix=("Call it with one number of dimensions (reshape before the call, e.g. "
             "x.reshape(-1, x.shape[-1]) or x.unsqueeze(0)), or keep one compiled version "
             "per rank: each compiles once and is reused."),
    )


def _storm_advice(name: str, f: _Frame, *, hf: bool, kv: bool,
                  dynamic: bool | None) -> Advice:
    n = f.growing_recompiles
    growth = _growth_words(f.growth)
    what = "a KV cache kept growing" if kv else "a sequence length kept growing"
    if n >= 2:
        message = (f"{name}: recompile storm: {f.name} recompiled {n} times because "
                   f"{what} ({growth}).")
    else:
        message = (f"{name}: {f.name} recompiled because {what.replace('kept growing', 'grew')}"
                   f" ({growth}): the start of a recompile storm.")
    message += (" Each new length fails the shape guards of the code compiled so far, so "
                "torch.compile compiles again")
    if dynamic is False:
        message += (" on every new length, because it was compiled with --no-dynamic "
                    "(dynamic=False: every size is a constant), until recompile_limit stops it.")
    else:
        message += ("; after the first change it falls back to a dynamic-shape graph, which "
                    "gives up the fixed-shape kernels (and CUDA graphs in reduce-overhead mode).")
    if kv and hf:
        message += (" This is generate() with the default dynamic KV cache, which grows by one "
                    "token per step.")
        fix = ('Use a static KV cache, preallocated to the maximum length so every decoding '
               'step has the same shapes and compiles once: '
               'model.generation_config.cache_implementation = "static" '
               '(or model.generate(..., cache_implementation="static")).')
    elif kv:
        fix = ("Preallocate the cache to its maximum length and write each step into it "
               "(index_copy_ / slicing), so every step has the same shapes and compiles once.")
    elif dynamic is False:
        fix = ("Drop --no-dynamic: torch then compiles one dynamic-shape version after the "
               "first change (or use --dynamic from the start); or keep --no-dynamic and pad "
               "the inputs to a few bucket lengths, one compile each.")
    else:
        fix = ("Give the growing dimension fixed sizes (pad to a few bucket lengths), or "
               "compile it as dynamic from the start: %%compile --dynamic, or "
               "torch._dynamo.mark_dynamic(tensor, dim) before the first call.")
    return Advice(kind="recompile-storm", message=message, fix=fix)
