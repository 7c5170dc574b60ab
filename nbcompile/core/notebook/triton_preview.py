"""``%%compile --codegen triton``: see the Triton kernels a GPU would run, on a CPU.

Inductor can generate Triton for CPU tensors (``cpu_backend="triton"``), but without a
GPU Triton has no active driver and Inductor's codegen stops at
``torch.utils._triton.triton_hash_with_backend()``. For a *preview* target only:

* ``cpu_backend="triton"`` is passed as a ``torch.compile`` option, so torch itself
  scopes that config patch to the target's compiles;
* every call of the target runs inside ``preview_scope()``, which (only where no Triton
  driver is active) replaces the backend hash with a constant and sets
  ``TRITON_INTERPRET=1`` so that kernels load in Triton's interpreter (pointwise kernels
  even run, slowly), and restores both afterwards;
* a kernel the interpreter cannot run (libdevice math, many reductions) does not stop
  the notebook: the call is computed eagerly (PyTorch without compiling) and a note on
  the target says so and names the kernel; its code is in the record all the same;
* ``--codegen triton-interpret`` (``apply(target, interpret=True)``) is the explicit
  choice to run in the interpreter only: there such a kernel raises
  ``TritonPreviewError`` naming it.

On a machine with a GPU, Triton kernels for CUDA tensors are captured as they are; the
preview changes nothing there but the CPU backend option.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import inspect
import os
import re
import threading
import traceback
import types
import warnings
import weakref
from collections.abc import Callable, Iterator
from typing import Any

from .. import torch_compat
from .targets.target_state import Target

PREVIEW = "triton"
INTERPRET = "triton-interpret"  # --codegen value: run in the interpreter, or raise
CODEGEN_CHOICES = ("default", PREVIEW, INTERPRET)
PREVIEW_HASH = "NBCOMPILE-TRITON-PREVIEW-NO-GPU"
PREVIEW_NOTE = (
    "Triton preview (--codegen triton): the kernels below are the Triton code Inductor "
    "generates for a GPU, made on this CPU-only machine. They run (if at all) in Triton's "
    "slow interpreter: use this to read the code, not to time it."
)
_KERNEL_NAME = re.compile(r"\btriton_(?:poi|red|per|tem)_\w+")

_lock = threading.RLock()
_depth = 0
_saved: dict[str, Any] = {}
_driver_active: bool | None = None


class TritonPreviewError(RuntimeError):
    """A Triton preview kernel could not be generated or run on this machine."""


def triton_available() -> bool:
    return importlib.util.find_spec("triton") is not None


def require_triton() -> None:
    if not triton_available():
        raise TritonPreviewError(
            "--codegen triton needs the triton package: pip install triton "
            "(or pip install 'nbcompile[triton]'); it installs beside the CPU build of torch."
        )


def preview_options(mode: str | None, options: dict[str, Any]) -> dict[str, Any]:
    """Inductor options for a preview compile (a mode's settings folded in, since
    ``torch.compile`` takes ``mode=`` or ``options=``, not both)."""
    torch_compat.require_cpu_backend()
    merged: dict[str, Any] = torch_compat.mode_options(mode) if mode else {}
    merged.update(options)
    merged["cpu_backend"] = "triton"
    return merged


def magic_options(mode: str | None, options: dict[str, Any], backend: str) -> dict[str, Any]:
    """``--codegen triton``: the Inductor options, or a ``TritonPreviewError`` saying why not."""
    if backend != "inductor":
        raise TritonPreviewError(
            f"--codegen triton previews Inductor's Triton code; it needs --backend inductor "
            f"(got {backend!r})."
        )
    require_triton()
    return preview_options(mode, options)


def driver_active() -> bool:
    """Whether Triton has an active driver here (a GPU): then nothing is patched."""
    global _driver_active
    if _driver_active is None:
        try:
            torch_compat.triton_utils().triton_hash_with_backend()
            _driver_active = True
        except Exception:
            _driver_active = False
    return _driver_active


def _preview_hash() -> str:
    return PREVIEW_HASH


@contextlib.contextmanager
def preview_scope() -> Iterator[None]:
    """Patch what Triton codegen needs on a CPU-only machine; restore it on exit.

    Re-entrant (a preview target calling another): only the outermost scope patches.
    """
    global _depth
    if driver_active():
        yield
        return
    tu: Any = torch_compat.triton_utils()  # torch.utils._triton: attributes set below
    with _lock:
        if _depth == 0:
            _saved["hash"] = tu.triton_hash_with_backend
            _saved["env"] = os.environ.get("TRITON_INTERPRET")
            tu.triton_hash_with_backend = _preview_hash
            os.environ["TRITON_INTERPRET"] = "1"
            _saved["lang"] = _language_state()
            _saved["jit"] = _interpret_jit_functions()
        _depth += 1
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Could not find an active CPU backend")
            yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                for owner, attr, original in reversed(_saved.pop("jit")):
                    setattr(owner, attr, original)
                _restore_language(_saved.pop("lang"))
                tu.triton_hash_with_backend = _saved.pop("hash")
                env = _saved.pop("env")
                if env is None:
                    os.environ.pop("TRITON_INTERPRET", None)
                else:
                    os.environ["TRITON_INTERPRET"] = env


def _language_state() -> list[tuple[Any, dict[str, Any]]]:
    """What Triton's interpreter patches in ``triton.language`` as it runs a kernel (its
    builtins, ``tl.tensor``'s members, ``tl.dtype.to_ir``, ``tl.reduce``...), copied.
    Triton 3.5's interpreter leaves those patches in place; later versions undo them."""
    try:
        import triton.language as tl
    except ImportError:
        return []
    core = getattr(tl, "core", None)
    owners = [tl, core, getattr(tl, "math", None), getattr(tl, "tensor", None),
              getattr(tl, "dtype", None), getattr(core, "tensor_descriptor_base", None)]
    return [(owner, dict(vars(owner))) for owner in owners if owner is not None]


