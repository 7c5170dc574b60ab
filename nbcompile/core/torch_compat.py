"""Every private torch name nbcompile touches, each with its fallback.

nbcompile reads torch's compile machinery through names torch does not promise to keep
(``torch._dynamo``, ``torch._inductor``, ``torch._logging``, ``torch._guards``,
``torch.utils._*``, private attributes of ``nn.Module`` and of compiled functions, config
keys). ``NAMES`` lists them all; each has one accessor below, which returns the object,
or a safe default, or -- only when the feature that needs it is used -- raises a
``RuntimeError`` naming the missing name, the running torch and the feature.
``missing()`` says which names the running torch lacks (``tests/core/test_torch_compat.py``
prints them; ``make compat TORCH=2.x.y`` runs the suite on another torch).

Ground floor: imports nothing from nbcompile, and torch only when a name is looked up.
"""

from __future__ import annotations

import collections
import functools
import importlib
import re
import sys
import types
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any


class _Sentinel:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


#: ``lookup``'s answer for a name that is not there.
MISSING: Any = _Sentinel("MISSING")
#: A ``PrivateName`` without a safe default: its accessor raises when the name is missing.
REQUIRED: Any = _Sentinel("REQUIRED")


def torch_version() -> str:
    torch = sys.modules.get("torch") or _import("torch")
    return str(getattr(torch, "__version__", "(none)")) if torch is not MISSING else "(none)"


def release_of(version: str) -> tuple[int, int] | None:
    """``(2, 9)`` from ``"2.9.1+cu128"``; None when not read."""
    m = re.match(r"(\d+)\.(\d+)", version)
    return (int(m.group(1)), int(m.group(2))) if m else None


def torch_release() -> str:
    """The running torch's ``major.minor`` (``"2.9"`` of ``"2.9.1+cu128"``), as a note
    names it."""
    found = release_of(torch_version())
    return f"{found[0]}.{found[1]}" if found else torch_version()


