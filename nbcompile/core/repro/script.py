"""A repro's script: one standalone ``.py`` (torch and the standard library) holding the
notebook's code the target needs (``compiletime/needs.py`` reads it from the code that
runs: definitions by their cell's statements, modules imported, globals by value), the
inputs rebuilt from the call (shapes, dtypes, strides, devices, requires_grad; values
seeded random), torch's changed configs, the same ``torch.compile`` options, and a check
of the fact from torch's own record (counters, failed guards, the exception). Its last
line of output is what torch recorded, as JSON after ``MARK``."""

from __future__ import annotations

import math
import pickle
import types
from typing import Any

import torch

from ..compiletime.needs import needs
from ..notebook.cells.cell_names import cell_name, cell_number
from .facts import Fact

#: The line the script prints before what torch recorded (JSON).
MARK = "nbcompile-repro-seen:"


class NotCarried(ValueError):
    """A value the script cannot write as source (in words)."""


def tensor_source(t: torch.Tensor, label: str) -> str:
    """An expression that builds a tensor like ``t``: its shape, strides, dtype, device and
    requires_grad; seeded random values."""
    if t.layout != torch.strided or type(t) is not torch.Tensor and not isinstance(
            t, torch.nn.Parameter) or t.is_quantized:
        raise NotCarried(f"{label} is a {type(t).__name__} ({t.layout}) a script cannot "
                         "rebuild")
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


def value_source(value: Any, label: str) -> str:
    """An expression for a plain value: a literal, a tensor (rebuilt), a dtype, a device,
    a size, or a list/tuple/dict of them."""
    if isinstance(value, torch.Tensor):
        return tensor_source(value, label)
    if isinstance(value, torch.dtype):
        return f"torch.{str(value).removeprefix('torch.')}"
    if isinstance(value, torch.device):
        return f"torch.device({str(value)!r})"
    if isinstance(value, torch.Size):
        return f"torch.Size({list(value)!r})"
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if isinstance(value, (list, tuple)):
        items = [value_source(v, f"{label}[{i}]") for i, v in enumerate(value)]
        if isinstance(value, list):
            return "[" + ", ".join(items) + "]"
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{value_source(k, label)}: {value_source(v, f'{label}[{k!r}]')}"
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


def code_section(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
                 ) -> tuple[str, str]:
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
        lines.append(f"{name} = {value_source(value, name)}")
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


def write(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any], options: dict[str, Any],
          fact: Fact, configs: str, header: str) -> str:
    """The script's text; ``NotCarried`` (in words) where something cannot be written."""
    if not isinstance(fn, types.FunctionType):
        raise NotCarried(f"{type(fn).__name__} targets are not written as scripts yet: "
                         "a repro covers functions defined in the notebook")
    code, target = code_section(fn, args, kwargs)
    names = arg_names(fn, args, kwargs)
    inputs = [f"{name} = {value_source(value, f'argument {name}')}"
              for name, value in zip(names, [*args, *kwargs.values()], strict=False)]
    values = dict(zip(names, [*args, *kwargs.values()], strict=False))
    inputs += [f"{name}_before = {_before(values[name], change, f'argument {name}')}"
               for name, change in fact.before_args.items() if name in values]
    call = _call(names, len(args), kwargs, set())
    call_before = _call(names, len(args), kwargs, set(fact.before_args))
    kw = ", ".join(f"{k}={v!r}" for k, v in options.items())
    said = header.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    out = [f'"""{said}"""', "", "import json", "import sys", "", "import torch",
           "import torch._dynamo.utils", ""]
    if configs.strip():
        out += ["# torch's settings changed from their defaults in the notebook",
                *[line for line in configs.strip().splitlines() if line.strip()], ""]
    out += ["# --- the notebook's code the target needs ---", code,
            "# --- the inputs, rebuilt from the call (values seeded random) ---",
            "torch.manual_seed(0)", *inputs, "",
            "# --- compiled as in the notebook ---",
            f"compiled = torch.compile({target}{', ' if kw else ''}{kw})", ""]
    out += _check(fact, call, call_before)
    return "\n".join(out) + "\n"


def _call(names: list[str], positional: int, kwargs: dict[str, Any], before: set[str]) -> str:
    def name(n: str) -> str:
        return f"{n}_before" if n in before else n

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
        "    head = (str(e).strip().splitlines() or [''])[0][:80]",
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
