"""What a ``%%compile`` cell asked for, as one value, and compiling the cell's targets with it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ... import torch_compat
from ...records import CellRef
from .. import triton_preview
from .compiling import compile_target
from .options import CompileOptions, OptionError, parse_option_pairs
from .target_state import Target


@dataclass(frozen=True)
class CompileRequest:
    """Everything a ``%%compile`` cell asked for: the ``torch.compile`` options and what
    nbcompile does around the compiled targets."""

    options: CompileOptions = field(default_factory=CompileOptions)
    only: tuple[str, ...] | None = None  #: --only: the names to compile (None: all)
    annotate: bool = False  #: --annotate: the annotated source follows the summary
    codegen: str = "default"  #: --codegen: default, triton or triton-interpret
    torch_logs: bool = False  #: --torch-logs: torch's log records stay on stderr

    def __post_init__(self) -> None:
        if self.codegen not in triton_preview.CODEGEN_CHOICES:
            raise OptionError(f"--codegen {self.codegen!r}: choose one of "
                              + ", ".join(triton_preview.CODEGEN_CHOICES))

    def prepare(self, target: Target) -> None:
        """What the request asks of a compiled target beyond ``torch.compile``: where its
        torch log records go, and the Triton preview (``--codegen``)."""
        target.show_torch_logs = self.torch_logs
        if self.codegen != "default":
            triton_preview.apply(target, interpret=self.codegen == triton_preview.INTERPRET)


def compile_options(*, mode: str | None, fullgraph: bool, dynamic: bool | None, backend: str,
                    option_pairs: list[str], disable: bool, codegen: str = "default"
                    ) -> CompileOptions:
    """The validated ``torch.compile`` options of a cell's arguments (``--codegen triton``
    folds the mode into Inductor options); ``OptionError`` or ``TritonPreviewError`` if
    they are not valid."""
    inductor_options = parse_option_pairs(option_pairs)
    if codegen != "default":
        mode, inductor_options = None, triton_preview.magic_options(
            mode, inductor_options, backend)
    return CompileOptions(mode=mode, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                          options=inductor_options, disable=disable)


class CompileFailed(Exception):
    """Target ``name`` could not be compiled (``error``); those before it were undone."""

    def __init__(self, name: str, error: Exception) -> None:
        super().__init__(f"could not compile {name}: {error}")
        self.name = name
        self.error = error


def compile_all(names: list[str], ns: dict[str, Any], request: CompileRequest,
                cell: CellRef) -> list[Target]:
    """Compile every target ``ns[name]`` as ``request`` asks, or none: a failure undoes the
    in-place module compiles and raises ``CompileFailed``."""
    done: list[Target] = []
    try:
        for name in names:
            done.append(compile_target(name, ns[name], request.options, cell))
    except Exception as e:
        for target in done:
            if target.compiled_module is not None:
                torch_compat.set_compiled_call_impl(target.compiled_module, None)
        raise CompileFailed(names[len(done)], e) from e
    return done