def _import(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return MISSING


def lookup(path: str, default: Any = MISSING, *, root: Any = None, imports: bool = True) -> Any:
    """The object at a dotted ``path``, or ``default`` when any part of it is missing.

    Without ``root`` the path starts with a module's name; each next part is an attribute
    of the object so far or, for a module, a submodule (imported unless ``imports`` is
    False: then only one already in ``sys.modules`` counts). With ``root``, every part is
    an attribute, starting from ``root``.
    """
    parts = path.split(".")
    if root is None:
        name = parts.pop(0)
        obj = sys.modules.get(name) or (_import(name) if imports else MISSING)
    else:
        name, obj = "", root
    for part in parts:
        if obj is MISSING:
            return default
        name = f"{name}.{part}" if name else ""
        try:
            obj = getattr(obj, part)
            continue
        except AttributeError:
            pass
        if not (name and isinstance(obj, types.ModuleType)):
            return default
        obj = sys.modules.get(name) or (_import(name) if imports else MISSING)
    return default if obj is MISSING else obj


@dataclass(frozen=True)
class PrivateName:
    """One private torch name: where it is, what needs it, and what happens without it."""

    path: str  # dotted, from torch (with ``probe``: a label, the attribute last)
    feature: str  # what needs it, as in "<feature> is unavailable"
    fallback: str  # what nbcompile does on a torch without it
    default: Any = REQUIRED  # the accessor's answer without it (callable: a fresh value)
    probe: Callable[[], bool] | None = None  # present? for names no path reaches

    @property
    def attr(self) -> str:
        return self.path.rpartition(".")[2]

    def present(self) -> bool:
        if self.probe is not None:
            try:
                return bool(self.probe())
            except Exception:  # a probe that cannot run: the name is as good as missing
                return False
        return lookup(self.path) is not MISSING

    def error(self) -> RuntimeError:
        return RuntimeError(f"nbcompile needs {self.path}, which torch {torch_version()} "
                            f"lacks: {self.feature} is unavailable")

    def missing_value(self) -> Any:
        """The default, or the ``RuntimeError`` for a required name."""
        if self.default is REQUIRED:
            raise self.error()
        return self.default() if callable(self.default) else self.default

    def get(self, root: Any = None, *, imports: bool = True) -> Any:
        """The object at ``path`` (or ``root``'s attribute ``attr``), else the default,
        else ``RuntimeError``."""
        if root is not None:
            value = getattr(root, self.attr, MISSING)
        else:
            value = lookup(self.path, imports=imports)
        return self.missing_value() if value is MISSING else value


NAMES: dict[str, PrivateName] = {}


def _name(path: str, feature: str, fallback: str, default: Any = REQUIRED,
          probe: Callable[[], bool] | None = None) -> PrivateName:
    entry = PrivateName(path, feature, fallback, default, probe)
    NAMES[path] = entry
    return entry


def missing() -> list[str]:
    """The names the running torch lacks."""
    return [path for path, entry in NAMES.items() if not entry.present()]


def _trace_logger_is_torch_trace() -> bool:
    return lookup("torch._logging._internal.trace_log").name == "torch.__trace"


def _tensor_has(attr: str) -> bool:
    import torch

    return hasattr(torch.zeros(()), attr)


def _module_instance_has(attr: str) -> Callable[[], bool]:
    def probe() -> bool:
        import torch

        return hasattr(torch.nn.Module(), attr)

    return probe


def _disabled_function_has_mark() -> bool:
    import torch

    return getattr(torch.compiler.disable(lambda x: x), "_torchdynamo_disable", False) is True


def _compiled_function_has_orig() -> bool:
    import torch

    return hasattr(torch.compile(lambda x: x), "_torchdynamo_orig_callable")


# --- trace capture ------------------------------------------------------------------------

TRACE_LOG = _name(
    "torch._logging._internal.trace_log",
    "capture (the structured trace on the torch.__trace logger)",
    "nothing (nbcompile listens on the logger name torch.__trace; a torch that renamed it "
    "reports no compiles)", default=None, probe=_trace_logger_is_torch_trace)
INTERN_TABLE = _name(
    "torch._logging.structured.INTERN_TABLE",
    "filenames torch interned before nbcompile listened",
    "an empty table: such a filename stays unknown", default=dict)
PROVENANCE_LEVEL = _name(
    "torch._inductor.config.trace.provenance_tracking_level",
    "exact kernel-to-line mapping (Inductor's provenance tracking)",
    "not turned on (a no-op): kernels are tied to lines by nbcompile's own matching",
    default=None)
CURRENT_COMPILE_ID = _name(
    "torch._guards.CompileContext.current_compile_id",
    "torch's log records kept with the target that compiled them",
    "no compile known: torch's log records reach stderr as without nbcompile",
    default=None)
TORCH_LOGGING = _name(
    "torch._logging",
    "torch's log handlers set up before nbcompile filters them",
    "nothing imported (handlers torch sets up later are not filtered)", default=None)
#: torch's component loggers whose stderr handlers nbcompile filters (logger names: a
#: renamed one is simply not filtered, its records reach stderr as without nbcompile).
TORCH_LOGGERS = (
    "torch._dynamo",
    "torch._inductor",
    "torch._functorch.aot_autograd",
    "torch._functorch._aot_autograd",
    "torch.fx.experimental.symbolic_shapes",
    "torch._subclasses.fake_tensor",
)
for _logger in TORCH_LOGGERS:
    _name(_logger, f"torch's {_logger} log records kept in the record",
          "not filtered: its records reach stderr as without nbcompile", default=None)


def intern_table() -> Mapping[str, int]:
    """torch's own table of interned strings (text -> index)."""
    return INTERN_TABLE.get()


TRACE_HANDLER = _name(
    "torch._logging._internal.LazyTraceHandler",
    "%nbcompile trace / nbcompile.trace (torch's own TORCH_TRACE file handler)",
    "refused in words: the trace is not written")
TRACE_FORMATTER = _name(
    "torch._logging._internal.TorchLogsFormatter",
    "%nbcompile trace / nbcompile.trace (torch's own TORCH_TRACE line format)",
    "refused in words: the trace is not written")


CONFIG_STRING = _name(
    "torch._dynamo.debug_utils.generate_config_string",
    "a repro's torch settings (the lines torch's own minifier writes for the configs "
    "changed from their defaults)",
    "the repro sets no torch config: a fact that needs one may not reproduce (it says so)",
    default=None)


def changed_configs() -> str:
    """Python lines setting torch's configs (Dynamo, Inductor, functorch) that differ from
    their defaults, as torch's minifier writes them; "" where torch cannot say."""
    generate = CONFIG_STRING.get()
    try:
        return str(generate()) if generate is not None else ""
    except Exception:  # noqa: BLE001 - a config torch cannot print: none carried
        return ""


def trace_file_handler(directory: str) -> Any:
    """torch's own ``TORCH_TRACE`` handler writing into ``directory`` (a fresh
    ``dedicated_log_torch_trace_*.log`` opened on the first record), with torch's own
    trace formatter."""
    handler = TRACE_HANDLER.get()(directory)
    handler.setFormatter(TRACE_FORMATTER.get()(trace=True))
    return handler


def provenance_tracking_level(trace_config: Any = None) -> int | None:
    """Inductor's ``trace.provenance_tracking_level``; None on a torch without it."""
    if trace_config is not None:
        return getattr(trace_config, PROVENANCE_LEVEL.attr, None)
    return PROVENANCE_LEVEL.get()


def set_provenance_tracking_level(level: int, trace_config: Any = None) -> bool:
    """Set it; a no-op (False) on a torch without it."""
    if trace_config is None:
        trace_config = lookup(PROVENANCE_LEVEL.path.rpartition(".")[0])
    if trace_config is MISSING or provenance_tracking_level(trace_config) is None:
        return False
    setattr(trace_config, PROVENANCE_LEVEL.attr, level)
    return True


BYTECODE_HOOK = _name(
    "torch._dynamo.convert_frame.register_bytecode_hook",
    "what torch runs in place of a frame (its transformed code, report(f).compiles[i].runs_as)",
    "runs_as is None: the transformed code is not known", default=None)


def register_bytecode_hook(hook: Callable[[Any, Any], None]) -> Any:
    """Register ``hook(code, new_code)``, called once per frame compile with Dynamo's
    transformed code; its removable handle (None: this torch has no such hook)."""
    register = BYTECODE_HOOK.get()
    return register(hook) if register is not None else None


def current_compile_id() -> Any:
    """The ``CompileId`` of the Dynamo compile running now (None: none, or unknown)."""
    current = CURRENT_COMPILE_ID.get()
    return current() if current is not None else None


def import_torch_logging() -> None:
    """Import ``torch._logging`` (torch sets up its log handlers on import)."""
    TORCH_LOGGING.get()


# --- Dynamo -------------------------------------------------------------------------------

LIST_BACKENDS = _name(
    "torch._dynamo.list_backends",
    "checking --backend and compare(modes=) names",
    "torch.compiler.list_backends, else the backends every torch has",
    default=None)
#: What every torch.compile accepts, for a torch with neither list.
BASIC_BACKENDS = ("inductor", "eager", "aot_eager")
DYNAMO_CONFIG = _name(
    "torch._dynamo.config", "%suggest (trials under torch._dynamo.config.patch); diagnose "
    "(every global setting checked and put back after)",
    "RuntimeError when %suggest runs; diagnose does not check Dynamo's settings")
RECOMPILE_LIMIT = _name(
    "torch._dynamo.config.recompile_limit",
    "the recompile limit in advice and %suggest",
    "torch._dynamo.config.cache_size_limit (its older name), else 8", default=None)
CAPTURE_SCALAR_OUTPUTS = _name(
    "torch._dynamo.config.capture_scalar_outputs",
    "%suggest's capture_scalar_outputs setting",
    "that setting is not proposed", default=None)
REORDERABLE_LOGGING = _name(
    "torch._dynamo.config.reorderable_logging_functions",
    "%suggest's reorderable_logging_functions setting",
    "that setting is not proposed", default=None)
MARK_DYNAMIC = _name(
    "torch._dynamo.mark_dynamic", "%suggest's mark_dynamic fix",
    "that fix is not proposed (RuntimeError if called)")
PGO_CODE_STATE = _name(
    "torch._dynamo.pgo._CODE_STATE",
    "%suggest trials with their own automatic-dynamic memory",
    "trials share the session's memory (a copy made after the user's calls may start "
    "dynamic)", default=None)
PGO_INIT_CODE_STATE = _name(
    "torch._dynamo.pgo._INIT_CODE_STATE", PGO_CODE_STATE.feature, PGO_CODE_STATE.fallback,
    default=None)
PGO_CODE_STATE_TYPE = _name(
    "torch._dynamo.pgo.CodeState", PGO_CODE_STATE.feature, PGO_CODE_STATE.fallback,
    default=None)
COUNTERS = _name(
    "torch._dynamo.utils.counters",
    "frame and cache counters around a measurement",
    "an empty table (every count 0)",
    default=lambda: collections.defaultdict(collections.Counter))
GBID_LINK = _name(
    "torch._dynamo.exc.get_gbid_documentation_link",
    "the documentation link of a graph break", "no link", default=None)
UNSUPPORTED = _name(
    "torch._dynamo.exc.Unsupported", "clear messages for fullgraph=True failures",
    "the plain error", default=None)
SKIP_CODE = _name(
    "torch._dynamo.eval_frame.skip_code", "Dynamo told never to trace nbcompile's call hooks",
    "not told (the hooks hold no tensor: Dynamo skips them anyway)", default=None)
ORIG_CALLABLE = _name(
    "torch.compile(fn)._torchdynamo_orig_callable",
    "the function a torch.compile'd function wraps", "the object itself",
    default=None, probe=_compiled_function_has_orig)
DISABLED_MARK = _name(
    "torch.compiler.disable(fn)._torchdynamo_disable",
    "a function the user marked @torch.compiler.disable told apart from a compiled one",
    "such a function reads as compiled by the user and waits for a compile that never "
    "comes", default=None, probe=_disabled_function_has_mark)


#: Named in advice (only ``allow_rnn`` is read, by ``allow_rnn()``): listed so a torch that
#: renamed them shows up in ``missing()``; the advice then names a setting that torch lacks.
ALLOW_RNN = _name(
    "torch._dynamo.config.allow_rnn", "the advice for a module with an RNN",
    "the advice names a setting this torch lacks; an RNN module whose break does not "
    "name the RNN gets the general note", default=None)
FALLBACK_RANDOM = _name(
    "torch._inductor.config.fallback_random",
    "telling randomness from an accuracy problem (a compiled copy that draws eager's numbers)",
    "a call that draws random numbers is said to be not comparable, with no verdict",
    default=None)


def list_backends(dynamo: Any = None, compiler: Any = None) -> list[str]:
    """Every registered Dynamo backend (experimental and debug ones too)."""
    found = LIST_BACKENDS.get() if dynamo is None else getattr(dynamo, "list_backends", None)
    if found is not None:
        return list(found(None))
    public = (lookup("torch.compiler.list_backends", None) if compiler is None
              else getattr(compiler, "list_backends", None))
    if public is not None:
        return list(public(exclude_tags=None))
    return list(BASIC_BACKENDS)


def dynamo_config() -> Any:
    return DYNAMO_CONFIG.get()


def has_dynamo_config(key: str, config: Any = None) -> bool:
    """Whether Dynamo's config has ``key`` (a setting %suggest may patch)."""
    if config is None:
        return lookup(f"{DYNAMO_CONFIG.path}.{key}") is not MISSING
    return lookup(key, root=config) is not MISSING


def recompile_limit(config: Any = None) -> int:
    """``recompile_limit`` in force: ``cache_size_limit`` on an older torch, else 8."""
    config = DYNAMO_CONFIG.get() if config is None else config
    for key in (RECOMPILE_LIMIT.attr, "cache_size_limit"):
        value = getattr(config, key, None)
        if isinstance(value, int):
            return value
    return 8


def recompile_limit_key(config: Any = None) -> str:
    """The name of that setting in the running torch (``cache_size_limit`` before 2.6)."""
    return (RECOMPILE_LIMIT.attr if has_dynamo_config(RECOMPILE_LIMIT.attr, config)
            else "cache_size_limit")


def reorderable_logging_functions(config: Any = None) -> set[Any] | None:
    """The functions Dynamo runs after the graph instead of breaking; None without it."""
    found = (REORDERABLE_LOGGING.get() if config is None
             else getattr(config, REORDERABLE_LOGGING.attr, None))
    return set(found) if found is not None else None


def mark_dynamic(tensor: Any, dim: int) -> None:
    MARK_DYNAMIC.get()(tensor, dim)


def pgo_state(pgo: Any = None) -> Any:
    """``torch._dynamo.pgo`` when it has the automatic-dynamic memory %suggest swaps
    (``_CODE_STATE``, ``_INIT_CODE_STATE``, ``CodeState``); None otherwise."""
    entries = (PGO_CODE_STATE, PGO_INIT_CODE_STATE, PGO_CODE_STATE_TYPE)
    if pgo is None:
        pgo = lookup(PGO_CODE_STATE.path.rpartition(".")[0], None)
    if pgo is None or any(getattr(pgo, e.attr, MISSING) is MISSING for e in entries):
        return None
    return pgo


def dynamo_counters() -> Any:
    """Dynamo's counters (``counters[group][name]``); all zero on a torch without them."""
    return COUNTERS.get()


def gbid_documentation_link(gb_type: str) -> str:
    """The documentation URL torch knows for a graph break type ("" when none)."""
    link = GBID_LINK.get()
    return (link(gb_type) or "") if link is not None else ""


def allow_rnn() -> bool | None:
    """Dynamo's ``allow_rnn`` setting (False: RNN, GRU and LSTM modules are refused);
    None on a torch without it."""
    found = ALLOW_RNN.get()
    return bool(found) if found is not None else None


STANCE = _name(
    "torch._dynamo.eval_frame._stance",
    "the stance torch.compile runs under, shown with each record",
    "'default' (a stance set with torch.compiler.set_stance is not seen)", default=None)
CACHE_ENTRIES = _name(
    "torch._C._dynamo.eval_frame._debug_get_cache_entry_list",
    "counting the calls eager_on_recompile ran eagerly",
    "such calls are counted only while nothing was compiled", default=None)


SET_STANCE = _name(
    "torch._dynamo.eval_frame._set_stance",
    "putting back the whole stance (name and options) after a %%stance cell",
    "the stance is put back through torch.compiler.set_stance, with the name and options "
    "it had", default=None)
CALLBACK_FROM_STANCE = _name(
    "torch._dynamo.eval_frame._callback_from_stance",
    "checking a stance name against torch before a cell runs under it",
    "any name is accepted (torch refuses an unknown one at the next compiled call)",
    default=None)
INIT_LOGS = _name(
    "torch._logging._internal._init_logs",
    "re-arming nbcompile's taps on torch's loggers when torch._logging.set_logs resets them",
    "the taps are re-armed before each cell and when a compile starts", default=None)
STANCE_SETTER = _name(
    "torch._dynamo.set_stance",
    "hearing each stance torch puts in force (set_stance as a call, a context manager and "
    "a decorator puts it through _set_stance, called by name from its own module)",
    "the stance is read at the start of every call of a compiled target (an enter hook)",
    default=None)
EXAMPLE_INPUTS = _name(
    "torch._dynamo.eval_frame._EXAMPLE_INPUTS",
    "counting the first call eager_then_compile runs eagerly",
    "calls under eager_then_compile are not counted", default=None)
#: ``torch._dynamo.eval_frame``, once found.
_EVAL_FRAME: list[Any] = []


def _eval_frame() -> Any:
    if not _EVAL_FRAME:
        found = lookup(STANCE.path.rpartition(".")[0], None)
        if found is None:
            return None  # looked up again next time (torch may not be imported yet)
        _EVAL_FRAME.append(found)
    return _EVAL_FRAME[0]


def stance_state() -> Any:
    """torch's whole stance in force (its ``DynamoStance``: the name and every option),
    for ``put_stance``; None on a torch that cannot say."""
    module = _eval_frame()
    return STANCE.get(root=module) if module is not None else STANCE.get()


def current_stance() -> str:
    """The name of the ``torch.compiler.set_stance`` stance in force (``default``)."""
    name = getattr(stance_state(), "stance", None)
    return name if isinstance(name, str) else "default"


def put_stance(saved: Any) -> None:
    """Put back exactly the stance ``stance_state`` gave (the same object, options and
    all); nothing for None."""
    if saved is None:
        return
    put = SET_STANCE.get()
    if put is not None:
        put(saved)
        return
    import torch

    torch.compiler.set_stance(
        getattr(saved, "stance", "default"),
        skip_guard_eval_unsafe=bool(getattr(saved, "skip_guard_eval_unsafe", False)),
        force_backend=getattr(saved, "backend", None))


class _Heard:
    """Listeners told right after one of torch's functions ran (with its arguments): the
    function is wrapped, in every module that calls it by its global name, while any
    listener is on, and put back with the last one (only where still ours)."""

    def __init__(self, attr: str, modules: Callable[[], list[types.ModuleType]]) -> None:
        self.attr = attr
        self._modules = modules  # the modules binding torch's function ([]: cannot hear)
        self._listeners: list[Callable[..., None]] = []
        self._wrapped: list[tuple[types.ModuleType, Any, Any]] = []  # module, original, ours

    def add(self, listener: Callable[..., None]) -> Callable[[], None] | None:
        """Hear each run from now on; the remover, or None when torch cannot be heard."""
        if not self._wrapped and not self._wrap():
            return None
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)
            if not self._listeners:
                self._unwrap()
        return remove

    def _wrap(self) -> bool:
        import functools

        modules = self._modules()
        if not modules:
            return False
        original = getattr(modules[0], self.attr)
        listeners = self._listeners

        @functools.wraps(original)  # its marks too (``_dynamo_forbidden``)
        def heard(*args: Any, **kwargs: Any) -> Any:
            result = original(*args, **kwargs)  # torch's refusal raises: nothing heard
            for listener in list(listeners):
                try:
                    listener(*args)
                except Exception:  # a capture bug must never break torch
                    pass
            return result

        for module in modules:
            setattr(module, self.attr, heard)
            self._wrapped.append((module, original, heard))
        return True

    def _unwrap(self) -> None:
        for module, original, wrapper in self._wrapped:
            if getattr(module, self.attr, None) is wrapper:  # not replaced since
                setattr(module, self.attr, original)
        self._wrapped.clear()


