"""``%nbcompile cache [--dir D | --clear | --info]`` (the persistent compile cache),
``%nbcompile cache save [PATH]`` / ``load [PATH] [--trust]`` (compiled artifacts carried
across kernels and machines), ``%nbcompile open PATH [--source-root DIR]`` (show a
TORCH_TRACE run) and ``%nbcompile trace DIR`` / ``trace off`` (write one from the kernel)."""

from __future__ import annotations

from argparse import Namespace

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display

from ..api import open_trace
from ..core.compiletime import artifacts
from ..core.logs.run import TraceInterrupted
from ..core.notebook import cache, trace_dir
from ..display import budget, live
from ..display.cache_info import info_text
from ..display.units import format_bytes
from .arguments import unquoted
from .stance import set_for_what_follows, stance_name


@magics_class
class AdminMagics(Magics):
    """The ``%nbcompile`` line magic (administration)."""

    @magic_arguments()
    @argument("command", choices=["cache", "open", "config", "stance", "trace"],
              help="cache: manage the compile cache; open PATH: show a TORCH_TRACE run; "
                   "config: settings (--output-budget, --inspect); stance NAME: the "
                   "torch.compiler.set_stance stance for the cells that follow; "
                   "trace DIR | off: write torch's structured trace (TORCH_TRACE format) "
                   "of what runs until `%%nbcompile trace off` into DIR.")
    @argument("path", nargs="?", default=None,
              help="open: a TORCH_TRACE log file or directory (quote paths with spaces); "
                   "trace: the directory to write into, or off; "
                   "cache: save or load; "
                   "stance: any stance torch.compiler.set_stance accepts, e.g. "
                   "fail_on_recompile | eager_on_recompile | force_eager | default.")
    @argument("file", nargs="?", default=None,
              help="cache save|load: the artifacts file (default: this notebook's, in "
                   "the per-user cache directory).")
    @argument("--trust", action="store_true",
              help="cache load: load a file given by path, or one that is not your own "
                   "private file (compiled artifacts are pickles: loading runs code).")
    @argument("--dir", default=None, metavar="D",
              help="Use D (created 0700; must be yours and not group/world-writable) "
                   "for Inductor's on-disk caches from now on.")
    @argument("--clear", action="store_true",
              help="Delete the cache's contents (only a directory nbcompile created).")
    @argument("--info", action="store_true",
              help="Show where the cache is, its size and this kernel's hits/misses "
                   "(the default).")
    @argument("--source-root", default=None, metavar="DIR",
              help="open: read source lines the log did not print from regular files "
                   "under DIR (by default no local file but the logs is read).")
    @argument("--output-budget", default=None, metavar="SIZE",
              help="config: total size of each published output (summary, displayed "
                   "report), e.g. 512K or 1M (default 256K); what does not fit stays in "
                   "the kernel, with a mark saying how to get it.")
    @argument("--inspect", choices=["on", "off"], default=None, type=str.lower,
              help="config: on: every %%%%compile summary from now on is shown by the "
                   "Compile inspector inside the cell (a widget, for front ends where the "
                   "sidebar cannot be installed: VS Code, Colab); off: the usual summary "
                   "(the default).")
    @line_magic("nbcompile")
    def nbcompile(self, line: str) -> None:
        """Manage nbcompile: ``%nbcompile cache [--dir D | --clear | --info]``, show a
        TORCH_TRACE run (a log file or a directory of per-rank logs): ``%nbcompile open PATH
        [--source-root DIR]``, change settings: ``%nbcompile config [--output-budget SIZE]
        [--inspect on|off]``,
        or set the ``torch.compiler.set_stance`` stance for the cells that follow:
        ``%nbcompile stance NAME``, any stance torch accepts (``fail_on_recompile``,
        ``eager_on_recompile``, ``force_eager``, ``eager_then_compile``, ``default``...),
        or write torch's structured trace (the ``TORCH_TRACE`` format tlparse reads) of what
        runs next into a directory: ``%nbcompile trace DIR`` ... ``%nbcompile trace off``.
        Ctrl-C during ``open`` shows the files read so far, marked interrupted.

        nbcompile keeps Inductor's compile caches (FX graph cache, AOTAutograd cache,
        compiled kernels) in a persistent per-user directory (default
        ~/.cache/nbcompile/inductor), so the first compile after a kernel restart is
        served warm. A TORCHINDUCTOR_CACHE_DIR you set yourself is respected.
        """
        try:
            args = parse_argstring(self.nbcompile, line)
        except UsageError as e:
            raise UsageError(f"%nbcompile: {e}") from None
        if args.output_budget is not None and args.command != "config":
            raise UsageError(f"%nbcompile {args.command}: --output-budget belongs to "
                             "%nbcompile config --output-budget SIZE")
        if args.inspect is not None and args.command != "config":
            raise UsageError(f"%nbcompile {args.command}: --inspect belongs to "
                             "%nbcompile config --inspect on|off")
        if args.source_root is not None and args.command != "open":
            raise UsageError(f"%nbcompile {args.command}: --source-root belongs to "
                             "%nbcompile open PATH --source-root DIR")
        if args.command == "config":
            _config(args)
            return
        if args.command == "stance":
            if args.dir is not None or args.clear or args.info:
                raise UsageError("%nbcompile stance: only a stance name, e.g. "
                                 "%nbcompile stance fail_on_recompile")
            set_for_what_follows(stance_name(args.path or "", "%nbcompile stance"))
            return
        if args.command == "open":
            self._open(args)
            return
        if args.command == "trace":
            _trace(args)
            return
        if args.path in ("save", "load"):
            _artifacts(args)
            return
        if args.trust or args.file is not None:
            raise UsageError("%nbcompile cache: --trust and a file are for "
                             "%nbcompile cache save|load [PATH]")
        if args.path is not None:
            raise UsageError(f"%nbcompile cache: unexpected argument {args.path!r} "
                             "(use %nbcompile cache save|load [PATH], or "
                             "%nbcompile open PATH)")
        if sum([args.dir is not None, args.clear, args.info]) > 1:
            raise UsageError("%nbcompile cache: use one of --dir, --clear, --info")
        try:
            if args.dir is not None:
                directory = unquoted(args.dir)
                if not directory:
                    raise UsageError("%nbcompile cache --dir: give a directory")
                path = cache.use_dir(directory, source="magic")
                print(f"nbcompile: compile cache is now {path}")
            elif args.clear:
                freed = cache.clear()
                print(f"nbcompile: cleared {cache.current_dir()} ({format_bytes(freed)} freed); "
                      "functions compiled in this kernel keep their code, new compiles "
                      "start cold.")
            else:
                print(info_text(cache.info()))
        except (cache.CacheDirError, OSError) as e:
            raise UsageError(f"%nbcompile cache: {e}") from None

    @staticmethod
    def _open(args: object) -> None:
        path = unquoted(getattr(args, "path", None) or "")
        if getattr(args, "dir", None) is not None or getattr(args, "clear", False) \
                or getattr(args, "info", False):
            raise UsageError("%nbcompile open: --dir, --clear and --info are for "
                             "%nbcompile cache; use: %nbcompile open PATH")
        if not path:
            raise UsageError("%nbcompile open: give a TORCH_TRACE log file or directory, "
                             "e.g. %nbcompile open /tmp/trace_dir")
        root = getattr(args, "source_root", None)
        root = unquoted(root) if root is not None else None
        if root == "":
            raise UsageError("%nbcompile open --source-root: give a directory")
        try:
            report = open_trace(path, source_root=root)
        except (FileNotFoundError, NotADirectoryError, PermissionError) as e:
            raise UsageError(f"%nbcompile open: {e}") from None
        except TraceInterrupted as e:  # Ctrl-C: the files read whole, marked interrupted
            report = e.partial
        display(report)

