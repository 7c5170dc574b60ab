"""A repro's script: one standalone ``.py`` (torch and the standard library) holding the
notebook's code the target needs (``compiletime/needs.py`` reads it from the code that
runs: definitions by their cell's statements, modules imported, globals by value), the
inputs rebuilt from the call (shapes, dtypes, strides, devices, requires_grad; values
seeded random, or the call's own saved beside it with ``torch.save`` when asked), a module
target built by its class with its ``state_dict`` saved beside it (``modules.py``), torch's
changed configs, the same ``torch.compile`` options, and a check of the fact from torch's
own record (counters, failed guards, the exception) or the fresh run's own numbers
(``accuracy.py``). Its last line of output is what it saw, as JSON after ``MARK``."""

from __future__ import annotations

import math
import pickle
import types
from dataclasses import dataclass, field
from typing import Any

import torch

from ..compiletime.needs import needs
from ..notebook.cells.cell_names import cell_name, cell_number
from . import accuracy
from .facts import MESSAGE_HEAD, Fact
from .modules import Built

#: The line the script prints before what torch recorded (JSON).
MARK = "nbcompile-repro-seen:"
#: The files a script loads from beside itself (``torch.load(..., weights_only=True)``).
INPUTS_FILE = "inputs.pt"
STATE_FILE = "state_dict.pt"


class NotCarried(ValueError):
    """A value the script cannot write as source (in words)."""


def tensor_source(t: torch.Tensor, label: str, saved: dict[str, torch.Tensor] | None = None
                  ) -> str:
    """An expression that builds a tensor like ``t``: its shape, strides, dtype, device and
    requires_grad; seeded random values, or (``saved`` given: the tensors to save, by
    label) its own values loaded from ``INPUTS_FILE``."""
    if t.layout != torch.strided or type(t) is not torch.Tensor and not isinstance(
            t, torch.nn.Parameter) or t.is_quantized:
        raise NotCarried(f"{label} is a {type(t).__name__} ({t.layout}) a script cannot "
                         "rebuild")
    if saved is not None:
        saved[label] = t.detach()
        return f"INPUTS[{label!r}]" + (".requires_grad_()" if t.requires_grad else "")
    shape, stride = tuple(t.shape), tuple(t.stride())
    contiguous = t.is_contiguous()
    size = (shape if contiguous
            else (1 + sum((s - 1) * st for s, st in zip(shape, stride, strict=True)),))
    device = "" if t.device.type == "cpu" else f", device={str(t.device)!r}"
    dtype = f"torch.{str(t.dtype).removeprefix('torch.')}"
    if t.dtype.is_floating_point or t.dtype.is_complex:
        made = f"torch.randn({size!r}, dtype={dtype}{device})"
    elif t.dtype == torch.bool:
        made = f"(torch.rand({size!r}{device}) > 0.5)"
    else:
        made = f"torch.randint(0, 10, {size!r}, dtype={dtype}{device})"
    if not contiguous:
        made += f".as_strided({shape!r}, {stride!r})"
    if t.requires_grad:
        made += ".requires_grad_()"
    return made


def value_source(value: Any, label: str, saved: dict[str, torch.Tensor] | None = None
                 ) -> str:
    """An expression for a plain value: a literal, a tensor (rebuilt, or saved: see
    ``tensor_source``), a dtype, a device, a size, or a list/tuple/dict of them."""
    if isinstance(value, torch.Tensor):
        return tensor_source(value, label, saved)
    if isinstance(value, torch.dtype):
        return f"torch.{str(value).removeprefix('torch.')}"
    if isinstance(value, torch.device):
        return f"torch.device({str(value)!r})"
    if isinstance(value, torch.Size):
        return f"torch.Size({list(value)!r})"
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if isinstance(value, (list, tuple)):
        items = [value_source(v, f"{label}[{i}]", saved) for i, v in enumerate(value)]
        if isinstance(value, list):
            return "[" + ", ".join(items) + "]"
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{value_source(k, label)}: "
                               f"{value_source(v, f'{label}[{k!r}]', saved)}"
                               for k, v in value.items()) + "}"
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return repr(value)
    raise NotCarried(f"{label} is a {type(value).__name__}, which a script cannot write as "
                     "source (only literals, tensors, dtypes, devices and their containers)")


def _before(value: Any, change: tuple[str, Any], label: str) -> str:
    """An argument as it was before a recompile (another size or dtype), rebuilt."""
    if not isinstance(value, torch.Tensor):
        raise NotCarried(f"{label} changed before the recompile and is not a tensor")
    kind, what = change
    shape = list(value.shape)
    dtype = getattr(torch, what) if kind == "dtype" else value.dtype
    if kind == "size":
        shape[what[0]] = what[1]
    like = torch.empty(shape, dtype=dtype, device="meta")
    return tensor_source(like.requires_grad_(value.requires_grad) if dtype.is_floating_point
                         else like, label).replace(", device='meta'", _device(value))


def _device(t: torch.Tensor) -> str:
    return "" if t.device.type == "cpu" else f", device={str(t.device)!r}"