def _binding(attr: str, original: Any, *candidates: Any) -> list[types.ModuleType]:
    """The candidate modules whose global ``attr`` is ``original`` (each once)."""
    if not callable(original):
        return []
    return list({id(m): m for m in candidates if isinstance(m, types.ModuleType)
                 and getattr(m, attr, None) is original}.values())


def _stance_setters() -> list[types.ModuleType]:
    """``set_stance``'s own module (``decorators`` from 2.6 on) and ``eval_frame``, where
    ``_set_stance`` lives: each calls it by its own global name. Both, or none."""
    home = sys.modules.get(getattr(STANCE_SETTER.get(), "__module__", None) or "")
    found = _binding(SET_STANCE.attr, SET_STANCE.get(), home, _eval_frame())
    return found if home in found else []


def _log_initializers() -> list[types.ModuleType]:
    """``torch._logging._internal`` (``set_logs`` calls its ``_init_logs``) and
    ``torch._logging``, which re-exports it."""
    return _binding(INIT_LOGS.attr, INIT_LOGS.get(), lookup(INIT_LOGS.path.rpartition(".")[0]),
                    lookup("torch._logging"))


_STANCE_HEARD = _Heard(SET_STANCE.attr, _stance_setters)
_LOGS_HEARD = _Heard(INIT_LOGS.attr, _log_initializers)


