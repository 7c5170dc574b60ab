"""``%%compile``: run a cell, then compile the functions and modules it defined."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.core.magic import Magics, cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.utils.process import arg_split  # pyright: ignore[reportPrivateImportUsage]

from ..core.notebook import triton_preview
from ..core.notebook.capture.session import get_session
from ..core.notebook.cells import running as cells
from ..core.notebook.targets.options import MODES, OptionError
from ..core.notebook.targets.request import (
    CompileFailed,
    CompileRequest,
    compile_all,
    compile_options,
)
from ..core.records import CellRef
from ..display import live
from ..display.live import LiveSummary
from .arguments import (
    Once,
    OnceBoolean,
    OnceFlag,
    check_repeats,
    join_comma_lists,
    unquoted,
)
from .editor_lines import editor_text
from .errors import CellSyntaxError


@magics_class
class CompileMagics(Magics):
    """The ``%%compile`` cell magic."""

    @property
    def _ip(self) -> InteractiveShell:
        """The shell this magic is registered on (IPython sets it before any call)."""
        assert self.shell is not None
        return self.shell

    @magic_arguments()
    @argument("--mode", choices=MODES, default=None, action=Once, type=unquoted,
              help="torch.compile mode (default: torch's default).")
    @argument("--fullgraph", action=OnceFlag,
              help="Fail on the first graph break instead of splitting the graph.")
    @argument("--dynamic", action=OnceBoolean, default=None,
              help="--dynamic: dynamic shapes from the start; --no-dynamic: always "
                   "specialise. Omitted: torch's automatic detection.")
    @argument("--backend", default="inductor", action=Once, type=unquoted,
              help="Dynamo backend, one of torch._dynamo.list_backends() (default: inductor).")
    @argument("--options", "-o", action="append", default=[], metavar="KEY=VALUE",
              type=unquoted,
              help="An Inductor option, repeatable; values are Python literals "
                   "(e.g. -o max_autotune=True). Not together with --mode.")
    @argument("--disable", action=OnceFlag,
              help="Register the targets but run them eagerly (torch.compile(disable=True)).")
    @argument("--only", default=None, metavar="NAME[,NAME...]", action=Once,
              help="Compile only these names the cell defines.")
    @argument("--annotate", action=OnceFlag,
              help="Show the cell's source annotated line by line (kernel, extern call, "
                   "graph break, Python) in the summary once compiled.")
    @argument("--codegen", choices=triton_preview.CODEGEN_CHOICES, default="default",
              action=Once, type=unquoted,
              help="triton: preview the Triton kernels a GPU would run, on a CPU-only "
                   "machine (needs the triton package); calls run in Triton's interpreter, "
                   "and those it cannot run (libdevice math, many reductions) are computed "
                   "eagerly, said in the summary. triton-interpret: run in the interpreter "
                   "only, and raise TritonPreviewError where it cannot.")
    @argument("--inspect", action=OnceFlag,
              help="Show the summary as the Compile inspector inside the cell (the "
                   "widget of nbcompile.inspect, updated as the targets compile), where "
                   "the front end runs Jupyter widgets; elsewhere the summary shows as "
                   "usual. For every cell: %%nbcompile config --inspect on.")
    @argument("--torch-logs", action=OnceFlag,
              help="Keep torch's own log records about these targets' compiles on stderr, "
                   "as torch prints them (by default they go into the record and the "
                   "summary shows them once, folded). For every target: set "
                   "NBCOMPILE_TORCH_LOGS=show before loading nbcompile.")
    @cell_magic("compile")
    def compile(self, line: str, cell: str) -> Any:
        """Run the cell, then compile the functions and nn.Modules it defined.

        Functions are rebound to ``torch.compile(fn, ...)``; modules are compiled in
        place (``module.compile(...)``: same object, same ``state_dict`` keys); a
        DDP/FSDP wrapper has its inner module compiled. Compilation happens at each
        target's first call; the summary below the cell updates when it does.
        Use ``nbcompile.report(obj)`` for everything captured about a target.
        """
        __tracebackhide__ = True  # noqa: F841 - IPython hides this frame in tracebacks
        # "--only a, b": a comma list split by a space is re-joined, not half dropped
        args = parse_argstring(self.compile, " ".join(join_comma_lists(arg_split(line))))
        check_repeats(args, "%%compile")
        request = _request(args)
        only = request.only
        text = editor_text(self._ip, "compile", line, cell)  # line N is the editor's N
        if only:
            missing = [n for n in only if n not in cells.bound_names(text)]
            if missing:
                raise UsageError(
                    f"--only {','.join(missing)}: the cell does not define "
                    f"{' or '.join(missing)}; nothing was run."
                )

        ns = self._ip.user_ns
        before = cells.snapshot(ns)
        number = self._cell_number()
        filename = self._ip.compile.cache(text, number, raw_code=text)
        result = self._run(text, filename)
        names = cells.defined_names(before, ns, text)
        module_name = ns.get("__name__", "__main__")
        if only:
            not_targets = [n for n in only if not cells.find_targets([n], ns, module_name)[0]]
            if not_targets:
                kinds = ", ".join(_what(n, ns.get(n)) for n in not_targets)
                raise UsageError(
                    f"--only {','.join(not_targets)}: not a function or nn.Module defined "
                    f"by this cell ({kinds}); the cell ran, nothing was compiled."
                )
            names = list(only)
        target_names, notes = cells.find_targets(names, ns, module_name)
        elsewhere = cells.module_functions(names, ns, module_name)
        usage = cells.usage_notes(target_names, ns)
        users = cells.module_users(target_names, ns)
        cell_ref = self._cell_ref(filename, number)
        try:
            targets = compile_all(target_names, ns, request, cell_ref)
        except CompileFailed as e:
            raise UsageError(str(e)) from e.error
        if targets and (notes or elsewhere):
            targets[0].notes.extend([*notes, *elsewhere])
        by_name = {t.name: t for t in targets}
        for target in targets:
            if note := usage.get(target.name):
                target.notes.append(note)
                target.used_by = [by_name[u] for u in users.get(target.name, ()) if u in by_name]
        for target in targets:
            request.prepare(target)
        session = get_session()
        for name, target in zip(target_names, targets, strict=True):
            ns[name] = target.bound
            session.register(target)
            target.release()  # the user's names hold the objects; nbcompile holds them weakly
        LiveSummary(session, targets, cell_ref.to_dict(), annotate=request.annotate,
                    inspect=args.inspect or live.inspect_every_cell(),
                    empty_text=None if targets or not elsewhere else
                    "nbcompile: nothing to compile in this cell. " + " ".join(elsewhere))
        return result

    # --- steps ---
    def _run(self, text: str, filename: str) -> Any:
        """Execute the cell; its last expression's value is returned (and displayed)."""
        __tracebackhide__ = True  # noqa: F841
        shell = self._ip
        try:
            body, tail = cells.split_last_expression(text, filename, shell.compile.flags)
        except SyntaxError as e:  # nothing ran: shown as a plain cell's syntax error
            raise CellSyntaxError.of(e) from None
        exec(body, shell.user_global_ns, shell.user_ns)  # noqa: S102 - the user's cell
        if tail is not None:
            return eval(tail, shell.user_global_ns, shell.user_ns)  # noqa: S307
        return None

    def _cell_number(self) -> int:
        """The running cell's ``In [N]`` number.

        IPython increments ``execution_count`` before it runs a cell, so the number is
        read from the filename IPython gave the running cell's code (a caller frame).
        """
        filename_map = getattr(self._ip.compile, "_filename_map", {})
        number = cells.running_cell(filename_map, sys._getframe(1))
        return number if number is not None else self._ip.execution_count

    def _cell_ref(self, filename: str, number: int) -> CellRef:
        parent: dict[str, Any] = getattr(self.shell, "parent_header", None) or {}
        cell_id = (parent.get("metadata") or {}).get("cellId")
        return CellRef(filename=filename, execution_count=number,
                       cell_id=cell_id)