def code_section(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                 saved: dict[str, torch.Tensor] | None = None) -> tuple[str, str]:
    """``(the notebook's code the target needs, the target's name there)``: definitions
    in the order the notebook ran them, imports, and globals by value; ``NotCarried``
    says what cannot be written."""
    found = needs(fn, [(args, kwargs)])
    if found.problem:
        raise NotCarried(found.problem.removeprefix("cannot be reproduced in a fresh process: "))
    early = pickle.loads(found.early) if found.early else {}  # our own bytes, just made
    late = [n for n in found.values if n not in early]
    if late:
        raise NotCarried(f"{', '.join(sorted(late))} hold(s) objects of the notebook's own "
                         "classes, which a script cannot write as source")
    lines: list[str] = []
    for name, module in sorted(found.imports.items()):
        if name == "torch" and module == "torch":
            continue
        lines.append(f"import {module}" if name == module else f"import {module} as {name}")
    if lines:
        lines.append("")
    for name, value in sorted(early.items()):
        lines.append(f"{name} = {value_source(value, name, saved)}")
    if early:
        lines.append("")
    defs = sorted(found.definitions,
                  key=lambda d: (cell_number(d.filename) or 0, len(d.source) - len(
                      d.source.lstrip("\n"))))
    target = getattr(fn, "__name__", "fn")
    for d in defs:
        where = cell_name(d.filename) or d.filename
        lines += [f"# {where}", d.source.lstrip("\n").rstrip(), ""]
        if d.binds and d.name != d.binds[0]:
            lines += [f"{b} = {d.name}" for b in d.binds] + [""]
    return "\n".join(lines), target


def arg_names(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[str]:
    """The target's parameter names the call's arguments bind to (positional order)."""
    import inspect

    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return []
    return list(bound.arguments)


@dataclass
class Script:
    """A script's text and the tensors it loads from beside itself (file name ->
    what ``torch.save`` writes there)."""

    text: str
    files: dict[str, Any] = field(default_factory=dict)


def stance_source(state: Any) -> str:
    """The line putting torch's stance ``state`` (its ``DynamoStance``: the name and
    options) in force; "" for the default stance."""
    name = getattr(state, "stance", "default")
    skip = bool(getattr(state, "skip_guard_eval_unsafe", False))
    backend = getattr(state, "backend", None)
    if name == "default" and not skip and backend is None:
        return ""
    if backend is not None and not isinstance(backend, str):
        raise NotCarried(f"the stance in force forces a backend that is a "
                         f"{type(backend).__name__}, which a script cannot write as source")
    words = [repr(name), *(["skip_guard_eval_unsafe=True"] if skip else []),
             *([f"force_backend={backend!r}"] if backend is not None else [])]
    return f"torch.compiler.set_stance({', '.join(words)})"


def write(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any], options: dict[str, Any],
          fact: Fact, configs: str, header: str, *, built: Built | None = None,
          save_inputs: bool = False, stance: str = "") -> Script:
    """The script; ``NotCarried`` (in words) where something cannot be written. A module
    target comes ``built`` (``modules.built``): its class defined, its constructor called,
    its ``state_dict`` loaded from ``STATE_FILE``. ``save_inputs``: the call's tensors
    (and the globals' read) are saved to ``INPUTS_FILE``, not rebuilt random. ``stance``:
    the line setting the notebook's stance (``stance_source``)."""
    if built is None and not isinstance(fn, types.FunctionType):
        raise NotCarried(f"a {type(fn).__name__} target is not written as a script: a repro "
                         "covers functions and modules whose class the notebook defines")
    saved: dict[str, torch.Tensor] | None = {} if save_inputs else None
    code, target = code_section(fn, args, kwargs, saved)
    names = arg_names(fn.forward if built is not None else fn, args, kwargs)
    inputs = [f"{name} = {value_source(value, f'argument {name}', saved)}"
              for name, value in zip(names, [*args, *kwargs.values()], strict=False)]
    values = dict(zip(names, [*args, *kwargs.values()], strict=False))
    inputs += [f"{name}_before = {_before(values[name], change, f'argument {name}')}"
               for name, change in fact.before_args.items() if name in values]
    call = _call(names, len(args), kwargs, set())
    call_before = _call(names, len(args), kwargs, set(fact.before_args))
    kw = ", ".join(f"{k}={v!r}" for k, v in options.items())
    said = header.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    out = [f'"""{said}"""', "", *(["import copy"] if built is not None else []),
           "import json", "import sys", *(["from pathlib import Path"] if saved is not None
                                          or built is not None else []),
           "", "import torch", "import torch._dynamo.utils", ""]
    if configs.strip():
        out += ["# torch's settings changed from their defaults in the notebook",
                *[line for line in configs.strip().splitlines() if line.strip()], ""]
    if fact.one_thread:
        out += ["# nbcompile saw the crash in a one-thread child process: with more threads, "
                "a C++ exception",
                "# inside an OpenMP parallel region aborts the process instead of raising",
                "torch.set_num_threads(1)", ""]
    if saved is not None:
        out += ["# the call's own values, saved by nbcompile beside this script",
                f'INPUTS = torch.load(Path(__file__).with_name("{INPUTS_FILE}"), '
                "weights_only=True)", ""]
    out += ["# --- the notebook's code the target needs ---", code]
    if built is not None:
        target = "model"
        out += ["# --- the module: its class built, its weights as in the notebook ---",
                f"model = {built.constructor}",
                "# assign: the saved tensors themselves (their dtype and device)",
                f'model.load_state_dict(torch.load(Path(__file__).with_name("{STATE_FILE}"), '
                "weights_only=True), assign=True)",
                f"model.train({built.training})", ""]
    out += ["# --- the inputs, " + ("as the notebook's call held them (saved) ---"
                                   if saved is not None
                                   else "rebuilt from the call (values seeded random) ---"),
            "torch.manual_seed(0)", *inputs, "",
            "# --- compiled as in the notebook ---",
            f"compiled = torch.compile({target}{', ' if kw else ''}{kw})", ""]
    if stance:
        out += ["# the stance in force in the notebook (torch.compiler.set_stance)", stance, ""]
    if fact.kind == "accuracy":
        eager64 = "copy.deepcopy(model).to(torch.float64)" if built is not None else target
        out += accuracy.check_lines(
            fact, target, eager64, _call(names, len(args), kwargs, set(), "fresh({})"),
            _call(names, len(args), kwargs, set(), "fresh({}, torch.float64)"), MARK)
    else:
        out += _check(fact, call, call_before)
    files: dict[str, Any] = {}
    if saved:
        files[INPUTS_FILE] = saved
    if built is not None:
        files[STATE_FILE] = built.state
    return Script("\n".join(out) + "\n", files)