def on_stance_change(listener: Callable[[Any], None]) -> Callable[[], None] | None:
    """Hear each stance torch puts in force from now on: ``listener(stance)`` (torch's
    ``DynamoStance``) right after torch set it, whoever did (``torch.compiler.set_stance``
    as a call, a context manager or a decorator; ``%%stance``). Returns the remover; None
    on a torch that cannot be heard so (the caller reads the stance itself)."""
    return _STANCE_HEARD.add(listener)


def on_logs_reset(listener: Callable[[], None]) -> Callable[[], None] | None:
    """Hear each time torch sets its loggers up anew (``torch._logging.set_logs``: levels,
    handlers and propagation reset): ``listener()`` right after. Returns the remover; None
    on a torch that cannot be heard so."""
    return _LOGS_HEARD.add(listener)


def stance_refusal(name: str) -> str | None:
    """torch's words refusing stance ``name`` (``torch.compiler.set_stance`` takes any
    name; the first compiled call under an unknown one raises); None when torch accepts
    it or cannot be asked. torch's own check is run, with ``name`` in force for that
    instant only (no compiled call can start meanwhile: no frame is being evaluated)."""
    check, put, current = CALLBACK_FROM_STANCE.get(), SET_STANCE.get(), stance_state()
    if check is None or put is None or current is None:
        return None
    try:
        trial = type(current)(name)
        prior = put(trial)
    except Exception:  # a torch whose stance type differs, or inside a compile region
        return None
    try:
        check(None)  # no callback: the check compiles nothing
    except RuntimeError as e:
        return str(e) or f"invalid torch.compile stance {name!r}"
    except Exception:
        return None
    finally:
        put(prior)
    return None


