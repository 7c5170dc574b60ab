"""Which rows a comparison measures: eager, Inductor modes and Dynamo backends."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..notebook.cudagraphs.outcome import mode_asks_for
from ..torch_compat import list_backends
from .call_options import CallOptionError, CallOptionTypeError

EAGER = "eager"


COMPILE_MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


DEFAULT_MODES = ("eager", "default", "reduce-overhead", "max-autotune-no-cudagraphs")


BACKEND_PREFIX = "backend:"


#: Backends that make no sense as a row (uncompiled eager has its own name; inductor is
#: what the compile modes use).
_HIDDEN_BACKENDS = {"eager", "inductor"}


class CompareError(ValueError):
    """Bad input to ``compare``; the message says what is allowed."""


class ModeError(CompareError, CallOptionError):
    """A ``modes`` item ``compare`` does not know (an option error like the others)."""


class ModeTypeError(ModeError, CallOptionTypeError):
    """A ``modes`` item that is neither a name nor a backend callable."""


@dataclass(frozen=True)
class ModeSpec:
    """One row to measure: the uncompiled baseline, an Inductor mode, or a backend."""

    label: str
    kind: str  # eager | mode | backend
    mode: str | None = None
    backend: Any = "inductor"

    @property
    def cudagraphs(self) -> bool:
        """Whether this row runs as CUDA graphs where it can: an Inductor mode that turns
        them on (``cudagraphs.mode_asks_for``: ``reduce-overhead``, ``max-autotune``)."""
        if self.kind != "mode" or self.mode is None or self.backend != "inductor":
            return False
        return mode_asks_for(self.mode)

    def compile_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"backend": self.backend}
        if self.mode is not None and self.mode != "default":
            kwargs["mode"] = self.mode
        return kwargs


def available_backends() -> list[str]:
    """Dynamo backends usable as a row (besides the Inductor modes)."""
    return [b for b in list_backends() if b not in _HIDDEN_BACKENDS]


def allowed_modes() -> list[str]:
    """Every name ``modes=`` accepts as a string."""
    return [EAGER, *COMPILE_MODES, *available_backends()]


def resolve_modes(modes: Sequence[Any]) -> list[ModeSpec]:
    """Turn ``modes=`` items into rows; eager is always the first row (the baseline).

    Items: ``"eager"``, an Inductor mode name, a Dynamo backend name (``"aot_eager"``,
    or ``"backend:NAME"``), or a backend callable ``(gm, example_inputs) -> callable``.
    """
    if isinstance(modes, (str, bytes)) or callable(modes):
        modes = [modes]
    specs: list[ModeSpec] = [ModeSpec(EAGER, "eager")]
    seen = {EAGER}
    backends: list[str] | None = None
    for item in modes:
        if callable(item):
            label = getattr(item, "__name__", None) or type(item).__name__
            spec = ModeSpec(f"backend:{label}", "backend", None, item)
        elif isinstance(item, str):
            name = item.strip()
            if name == EAGER:
                continue
            if name in COMPILE_MODES:
                spec = ModeSpec(name, "mode", name, "inductor")
            else:
                backend = name.removeprefix(BACKEND_PREFIX)
                if backends is None:
                    backends = list_backends()
                if backend not in backends or (
                    backend in _HIDDEN_BACKENDS and not name.startswith(BACKEND_PREFIX)
                ):
                    raise ModeError(
                        f"unknown mode {item!r}; allowed: {', '.join(allowed_modes())} "
                        "(or backend:NAME for any Dynamo backend, or a backend callable)"
                    )
                spec = ModeSpec(f"backend:{backend}" if name.startswith(BACKEND_PREFIX)
                                else backend, "backend", None, backend)
        else:
            raise ModeTypeError(
                f"modes must be names or backend callables, not {type(item).__name__}"
            )
        if spec.label in seen:
            continue
        seen.add(spec.label)
        specs.append(spec)
    return specs

