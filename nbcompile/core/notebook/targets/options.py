"""``torch.compile`` options: one validated value object, with torch's own rules."""

from __future__ import annotations

import ast
import difflib
from dataclasses import asdict, dataclass, field
from typing import Any, get_origin

from ... import torch_compat

MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


class OptionError(ValueError):
    """An option the user gave is not valid; the message says which and what is allowed."""


@dataclass(frozen=True)
class CompileOptions:
    """The keyword arguments of ``torch.compile``, validated."""

    mode: str | None = None
    fullgraph: bool = False
    dynamic: bool | None = None
    backend: str = "inductor"
    options: dict[str, Any] = field(default_factory=dict)
    disable: bool = False

    def __post_init__(self) -> None:
        if self.mode is not None and self.mode not in MODES:
            raise OptionError(
                f"--mode {self.mode!r} is not a torch.compile mode; choose one of: "
                + ", ".join(MODES)
            )
        validate_backend(self.backend)
        if self.mode is not None and self.options:
            raise OptionError(
                "--mode and --options cannot be used together: torch.compile accepts "
                "either mode= or options=, not both. Drop --mode and put the mode's "
                "settings in --options (see torch._inductor.list_mode_options(mode))."
            )
        if self.options and self.backend == "inductor":
            validate_inductor_options(self.options)

    def torch_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``torch.compile`` / ``nn.Module.compile``."""
        kwargs: dict[str, Any] = {
            "fullgraph": self.fullgraph,
            "dynamic": self.dynamic,
            "backend": self.backend,
            "disable": self.disable,
        }
        if self.mode is not None:
            kwargs["mode"] = self.mode
        if self.options:
            kwargs["options"] = dict(self.options)
        return kwargs

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def validate_backend(name: str) -> None:
    """Raise ``OptionError`` unless ``name`` is a registered Dynamo backend."""
    known = torch_compat.list_backends()
    if name not in known:
        close = difflib.get_close_matches(name, known, n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise OptionError(
            f"--backend {name!r} is not a registered torch.compile backend.{hint} "
            f"Available: {', '.join(sorted(known))}"
        )


def validate_inductor_options(options: dict[str, Any]) -> None:
    """Raise ``OptionError`` for keys Inductor does not know or values of the wrong type.

    The type check is the one ``torch.compile`` applies at the first call (plain types
    only; generic ones such as ``Optional[int]`` are not checked, as in torch).
    """
    known = torch_compat.inductor_option_names()
    if known is None:  # a torch that does not list them: torch.compile checks at first call
        return
    for key, value in options.items():
        if key not in known:
            close = difflib.get_close_matches(key, known, n=3)
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            raise OptionError(
                f"--options {key}: not an Inductor option.{hint} "
                "List them with torch._inductor.list_options()."
            )
        expected = torch_compat.inductor_option_type(key.replace("-", "_"))
        if (get_origin(expected) is None and isinstance(expected, type)
                and not isinstance(value, expected)):
            raise OptionError(
                f"--options {key}={value!r}: Inductor's {key} takes a {expected.__name__}"
                f"{_EXAMPLES.get(expected, '')}, not {type(value).__name__}."
            )


_EXAMPLES: dict[type, str] = {
    bool: " (True or False)",
    float: " (e.g. 1.0)",
    int: " (e.g. 4)",
    str: " (a quoted string, e.g. 'x')",
}


def parse_option_pairs(pairs: list[str]) -> dict[str, Any]:
    """Parse ``["key=value", ...]``; values are Python literals, else plain strings."""
    parsed: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise OptionError(
                f"--options {pair!r}: expected key=value, e.g. --options max_autotune=True"
            )
        raw = raw.strip()
        if raw == "":
            raise OptionError(f"--options {key}: missing value after '='")
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            if not raw.replace("_", "").replace("-", "").replace(".", "").isalnum():
                raise OptionError(
                    f"--options {key}={raw}: the value is not a Python literal "
                    "(use True/False, numbers, 'strings', lists or dicts)"
                ) from None
            value = raw
        if key in parsed and parsed[key] != value:
            raise OptionError(
                f"--options {key} is given twice ({parsed[key]!r}, then {value!r}); give it once"
            )
        parsed[key] = value
    return parsed