def example_input_count(code: Any) -> int | None:
    """How many calls of ``code`` torch's ``eager_then_compile`` stance has seen (the
    first runs eagerly, the next compiles); None when torch cannot say."""
    module = _eval_frame()
    if module is None or not hasattr(module, EXAMPLE_INPUTS.attr):
        return None
    found = EXAMPLE_INPUTS.get(root=module)
    if found is None:  # torch makes it on first use
        return 0
    try:
        return len(found.get(code.co_filename + str(code.co_firstlineno), ()))
    except (AttributeError, TypeError):
        return None


def guards_pass(code: Any, f_locals: dict[str, Any]) -> bool | None:
    """Whether one of the compiled entries torch holds for ``code`` accepts a frame with
    ``f_locals`` (its guards pass): False when none does or none is held; None when
    torch cannot be asked."""
    entries_of = CACHE_ENTRIES.get()
    if entries_of is None:
        return None
    try:
        entries = entries_of(code)
        return any(bool(e.guard_manager.check(f_locals)) for e in entries)
    except Exception:  # a torch whose guard managers differ: not known
        return None


def unsupported_error_types() -> tuple[type, ...]:
    found = UNSUPPORTED.get()
    return (found,) if isinstance(found, type) else ()


def skip_code(code: Any) -> bool:
    """Ask Dynamo never to trace ``code``; False when torch cannot be asked."""
    skip = SKIP_CODE.get()
    if skip is None:
        return False
    skip(code)
    return True


def orig_callable(fn: Any, default: Any = MISSING) -> Any:
    """What a ``torch.compile``'d function wraps; ``default`` (else ``fn``) otherwise."""
    found = getattr(fn, ORIG_CALLABLE.attr, None)
    if found is not None:
        return found
    return fn if default is MISSING else default


def disabled_function(fn: Any) -> Any:
    """The function ``fn`` wraps when it is ``torch.compiler.disable(function)`` (Dynamo
    never traces it: it runs eagerly on purpose), else None."""
    if getattr(fn, DISABLED_MARK.attr, False) is not True:
        return None
    return getattr(fn, ORIG_CALLABLE.attr, None)


# --- Inductor -----------------------------------------------------------------------------

LIST_OPTIONS = _name(
    "torch._inductor.list_options", "checking --options keys",
    "not checked here (torch.compile checks them at the first call)", default=None)
OPTION_TYPE = _name(
    "torch._inductor.config.get_type", "checking --options value types",
    "not checked here", default=None)
LIST_MODE_OPTIONS = _name(
    "torch._inductor.list_mode_options", "--codegen triton with --mode",
    "RuntimeError for --codegen triton with --mode (without --mode: works)")
CPU_BACKEND = _name(
    "torch._inductor.config.cpu_backend", "--codegen triton (Triton code for a CPU)",
    "RuntimeError for --codegen triton")
INDUCTOR_PATCH = _name(
    "torch._inductor.config.patch", "%kprun (a compile with kernel profiling on)",
    "RuntimeError when %kprun runs")
KERNEL_PROFILE = _name(
    "torch._inductor.config.cpp.enable_kernel_profile", "%kprun's time per kernel",
    "RuntimeError when %kprun runs")