def _call(names: list[str], positional: int, kwargs: dict[str, Any], before: set[str],
          wrap: str = "{}") -> str:
    def name(n: str) -> str:
        return wrap.format(f"{n}_before" if n in before else n)

    return ", ".join([name(n) for n in names[:positional]]
                     + [f"{k}={name(k)}" for k in kwargs])


def _check(fact: Fact, call: str, call_before: str) -> list[str]:
    """The fact checked from torch's own record, printed as JSON after ``MARK``."""
    expected = f"EXPECTED = {fact.expected!r}"
    if fact.kind == "graph_breaks":
        return [
            "# --- the fact: these graph breaks (torch's counters) ---", expected,
            f"compiled({call})",
            'reasons = list(torch._dynamo.utils.counters["graph_break"])',
            "seen = {\"types\": sorted({r.splitlines()[0].split(':')[0] for r in reasons}),",
            '        "hits": sum(torch._dynamo.utils.counters["graph_break"].values())}',
            f"print({MARK!r}, json.dumps(seen))",
            'missing = [t for t in EXPECTED["types"] if t not in seen["types"]]',
            "if missing:",
            '    sys.exit(f"did not reproduce: no graph break of type {missing}; saw {seen}")',
            'print(f"reproduced: {seen[\'hits\']} graph break(s): {seen[\'types\']}")']
    if fact.kind == "recompile":
        before = []
        for name, value in fact.before_globals.items():
            before.append(f"{name}, {name}_now = {value!r}, {name}")
        after = [f"{name} = {name}_now" for name in fact.before_globals]
        return [
            "# --- the fact: a recompile (torch's failed guards) ---", expected,
            "# the state before the recompile, then the notebook's", *before,
            f"compiled({call_before})", *after, f"compiled({call})",
            'failures = getattr(torch._dynamo.utils, "guard_failures", {})',
            "seen = {\"guards\": [g for gs in failures.values() for g in gs]}",
            f"print({MARK!r}, json.dumps(seen))",
            'if not any(EXPECTED["guard"] in g for g in seen["guards"]):',
            '    sys.exit(f"did not reproduce: no recompile on {EXPECTED[\'guard\']}")',
            'print(f"reproduced: a recompile on {EXPECTED[\'guard\']}")']
    return [
        "# --- the fact: the call raises (torch's exception) ---", expected,
        "try:", f"    compiled({call})", "except Exception as e:",
        "    # a compiler's own exception, inside torch's BackendCompilerFailed",
        '    inner = getattr(e, "inner_exception", None)',
        "    e = inner if isinstance(inner, BaseException) else e",
        f"    head = (str(e).strip().splitlines() or [''])[0][:{MESSAGE_HEAD}]",
        "    seen = {\"raised\": {\"type\": type(e).__name__, \"message\": head}}",
        "else:", "    seen = {\"raised\": None}",
        f"print({MARK!r}, json.dumps(seen))",
        'if not seen["raised"] or seen["raised"]["type"] != EXPECTED["type"]:',
        '    sys.exit(f"did not reproduce: expected {EXPECTED[\'type\']}, saw {seen}")',
        'print(f"reproduced: {seen[\'raised\'][\'type\']}: {seen[\'raised\'][\'message\']}")']


def read_seen(stdout: str) -> dict[str, Any] | None:
    """What the script printed after ``MARK`` (its last such line), or None."""
    import json

    for line in reversed(stdout.splitlines()):
        if line.startswith(MARK):
            try:
                seen = json.loads(line[len(MARK):])
            except ValueError:
                return None
            return seen if isinstance(seen, dict) else None
    return None