def _request(args: argparse.Namespace) -> CompileRequest:
    """The cell's request from its parsed arguments; a ``UsageError`` (nothing run) for an
    option that is not valid."""
    try:
        options = compile_options(
            mode=args.mode, fullgraph=args.fullgraph, dynamic=args.dynamic,
            backend=args.backend, option_pairs=args.options, disable=args.disable,
            codegen=args.codegen)
    except (OptionError, triton_preview.TritonPreviewError) as e:
        raise UsageError(str(e)) from None
    only = _only_names(args.only)
    return CompileRequest(options=options, only=tuple(only) if only else None,
                          annotate=args.annotate, codegen=args.codegen,
                          torch_logs=args.torch_logs)


def _only_names(raw: str | None) -> list[str] | None:
    """``--only`` names: quotes around the list or each name are dropped; each must be
    a Python name."""
    if not raw:
        return None
    names = [unquoted(n) for n in unquoted(raw).split(",") if n.strip()]
    bad = [n for n in names if not n.isidentifier()]
    if bad:
        raise UsageError(
            f"--only {raw}: {', '.join(repr(n) for n in bad)} is not a Python name; give "
            "names the cell defines, separated by commas (e.g. --only model,step)."
        )
    return names or None


def _what(name: str, value: Any) -> str:
    """What a name holds, for a refused ``--only``: a function's defining module says why
    it is not the cell's (e.g. one imported, or wrapped by a library's decorator)."""
    if name.startswith("_"):
        return f"{name} starts with an underscore (private names are never compiled)"
    module = getattr(value, "__module__", None)
    if callable(value) and module:
        return (f"{name} is {type(value).__name__} {getattr(value, '__qualname__', name)} "
                f"from module {module}, not code of this cell")
    return f"{name} is {type(value).__name__}"