FORCE_DISABLE_CACHES = _name(
    "torch._inductor.config.force_disable_caches",
    "%kprun's fresh compile (line numbers of a cached graph may be stale)",
    "left out of the patch: a cached graph's kernels may point at old line numbers",
    default=None)
DEFAULT_CACHE_DIR = _name(
    "torch._inductor.runtime.cache_dir_utils.default_cache_dir",
    "%nbcompile cache naming Inductor's default directory", "unknown (None)",
    default=None)
CPP_CODE_CACHE = _name(
    "torch._inductor.codecache.CppCodeCache",
    "%nbcompile cache save carrying the built C++ kernels", "none carried (the next "
    "kernel builds them again)", default=None)
CODECACHE_GET_PATH = _name(
    "torch._inductor.codecache.get_path",
    "%nbcompile cache save carrying the built C++ kernels", "none carried", default=None)
CACHE_DIR = _name(
    "torch._inductor.runtime.cache_dir_utils.cache_dir",
    "%nbcompile cache load placing the built C++ kernels", "none placed", default=None)
CLEAR_CACHES = _name(
    "torch._inductor.utils.clear_caches",
    "Inductor's in-memory lookups cleared when the cache directory changes",
    "nothing cleared", default=None)
TRITON_HASH = _name(
    "torch.utils._triton.triton_hash_with_backend",
    "--codegen triton on a machine without a GPU", "RuntimeError for --codegen triton")


# --- diagnose (core/diagnosis/torch_names.py reads these paths) -------------------------
INDUCTOR_CONFIG = _name(
    "torch._inductor.config", "diagnose: Inductor settings on copies (workarounds, bisection)",
    "RuntimeError when diagnose runs")
FUNCTORCH_CONFIG = _name(
    "torch._functorch.config", "diagnose: AOTAutograd's cache off while bisecting",
    "the cache stays on (a cached graph could hide what the bisection switches off)",
    default=MISSING)
BISECTOR = _name(
    "torch._inductor.compiler_bisector.CompilerBisector",
    "diagnose: the compiler subsystem and op (torch's CompilerBisector)",
    "no bisection: the culprit comes from the error and the graphs", default=MISSING)


def _bisector_keeps_debug_info() -> bool:
    # torch <= 2.9 keeps the op a lowering bisection names in this dict, in the process
    # that compiled; later versions write it to the bisector's files (any process reads)
    return (lookup(BISECT_DEBUG_INFO.path) is not MISSING
            or hasattr(lookup(BISECTOR.path, None), "get_call_counter_debug_info"))


BISECT_DEBUG_INFO = _name(
    "torch._inductor.compiler_bisector.call_counter_debug_info",
    "diagnose: the op a bisection names when its steps ran in child processes (torch 2.9 "
    "keeps it in the child's memory; later versions in the bisector's files)",
    "the culprit is the lowering's number, without its op or line", default=None,
    probe=_bisector_keeps_debug_info)
DEFAULT_TOLERANCES = _name(
    "torch.testing._comparison.default_tolerances",
    "diagnose: assert_close's default tolerance by dtype", "the same table, as of torch 2.13",
    default=MISSING)
DISPATCH_MODE = _name(
    "torch.utils._python_dispatch.TorchDispatchMode",
    "diagnose: the custom ops a call runs, checked with torch.library.opcheck",
    "custom ops are not checked", default=MISSING)
CAST_TO_FP64 = _name(
    "torch._dynamo.debug_utils.cast_to_fp64",
    "diagnose: the float64 reference of a function that casts inside (its graph with every "
    "cast rewritten to float64, as torch's accuracy minifier makes it)",
    "no float64 verdict for a function that casts inside", default=MISSING)


def inductor_option_names() -> list[str] | None:
    """Every Inductor option name; None on a torch that does not list them."""
    found = LIST_OPTIONS.get()
    return list(found()) if found is not None else None


def inductor_option_type(key: str) -> Any:
    """The type Inductor declares for option ``key``; None when unknown."""
    get_type = OPTION_TYPE.get()
    return get_type(key) if get_type is not None else None


def mode_options(mode: str) -> dict[str, Any]:
    """The Inductor settings a ``mode=`` stands for."""
    return dict(LIST_MODE_OPTIONS.get()(mode))


def require_cpu_backend() -> None:
    """RuntimeError unless Inductor has the ``cpu_backend`` option (``--codegen triton``)."""
    CPU_BACKEND.get()


def inductor_patch(changes: Mapping[str, Any], root: Any = None) -> Any:
    """``torch._inductor.config.patch(changes)``: a change to a registered optional key
    torch lacks is left out; a required one raises its ``RuntimeError``."""
    config = lookup("torch._inductor.config") if root is None else root
    if config is MISSING or getattr(config, "patch", None) is None:
        raise INDUCTOR_PATCH.error()
    kept = {}
    for key, value in changes.items():
        if lookup(key, root=config) is MISSING:
            entry = NAMES.get(f"torch._inductor.config.{key}")
            if entry is None:
                raise PrivateName(f"torch._inductor.config.{key}", "this setting", "").error()
            entry.missing_value()  # raises for a required key
            continue
        kept[key] = value
    return config.patch(kept)


def default_cache_dir() -> str | None:
    found = DEFAULT_CACHE_DIR.get()
    return found() if found is not None else None


def built_cpp_kernels() -> list[str]:
    """The shared libraries of the C++ kernels this process loaded (Inductor's C++ code
    caches, keyed by source and compile command), as paths in the Inductor cache
    directory: a later process with these files there skips building them."""
    base, get_path = CPP_CODE_CACHE.get(imports=False), CODECACHE_GET_PATH.get(imports=False)
    if base is None or get_path is None:
        return []
    found: list[str] = []
    classes = [base]
    while classes:
        cls = classes.pop()
        classes.extend(cls.__subclasses__())
        for key in list(vars(cls).get("cache", {})):
            try:
                path = get_path(key, "main.so")[2]
            except Exception:
                continue
            if path not in found:
                found.append(path)
    return found