def _trace(args: Namespace) -> None:
    """``%nbcompile trace DIR`` / ``%nbcompile trace off``: torch's structured trace of what
    runs in between, written into DIR by torch's own handler."""
    if args.dir is not None or args.clear or args.info or args.trust \
            or args.file is not None:
        raise UsageError("%nbcompile trace: only a directory or off, e.g. "
                         "%nbcompile trace /tmp/my_trace")
    where = unquoted(args.path or "")
    if not where:
        raise UsageError("%nbcompile trace: give a directory to write torch's structured "
                         "trace into, or off, e.g. %nbcompile trace /tmp/my_trace")
    if where == "off":
        stopped = trace_dir.stop()
        print(f"nbcompile: {stopped.note}" if stopped is not None
              else "nbcompile: no trace is being written")
        return
    try:
        started = trace_dir.start(where)
    except trace_dir.TraceDirError as e:
        raise UsageError(f"%nbcompile trace: {e}") from None
    print(f"nbcompile: {started.note}; %nbcompile trace off stops it")


def _artifacts(args: Namespace) -> None:
    """``%nbcompile cache save [PATH]`` / ``load [PATH] [--trust]``: this kernel's compiled
    artifacts to a file, or a file's into this kernel's caches (never implicitly)."""
    if args.dir is not None or args.clear or args.info:
        raise UsageError(f"%nbcompile cache {args.path}: --dir, --clear and --info are for "
                         "%nbcompile cache alone")
    if args.path == "save" and args.trust:
        raise UsageError("%nbcompile cache save: --trust is for load")
    file = unquoted(args.file) if args.file is not None else None
    try:
        if args.path == "save":
            done = artifacts.save(file or None)
        else:
            done = artifacts.load(file or None, trust=args.trust)
    except (artifacts.ArtifactError, cache.CacheDirError, OSError) as e:
        raise UsageError(f"%nbcompile cache {args.path}: {e}") from None
    print(f"nbcompile: {done.note}")


def _config(args: Namespace) -> None:
    """``%nbcompile config [--output-budget SIZE] [--inspect on|off]``: set, then show,
    the settings."""
    if args.dir is not None or args.clear or args.info or args.path is not None:
        raise UsageError("%nbcompile config: only --output-budget SIZE and --inspect on|off; "
                         "--dir, --clear and --info belong to %nbcompile cache, a path to "
                         "%nbcompile open")
    if args.output_budget is not None:
        try:
            budget.set_output_budget(args.output_budget)
        except ValueError as e:
            raise UsageError(f"%nbcompile config --output-budget: {e}") from None
    if args.inspect is not None:
        live.set_inspect_every_cell(args.inspect == "on")
    print(f"nbcompile: output budget {format_bytes(budget.output_budget())} per output")
    print("nbcompile: %%compile summaries shown by the inspector in the cell: "
          + ("on" if live.inspect_every_cell() else "off (%%compile --inspect per cell)"))
