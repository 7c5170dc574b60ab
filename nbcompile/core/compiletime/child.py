"""The fresh process of a compile-time measurement: ``python -c "from
nbcompile.core.compiletime import child; child.exit_now(child.main())"
SPEC OUT``.

It rebuilds the user's call from ``SPEC`` (a pickle written by ``fresh.py``: what the
call needs, as ``needs.py`` read it from the code that runs, then the callable and its
calls), applies one variant
(the baseline ``torch.compile``, or a remedy), times the first call of each argument set
(the compiles) and the steady state, checks the output against eager's, hears torch's
structured trace, and writes what it measured to ``OUT`` as JSON. Of nbcompile it imports
only ``core/torch_compat.py`` (for torch's counters, after the measured calls), so the
measured process is torch and the user's code alone.
"""

from __future__ import annotations

import json
import logging
import math
import os
import pickle
import statistics
import sys
import time
import traceback
import types
from typing import Any

#: Trace events whose payload the parent reads (the others come with their metadata only).
_PAYLOAD_KINDS = ("dynamo_output_graph", "compilation_metrics", "dynamo_start", "str")
_PAYLOAD_ARTIFACTS = ("recompile_reasons",)


class Recorder(logging.Handler):
    """Every structured-trace record's metadata; payloads of the kinds the parent reads."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.events: list[tuple[dict[str, Any], str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        metadata = getattr(record, "metadata", None)
        if not isinstance(metadata, dict):
            return
        kinds = [k for k in metadata if k not in ("frame_id", "frame_compile_id", "attempt",
                                                   "has_payload", "compiled_autograd_id")]
        kind = kinds[0] if kinds else ""
        if kind == "chromium_event" or kind.startswith("describe_"):
            return
        name = metadata["artifact"].get("name", "") if kind == "artifact" else ""
        keep = kind in _PAYLOAD_KINDS or name in _PAYLOAD_ARTIFACTS or "_cache_" in name
        payload = getattr(record, "payload", None) if keep else None
        try:
            json.dumps(metadata)
        except (TypeError, ValueError):
            metadata = json.loads(json.dumps(metadata, default=str))
        self.events.append((metadata, payload if isinstance(payload, str) else ""))


#: The notebook's functions and classes defined again here, by the parent's key.
_DEFINED: dict[int, Any] = {}


class NotYetDefined(LookupError):
    """A pickle refers to a definition that has not run yet (tried again after it)."""


def defined(key: int) -> Any:
    """The notebook function or class the parent pickled as ``key`` (its definition ran
    here first): what pickles of the call refer to notebook code by."""
    try:
        return _DEFINED[key]
    except KeyError:
        raise NotYetDefined(key) from None


def attribute(module: str, name: str) -> Any:
    """``module.name``: a library's function that pickle cannot find by its qualified
    name (made by a factory), carried as the import it is."""
    import importlib

    return getattr(importlib.import_module(module), name)


def _call_module(module: Any, *args: Any, **kwargs: Any) -> Any:
    """A module's call as a plain function (what ``aot_compile`` compiles: the module is
    an argument, so saving the compiled function does not pickle it)."""
    return module(*args, **kwargs)


def _get(root: Any, path: str) -> Any:
    for part in path.split(".") if path else ():
        root = root[int(part)] if part.isdigit() else getattr(root, part)
    return root


def _leaves(value: Any) -> list[Any]:
    import torch

    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _leaves(v)]
    if isinstance(value, dict):
        return [x for k in sorted(value, key=str) for x in _leaves(value[k])]
    if hasattr(value, "to_tuple"):  # HF ModelOutput
        return _leaves(value.to_tuple())
    return []


def _same(a: Any, b: Any) -> tuple[bool | None, float | None]:
    """``(equal within assert_close's default tolerance for the dtype, max abs diff)``."""
    import torch

    xs, ys = _leaves(a), _leaves(b)
    if len(xs) != len(ys):
        return False, None
    worst = 0.0
    for x, y in zip(xs, ys, strict=True):
        if x.shape != y.shape or x.dtype != y.dtype:
            return False, None
        if x.numel():
            worst = max(worst, float((x.detach().double() - y.detach().double())
                                     .abs().nan_to_num(nan=math.inf).max()))
        try:
            torch.testing.assert_close(y, x, equal_nan=True)
        except AssertionError:
            return False, worst
    return True, worst


def _counts() -> dict[str, int]:
    from nbcompile.core.torch_compat import dynamo_counters  # imports nothing of nbcompile

    counters = dynamo_counters()
    out = {f"inductor {k}": int(v) for k, v in counters["inductor"].items() if "cache" in k}
    out.update({f"aot_autograd {k}": int(v) for k, v in counters["aot_autograd"].items()
                if "cache" in k})
    return out


def _prepare(spec: dict[str, Any], fn: Any, calls: list[Any]) -> Any:
    """The callable the variant times (compiling happens at its first call, except for
    ``precompiled_save``, whose ``aot_compile`` is timed with the first call)."""
    import torch

    variant, options = spec["variant"], dict(spec.get("options") or {})
    if variant in ("baseline", "portable_save", "portable_load"):
        if variant == "portable_load":
            with open(spec["artifact"], "rb") as f:
                torch.compiler.load_cache_artifacts(f.read())
        return torch.compile(fn, **options)
    if variant == "regional":
        for path in spec["blocks"]:
            for block in _get(fn, path):
                block.compile(**options)
        return fn
    if variant == "nested_region":
        for path in spec["blocks"]:
            cls: Any = type(next(iter(_get(fn, path))))
            if not getattr(cls.forward, "_nbcompile_nested", False):
                cls.forward = torch.compiler.nested_compile_region(cls.forward)
                cls.forward._nbcompile_nested = True
        return torch.compile(fn, **options)
    if variant == "dynamic":
        options["dynamic"] = True
        return torch.compile(fn, **options)
    if variant == "precompiled_load":
        with open(spec["artifact"], "rb") as f:
            loaded = torch.compiler.load_compiled_function(f)
        return (lambda *a, **k: loaded(fn, *a, **k)) if isinstance(fn, torch.nn.Module) \
            else loaded
    raise ValueError(f"unknown variant {variant!r}")


def _precompile(spec: dict[str, Any], fn: Any, calls: list[Any]) -> Any:
    """``aot_compile`` of the first call, saved to ``spec["artifact"]``."""
    import torch

    options = dict(spec.get("options") or {})
    options["fullgraph"] = True
    args, kwargs = calls[0]
    if isinstance(fn, torch.nn.Module):
        compiled = torch.compile(_call_module, **options).aot_compile(((fn, *args), kwargs))
        compiled.save_compiled_function(spec["artifact"])
        return lambda *a, **k: compiled(fn, *a, **k)
    compiled = torch.compile(fn, **options).aot_compile((tuple(args), kwargs))
    compiled.save_compiled_function(spec["artifact"])
    return compiled


def rebuild(namespace: dict[str, Any], spec: dict[str, Any]) -> tuple[Any, list[Any]]:
    """The call as the kernel holds it now: the globals its code reads imported or
    unpickled, the notebook's functions and classes defined again from their own
    statements (on their cells' line numbers, so graphs name the user's lines), their
    defaults and class attributes set as the kernel has them; then ``(fn, calls)``."""
    import importlib
    import linecache

    for name, module in spec.get("imports", {}).items():
        namespace[name] = importlib.import_module(module)
    early = pickle.loads(spec["early"]) if spec.get("early") else {}  # noqa: S301
    namespace.update(early)
    todo = list(spec.get("definitions", ()))
    for d in todo:  # the cells' text, as in the kernel (graphs quote it)
        lines = d["cell"].splitlines(True)
        linecache.cache[d["filename"]] = (len(d["cell"]), None, lines, d["filename"])
    while todo:  # a statement naming another definition (a base class) runs after it
        failed, error = [], None
        for d in todo:
            try:
                exec(compile(d["source"], d["filename"], "exec", flags=d["flags"],  # noqa: S102
                             dont_inherit=True), namespace)
            except NameError as e:
                failed.append(d)
                error = e
                continue
            _DEFINED[d["key"]] = namespace[d["name"]]
            for bind in d["binds"]:
                namespace[bind] = _DEFINED[d["key"]]
        if len(failed) == len(todo) and error is not None:
            raise error
        todo = failed
    namespace.update(early)  # each name as the kernel binds it now
    for d in spec.get("definitions", ()):
        for bind in d["binds"]:
            namespace[bind] = _DEFINED[d["key"]]
    values, patches, fn, calls = pickle.loads(spec["late"])  # noqa: S301
    namespace.update(values)
    for key, attr, value in patches:
        setattr(_DEFINED[key], attr, value)
    return fn, calls


def run(spec: dict[str, Any]) -> dict[str, Any]:
    """Rebuild the call, apply the variant, measure; the result as plain data."""
    out: dict[str, Any] = {"ok": False}
    stage = "importing torch"
    try:
        import torch

        # this process's only handler on torch's loggers: the kernel's taps and their
        # registry (``trace/log_taps.py``) stay out of the measured process
        trace = Recorder()
        logger = logging.getLogger("torch.__trace")
        logger.setLevel(logging.DEBUG)
        logger.addHandler(trace)
        out["events"] = trace.events
        if spec.get("probes_dir"):
            # Inductor's CPU-ISA probes: built once per cache directory (every machine that
            # compiled once has them in its cache), kept per process; made here, outside the
            # measured call, in a private directory all runs of the parent share, so a cold run
            # measures the compile of the call, not of torch's probes
            stage = "Inductor's CPU-ISA probes"
            from nbcompile.core import torch_compat

            torch_compat.make_vec_isa_probes(spec["probes_dir"])
        stage = "rebuilding the call"
        main = types.ModuleType("__main__")
        main.__dict__["__builtins__"] = __builtins__
        sys.modules["__main__"] = main
        fn, calls = rebuild(main.__dict__, spec)
        stage = "the eager call"
        torch.manual_seed(0)
        with torch.no_grad() if spec.get("no_grad") else _null():
            eager = [fn(*a, **k) for a, k in calls]
            stage = f"the {spec['variant']} variant"
            start = time.perf_counter()
            if spec["variant"] == "precompiled_save":
                target = _precompile(spec, fn, calls)
            else:
                target = _prepare(spec, fn, calls)
            firsts, results = [], []
            for a, k in calls:
                t0 = time.perf_counter()
                torch.manual_seed(0)
                results.append(target(*a, **k))
                firsts.append(time.perf_counter() - t0)
            out["first_call_s"] = time.perf_counter() - start
            out["first_calls_s"] = firsts
            if spec["variant"] == "portable_save":
                saved = torch.compiler.save_cache_artifacts()
                if saved is None:
                    raise RuntimeError("torch.compiler.save_cache_artifacts() saved nothing")
                with open(spec["artifact"], "wb") as f:
                    f.write(saved[0])
                out["artifact_bytes"] = len(saved[0])
            stage = "the steady state"
            times: list[float] = []
            deadline = time.perf_counter() + float(spec.get("steady_budget_s", 1.0))
            a, k = calls[0]
            while len(times) < int(spec.get("steady_calls", 20)) and (
                    len(times) < 3 or time.perf_counter() < deadline):
                t0 = time.perf_counter()
                target(*a, **k)
                times.append(time.perf_counter() - t0)
            out["steady_s"] = statistics.median(times)
        same = [_same(e, r) for e, r in zip(eager, results, strict=True)]
        out["same_result"] = all(s for s, _ in same) if same else None
        diffs = [d for _, d in same if d is not None]
        out["max_abs_diff"] = max(diffs) if diffs else None
        out["counts"] = _counts()
        out["ok"] = True
    except BaseException as e:  # noqa: BLE001 - reported to the parent, in words
        first = (str(e).strip().splitlines() or [""])[0][:300]
        out["error"] = f"{type(e).__name__}: {first}" if first else type(e).__name__
        out["stage"] = stage
        out["traceback"] = traceback.format_exc()[-4000:]
    return out


class _null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def main(argv: list[str] | None = None) -> int:
    spec_path, out_path = (argv or sys.argv)[-2:]
    with open(spec_path, "rb") as f:
        spec = pickle.load(f)  # noqa: S301 - written by our parent, in a private directory
    sys.path[:0] = [p for p in spec.get("sys_path", ()) if p not in sys.path]
    start = time.perf_counter()
    out = run(spec)
    out["run_s"] = time.perf_counter() - start
    out["pid"] = os.getpid()
    with open(out_path, "w") as f:
        json.dump(out, f, default=str)
    return 0 if out.get("ok") else 1


def exit_now(code: int) -> None:
    """End the process without the interpreter's teardown: with torch and Inductor loaded it
    takes ~1.2 s (their exit hooks stop compile workers, modules are torn down) and
    measures nothing; the result is written by then, Inductor's caches are written as
    each compile ends, and the parent stops the process group (the compile workers too)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