def inductor_cache_dir() -> str | None:
    """The Inductor cache directory this process uses now (``TORCHINDUCTOR_CACHE_DIR``)."""
    found = CACHE_DIR.get()
    return found() if found is not None else None


def has_aot_compile() -> bool:
    """Whether ``torch.compile(fn)`` has ``.aot_compile`` (precompiled functions; torch
    2.11 has ``load_compiled_function`` but not this method on compiled functions)."""
    import torch

    try:
        return callable(getattr(torch.compile(_identity), "aot_compile", None))
    except Exception:
        return False


def _identity(x: Any) -> Any:
    return x


def clear_inductor_caches() -> None:
    """Inductor's ``clear_caches()``, if torch has imported it (never imported here)."""
    clear = CLEAR_CACHES.get(imports=False)
    if clear is not None:
        try:
            clear()
        except Exception:  # pragma: no cover - best effort, as torch's own helper
            pass


def triton_utils() -> types.ModuleType:
    """``torch.utils._triton``, which has ``triton_hash_with_backend``."""
    TRITON_HASH.get()
    return lookup(TRITON_HASH.path.rpartition(".")[0])


# --- pytree and nn.Module internals -------------------------------------------------------

TREE_FLATTEN = _name(
    "torch.utils._pytree.tree_flatten", "torch's pytree (inputs copied, outputs compared)",
    "nbcompile's own walk of lists, tuples, dicts and namedtuples", default=None)
TREE_MAP = _name(
    "torch.utils._pytree.tree_map", TREE_FLATTEN.feature, TREE_FLATTEN.fallback,
    default=None)
CALL_IMPL = _name(
    "torch.nn.Module._call_impl", "module targets (module.compile() and eager calls)",
    "RuntimeError when a module is compiled", probe=_module_instance_has("_call_impl"))
COMPILED_CALL_IMPL = _name(
    "torch.nn.Module._compiled_call_impl", "module targets (module.compile())",
    "RuntimeError when a module is compiled",
    probe=_module_instance_has("_compiled_call_impl"))
WRAP_INLINE = _name(
    "torch._dynamo.external_utils.wrap_inline",
    "torch.nn's own modules compiled (nn.Sequential ...: torch's traceable wrapper frame)",
    "nbcompile's own forwarding function is the compiled frame", default=None)
TENSOR_VERSION = _name(
    "torch.Tensor._version", "inputs changed in place (compare, diagnose)",
    "no input is said to be changed in place", default=None,
    probe=lambda: _tensor_has("_version"))