def _restore_language(state: list[tuple[Any, dict[str, Any]]]) -> None:
    """Put back every name ``_language_state`` copied; names added to a class since are
    removed (a module keeps its new names: submodules imported meanwhile)."""
    for owner, before in state:
        now = vars(owner)
        for name, value in before.items():
            if now.get(name, _ABSENT) is not value:
                with contextlib.suppress(AttributeError, TypeError):
                    setattr(owner, name, value)
        if isinstance(owner, type):
            for name in [n for n in now if n not in before]:
                with contextlib.suppress(AttributeError, TypeError):
                    delattr(owner, name)


_ABSENT = object()

#: Modules whose ``@triton.jit`` helpers generated kernels call (Triton's standard
#: library, Inductor's helpers).
_JIT_MODULE_PREFIXES = ("triton.language", "torch._inductor.runtime.triton_helpers")
_interpreted: dict[int, Any] = {}


def _interpret_jit_functions() -> list[tuple[Any, str, Any]]:
    """Swap ``JITFunction`` helpers for interpreted ones; returns what to put back.

    ``@triton.jit`` decides at decoration time: helpers imported before
    ``TRITON_INTERPRET=1`` are compiled-mode ``JITFunction``s, which an interpreted
    kernel cannot call. Within the preview scope they are replaced (module attributes
    and ``tl.tensor`` members) by ``InterpretedFunction``s of the same Python code.
    """
    import sys

    try:
        from triton.runtime.interpreter import InterpretedFunction
        from triton.runtime.jit import JITFunction
    except ImportError:
        return []
    owners: list[Any] = [m for name, m in list(sys.modules.items())
                         if m is not None and name.startswith(_JIT_MODULE_PREFIXES)]
    try:
        import triton.language as tl

        owners.append(tl.tensor)
    except ImportError:
        pass
    swapped: list[tuple[Any, str, Any]] = []
    for owner in owners:
        for attr, value in list(vars(owner).items()):
            if not isinstance(value, JITFunction):
                continue
            replacement = _interpreted.get(id(value))
            if replacement is None:
                replacement = InterpretedFunction(value.fn)
                _interpreted[id(value)] = replacement
            try:
                setattr(owner, attr, replacement)
            except (AttributeError, TypeError):
                continue
            swapped.append((owner, attr, value))
    return swapped


def _chain(error: BaseException) -> list[BaseException]:
    """``error`` and what caused it (the interpreter wraps the kernel's own error)."""
    found: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and len(found) < 10 and current not in found:
        found.append(current)
        current = current.__cause__ or current.__context__
    return found


def _kernel_frames(error: BaseException) -> Iterator[types.FrameType]:
    for err in _chain(error):
        for frame, _ in traceback.walk_tb(err.__traceback__):
            yield frame


def _none_from_libdevice(error: BaseException) -> bool:
    """Triton's interpreter computes libdevice math as None, and the kernel fails at the
    next use: a kernel frame holding a None temporary assigned from ``libdevice.``."""
    for frame in _kernel_frames(error):
        if not _KERNEL_NAME.fullmatch(frame.f_code.co_name):
            continue
        nones = {k for k, v in frame.f_locals.items() if v is None}
        if not nones:
            continue
        try:
            lines, _ = inspect.getsourcelines(frame.f_code)  # Inductor's generated kernel
        except (OSError, TypeError):
            continue
        for line in lines:
            target, eq, value = line.strip().partition(" = ")
            if eq and target in nones and "libdevice." in value:
                return True
    return False


def _failed_kernels(error: BaseException, generated: list[str]) -> list[str]:
    names: list[str] = []
    for frame in _kernel_frames(error):
        for candidate in (frame.f_code.co_name, str(frame.f_locals.get("kernel_name", ""))):
            if _KERNEL_NAME.fullmatch(candidate or "") and candidate not in names:
                names.append(candidate)
    for m in _KERNEL_NAME.finditer(str(error)):
        if m.group(0) not in names:
            names.append(m.group(0))
    return names or generated


