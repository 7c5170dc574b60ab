"""``%nbcompile cache [--dir D | --clear | --info]``: the persistent compile cache."""

from __future__ import annotations

from argparse import Namespace

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from ..core import cache
from ..display import budget
from ..display.cache_info import info_text
from ..display.units import format_bytes


@magics_class
class AdminMagics(Magics):
    """The ``%nbcompile`` line magic (administration)."""

    @magic_arguments()
    @argument("command", choices=["cache", "config"],
              help="What to manage: cache (Inductor's compile cache) or config (settings).")
    @argument("--dir", default=None, metavar="D",
              help="Use D (created 0700; must be yours and not group/world-writable) "
                   "for Inductor's on-disk caches from now on.")
    @argument("--clear", action="store_true",
              help="Delete the cache's contents (only a directory nbcompile created).")
    @argument("--info", action="store_true",
              help="Show where the cache is, its size and this kernel's hits/misses "
                   "(the default).")
    @argument("--output-budget", default=None, metavar="SIZE",
              help="config: total size of each published output (summary, displayed "
                   "report), e.g. 512K or 1M (default 256K); what does not fit stays in "
                   "the kernel, with a mark saying how to get it.")
    @line_magic("nbcompile")
    def nbcompile(self, line: str) -> None:
        """Manage nbcompile: ``%nbcompile cache [--dir D | --clear | --info]`` and
        ``%nbcompile config [--output-budget SIZE]``.

        nbcompile keeps Inductor's compile caches (FX graph cache, AOTAutograd cache,
        compiled kernels) in a persistent per-user directory (default
        ~/.cache/nbcompile/inductor), so the first compile after a kernel restart is
        served warm. A TORCHINDUCTOR_CACHE_DIR you set yourself is respected.
        """
        try:
            args = parse_argstring(self.nbcompile, line)
        except UsageError as e:
            raise UsageError(f"%nbcompile: {e}") from None
        if args.command == "config":
            return _config(args)
        if args.output_budget is not None:
            raise UsageError("%nbcompile cache: --output-budget belongs to "
                             "%nbcompile config --output-budget SIZE")
        if sum([args.dir is not None, args.clear, args.info]) > 1:
            raise UsageError("%nbcompile cache: use one of --dir, --clear, --info")
        try:
            if args.dir is not None:
                path = cache.use_dir(args.dir, source="magic")
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


def _config(args: Namespace) -> None:
    """``%nbcompile config [--output-budget SIZE]``: set, then show, the settings."""
    if args.dir is not None or args.clear or args.info:
        raise UsageError("%nbcompile config: --dir, --clear and --info belong to "
                         "%nbcompile cache")
    if args.output_budget is not None:
        try:
            budget.set_output_budget(args.output_budget)
        except ValueError as e:
            raise UsageError(f"%nbcompile config --output-budget: {e}") from None
    print(f"nbcompile: output budget {format_bytes(budget.output_budget())} per output")