def _simple_leaves(value: Any) -> Iterable[Any]:
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _simple_leaves(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _simple_leaves(item)
    else:
        yield value


def _simple_map(fn: Callable[[Any], Any], value: Any) -> Any:
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # namedtuple
        return type(value)(*(_simple_map(fn, v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_simple_map(fn, v) for v in value)
    if isinstance(value, dict):
        return type(value)((k, _simple_map(fn, v)) for k, v in value.items())
    return fn(value)


def tree_leaves(value: Any, flatten: Any = MISSING) -> list[Any]:
    """The leaves of nested containers (torch's pytree: dataclasses, ModelOutput... too)."""
    flatten = TREE_FLATTEN.get() if flatten is MISSING else flatten
    return list(flatten(value)[0]) if flatten is not None else list(_simple_leaves(value))


def tree_map(fn: Callable[[Any], Any], value: Any, mapper: Any = MISSING) -> Any:
    mapper = TREE_MAP.get() if mapper is MISSING else mapper
    return mapper(fn, value) if mapper is not None else _simple_map(fn, value)


def call_impl(module: Any) -> Callable[..., Any]:
    """``module._call_impl``: the module's eager call (hooks, then ``forward``)."""
    return CALL_IMPL.get(module)


@functools.cache
def module_call_lines() -> tuple[str, range] | None:
    """The file and lines of ``torch.nn.Module._call_impl`` (a module's own call: its
    hooks, then ``forward``); None when not readable."""
    import inspect

    import torch

    function = getattr(torch.nn.Module, CALL_IMPL.attr, None)
    if function is None:
        return None
    try:
        lines, first = inspect.getsourcelines(function)
        return inspect.getfile(function), range(first, first + len(lines))
    except (OSError, TypeError):
        return None


def compiled_call_impl(module: Any) -> Any:
    """What ``module.compile()`` installed (None: not compiled)."""
    return COMPILED_CALL_IMPL.get(module)


def _forwarding(fn: Callable[..., Any]) -> Callable[..., Any]:
    def inner(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return inner


def wrap_inline() -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """torch's ``wrap_inline``: a traceable frame (not in Dynamo's skip files) around ``fn``."""
    found = WRAP_INLINE.get()
    return found if found is not None else _forwarding


def set_compiled_call_impl(module: Any, value: Any) -> None:
    COMPILED_CALL_IMPL.get(module)  # raises on a torch without it
    module._compiled_call_impl = value


def tensor_version(tensor: Any) -> int | None:
    """``tensor._version``: bumped by each in-place change (None: not known)."""
    return TENSOR_VERSION.get(tensor)


# --- CUDA-graph trees (read only on CUDA, when a target or row asked for CUDA graphs) -----

CUDAGRAPH_MANAGER = _name(
    "torch._inductor.cudagraph_trees.get_manager",
    "CUDA graphs: the tree manager's private memory pool (compare's held bytes) and the "
    "calls of its current generation (the overwritten-output report)",
    "no pool is read (compare's reduce-overhead row is measured as any other: a replay "
    "allocates nothing); the overwriting call is not named", default=None)


def cudagraph_manager(device_index: int) -> Any:
    """The CUDA-graph tree manager of a device in this thread, without creating one
    (``cudagraph_trees.get_manager(index, create_if_none_exists=False)``); None when
    there is none or this torch lacks it."""
    get = CUDAGRAPH_MANAGER.get()
    if get is None:
        return None
    try:
        return get(device_index, create_if_none_exists=False)
    except Exception:  # noqa: BLE001 - torch's TLS not set up in this thread
        return None


CUDAGRAPH_GENERATION = _name(
    "torch._inductor.cudagraph_trees.CUDAGraphTreeManager.get_curr_generation",
    "CUDA graphs: how many generations of the trees a cell started (which call overwrote "
    "an output the user held, when one generation did)",
    "the overwriting call is named only when a watched call was seen overwriting",
    default=None)


def cudagraph_generation() -> int | None:
    """The CUDA-graph trees' current generation as torch counts it (a compiled call's
    entry, or the user's ``cudagraph_mark_step_begin``); None when not readable."""
    get = CUDAGRAPH_GENERATION.get()
    try:
        value = get() if get is not None else None
    except Exception:  # noqa: BLE001 - a torch whose trees differ: not known
        return None
    return value if isinstance(value, int) else None


CUDAGRAPH_OVERWRITE_MESSAGE = _name(
    "torch._inductor.cudagraph_trees.CUDAGraphTreeManager.format_dealloc_msg",
    "CUDA graphs: torch's own remedy for an output held across generations, in its words "
    "(the overwritten- and shared-output fix)",
    "only a copy of the output (.clone()) is offered", default=None)


def cudagraph_overwrite_message() -> str:
    """torch's text on an overwritten CUDA-graph output as the running torch words it
    (``format_dealloc_msg`` with no stack trace), its remedies with it; "" when not
    readable."""
    fmt = CUDAGRAPH_OVERWRITE_MESSAGE.get()
    try:
        text = fmt(None) if fmt is not None else ""
    except Exception:  # noqa: BLE001 - a torch whose message takes other arguments
        return ""
    return text if isinstance(text, str) else ""


PARTITION_LOG = _name(
    "torch._inductor.scheduler.Scheduler._log_graph_partitions",
    "CUDA graphs: the graph partitions kept outside CUDA graphs (the scheduler's DEBUG "
    "report)",
    "graph partitions are said as not known on this torch", default=None)


def scheduler_logs_partitions() -> bool:
    """Whether this torch's scheduler reports a graph's partitions on its ``cudagraphs``
    logger (torch 2.9 only hints at a split, as a perf hint without counts)."""
    return PARTITION_LOG.get() is not None


INDUCTOR_TRITON_CONFIG = _name(
    "torch._inductor.config.triton",
    "CUDA graphs per call: torch's warning limit on distinct input sizes",
    "the limit is said as not known", default=None)
LOG_STATE = _name(
    "torch._logging._internal.log_state",
    "CUDA graphs per call: whether the user turned torch's cudagraphs log on",
    "taken as off: only what torch's handlers would show reaches them", default=None)


def inductor_triton_config() -> Any:
    """Inductor's ``config.triton`` (CUDA-graph settings among them), None without it."""
    return INDUCTOR_TRITON_CONFIG.get()


def log_artifact_enabled(name: str) -> bool:
    """Whether torch's log artifact ``name`` is on (``TORCH_LOGS``, ``set_logs``)."""
    state = LOG_STATE.get()
    try:
        return bool(state is not None and state.is_artifact_enabled(name))
    except Exception:  # noqa: BLE001 - a torch whose logging state differs
        return False


# --- compile_time's fresh processes ------------------------------------------------------
VEC_ISA_PROBES = _name(
    "torch._inductor.cpu_vec_isa.valid_vec_isa_list",
    "compile_time: Inductor's CPU-ISA probes made outside the measured call; diagnose: made "
    "once before its runs are forked",
    "the probes are made inside the first compile of each cold run (of each forked child), "
    "as torch does", default=None)
TEMPORARY_CACHE_DIR = _name(
    "torch._inductor.runtime.cache_dir_utils.temporary_cache_dir",
    "compile_time: Inductor's CPU-ISA probes made outside the measured call",
    "the probes are made inside the first compile of each cold run, as torch does",
    default=None)


def make_vec_isa_probes(cache_dir: str) -> bool:
    """Have Inductor build its CPU-ISA probes (small C++ programs it builds once per cache
    directory, then keeps per process) into ``cache_dir`` (torch's
    ``temporary_cache_dir``: the cache directory and Inductor's in-memory caches put back
    after); False where this torch has no such probes or they fail."""
    in_dir = TEMPORARY_CACHE_DIR.get()
    if in_dir is None or VEC_ISA_PROBES.get() is None:
        return False
    try:
        with in_dir(cache_dir):
            return _vec_isa_probes_made()
    except Exception:  # noqa: BLE001 - a directory Inductor cannot use
        return False


def _vec_isa_probes_made() -> bool:
    """Inductor's CPU-ISA probes made in its cache directory now (``valid_vec_isa_list``,
    cached per process); False where this torch has no such probes or they fail."""
    probe = VEC_ISA_PROBES.get()
    if probe is None:
        return False
    try:
        probe()
        return True
    except Exception:  # noqa: BLE001 - no compiler, or a torch whose probes differ
        return False


# --- diagnose's forked children ----------------------------------------------------------
INDUCTOR_COMPILE_FX = _name(
    "torch._inductor.compile_fx",
    "diagnose: Inductor's modules imported before its runs are forked",
    "each forked child imports them", default=None)


def warm_inductor_for_forks() -> None:
    """Inductor's once-per-process work done here: its modules imported and its CPU-ISA
    probes made (``valid_vec_isa_list``, cached per process). Children forked after
    inherit both instead of each repeating them (~1.5 s of a ~2.5 s compile)."""
    INDUCTOR_COMPILE_FX.get()
    _vec_isa_probes_made()  # where they fail, each child finds out as torch does