def explain_failure(name: str, error: BaseException, generated: list[str]) -> str:
    """A clear message for a preview call that failed."""
    cause = f"{type(error).__name__}: {str(error).strip().splitlines()[0] if str(error) else ''}"
    if not generated:
        return (
            f"Triton preview of {name}: Inductor could not generate Triton code for it on "
            f"this CPU ({cause}). Re-run the cell without --codegen triton to compile it "
            "for the CPU as usual."
        )
    failed = _failed_kernels(error, generated)
    return (
        f"Triton preview of {name}: the Triton code was generated "
        f"({', '.join(generated)}; see nbcompile.report({name}).kernels or .annotate()), "
        f"but kernel {', '.join(failed)} cannot run on this CPU-only machine in Triton's "
        f"interpreter ({cause}). {_likely_cause(error, failed)}The preview is for reading "
        "the code; re-run the cell without --codegen triton to run the function."
    )


def fallback_note(name: str, message: str) -> str:
    """The target's note when a call was computed eagerly instead (``--codegen triton``)."""
    detail = message.split(": ", 1)[-1].split(" The preview is for reading")[0]
    return (
        f"Triton preview: {name} was computed eagerly (PyTorch without compiling), so the "
        f"result is right and the notebook runs on. {detail} The Triton kernels stay in "
        f"the report; --codegen {INTERPRET} runs them in the interpreter and raises instead."
    )


def _likely_cause(error: BaseException, failed: list[str]) -> str:
    """Name the usual culprit when we can tell: libdevice math, or a reduction."""
    text = str(error)
    if "libdevice" in text or _none_from_libdevice(error):
        return ("Math functions that Triton takes from libdevice (tanh, exp, erf, ...) "
                "have no implementation in the interpreter. ")
    if any(k.startswith(("triton_red_", "triton_per_")) for k in failed):
        return "Reduction kernels often cannot run in the interpreter. "
    return ""


def wrap(call: Callable[..., Any], name: str,
         kernels: Callable[[], list[str]] = lambda: [],
         on_failure: Callable[[str], None] = lambda message: None,
         eager: Callable[..., Any] | None = None) -> Callable[..., Any]:
    """``call`` running inside ``preview_scope()``. A Triton failure is computed by
    ``eager`` instead when given, else it becomes ``TritonPreviewError``; either way
    ``on_failure`` hears the explanation."""

    @functools.wraps(call)
    def preview_call(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True  # noqa: F841
        with preview_scope():
            try:
                return call(*args, **kwargs)
            except Exception as e:
                if not _from_triton(e):
                    raise
                message = explain_failure(name, e, kernels())
                on_failure(message)
                if eager is None:
                    raise TritonPreviewError(message) from e
        return eager(*args, **kwargs)  # outside the scope: nothing patched

    preview_call.__nbcompile_preview__ = PREVIEW  # type: ignore[attr-defined]
    return preview_call


def _from_triton(error: BaseException) -> bool:
    seen: set[int] = set()
    e: BaseException | None = error
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        module = type(e).__module__ or ""
        if module.startswith("triton") or "triton" in str(e).lower():
            return True
        for frame, _ in traceback.walk_tb(e.__traceback__):
            filename = frame.f_code.co_filename.replace("\\", "/")
            if "/triton/" in filename or _KERNEL_NAME.search(frame.f_code.co_name):
                return True
        e = e.__cause__ or e.__context__
    return False


def _eager_module(module: Any) -> Callable[..., Any]:
    """The module's uncompiled call, without a strong reference back to it."""
    ref = weakref.ref(module)

    def eager_call(*args: Any, **kwargs: Any) -> Any:
        live = ref()
        if live is None:
            raise ReferenceError("the module of this Triton preview no longer exists")
        return torch_compat.call_impl(live)(*args, **kwargs)

    return eager_call


def apply(target: Target, interpret: bool = False) -> None:
    """Make ``target`` (a ``Target`` compiled with ``preview_options``) a preview target:
    its calls run in ``preview_scope()``, and its record says it is a preview.

    A call whose kernels Triton's interpreter cannot run is computed eagerly (and a note
    says so), unless ``interpret`` (``--codegen triton-interpret``): then it raises
    ``TritonPreviewError``.
    """
    target.preview = PREVIEW
    if PREVIEW_NOTE not in target.notes:
        target.notes.append(PREVIEW_NOTE)

    def generated() -> list[str]:
        return [k.name for c in target.compiles for k in c.kernels
                if k.language == "triton" and k.kind == "kernel"]

    def failed(message: str) -> None:
        if interpret:
            note = "Triton preview: " + message.split(": ", 1)[-1]
        else:
            note = fallback_note(target.name, message)
        if note not in target.notes:
            target.notes.append(note)

    if getattr(target.options, "disable", False):
        return
    if target.compiled_module is not None:
        inner = target.compiled_module
        if (current := torch_compat.compiled_call_impl(inner)) is not None:
            torch_compat.set_compiled_call_impl(inner, wrap(
                current, target.name, generated, failed,
                None if interpret else _eager_module(inner)))
    else:
        eager = None if interpret else torch_compat.orig_callable(target.original)
        wrapped = wrap(target.bound, target.name, generated, failed, eager)
        target.keep(wrapped)  # held until the magic binds it to the user's name
        target.bound = wrapped
