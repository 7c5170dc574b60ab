"""IPython glue: argument parsing and orchestration of ``nbcompile.core``."""

from __future__ import annotations

from typing import Any

from ..core.compiletime import earlier as earlier_keys
from ..core.compiletime import history as compile_history
from ..core.compiletime import shell_names as compile_shell_names
from ..core.notebook import cache, trace_dir
from ..core.notebook.capture.session import get_session
from ..core.notebook.capture.torch_logs import TorchLogRouting
from ..core.notebook.cells import cell_names
from ..core.trace import log_taps
from . import cell_hooks, hazard, inspector_comm, stance
from .admin import AdminMagics
from .cell_hooks import CellHook
from .compare import CompareMagics
from .compile import CompileMagics
from .compile_time import CompileTimeMagics
from .diagnose import DiagnoseMagics
from .errors import install_error_display, uninstall_error_display
from .profile import ProfileMagics
from .repro import ReproMagics
from .stance import StanceMagics
from .suggest import SuggestMagics

#: torch's compile log records routed into records while loaded (see core.notebook.torch_logs).
_torch_logs: TorchLogRouting | None = None

#: Magics classes registered by ``%load_ext nbcompile``.
MAGICS: list[type] = [CompileMagics, CompareMagics, SuggestMagics, AdminMagics, ProfileMagics,
                      DiagnoseMagics, StanceMagics, CompileTimeMagics, ReproMagics]


def _save_cache_keys(shell: Any = None, result: Any = None) -> None:
    """After a cell: the cache keys of the compiles heard since the last save, written for
    a later kernel of this notebook (nothing heard: nothing parsed or written)."""
    keys = earlier_keys.current()
    if keys is None:
        return
    try:
        compile_history.save_cache_keys(keys)
    except Exception as e:  # noqa: BLE001 - saving must never break a cell
        keys.problem = f"the cache keys of this kernel's compiles were not saved: {e!r}"


def shell_names(shell: Any) -> dict[str, Any]:
    """What IPython put in the user's namespace (``user_ns_hidden``: ``open``, ``exit``,
    ``get_ipython``, ``In``, ``Out``...; a name the user bound again is the user's) and in
    builtins (``display``, the builtin trap's ``get_ipython``), name -> the value it put."""
    import builtins

    found = dict(getattr(shell, "user_ns_hidden", {}))  # the values IPython put there
    trap = getattr(getattr(shell, "builtin_trap", None), "auto_builtins", {}) or {}
    for name in (*trap, "display"):
        if hasattr(builtins, name):
            found.setdefault(name, getattr(builtins, name))
    return found


def _refresh_torch_logs(shell: Any = None, info: Any = None) -> None:
    """Before a cell: every tap on torch's loggers back as it should be (``set_logs``
    resets them; heard as it runs, and again here on a torch that cannot be heard)."""
    log_taps.rearm_all()


#: What runs around each cell, in order (registered in one place: ``cell_hooks``).
CELL_HOOKS = [
    CellHook("pre_run_cell", "torch_log_filter", _refresh_torch_logs),
    CellHook("pre_run_cell", "cell_history", stance.before_cell),
    CellHook("pre_run_cell", "cudagraph_hazards", hazard.before_cell),
    CellHook("post_run_cell", "cell_history", stance.after_cell),
    CellHook("post_run_cell", "cudagraph_hazards", hazard.after_cell),
    CellHook("post_run_cell", "cache_keys", _save_cache_keys),
]


def load_ipython_extension(shell: Any) -> None:
    for magics in MAGICS:
        shell.register_magics(magics)
    cache.setup_default()  # persistent per-user compile cache, unless the user chose one
    compile_history.install()  # cache outcomes of this kernel's compiles, read on demand
    earlier_keys.install()  # their cache keys, kept for later kernels (saved after cells)
    session = get_session()
    session.start()
    # a cell's code filename -> its execution count, as IPython keeps it
    cell_names.use(lambda filename: getattr(shell.compile, "_filename_map", {}).get(filename))
    # the names IPython put in the namespace and builtins, for %compile_time's fresh process
    compile_shell_names.use(lambda: shell_names(shell))
    global _torch_logs
    if _torch_logs is None:
        _torch_logs = TorchLogRouting(session.owner_of)
        _torch_logs.install()
    install_error_display(shell)
    # calls are counted under whatever stance torch is in when they start, whoever set it
    session.eager.start()
    cell_hooks.install(shell, CELL_HOOKS)
    inspector_comm.register()


def unload_ipython_extension(shell: Any) -> None:
    global _torch_logs
    get_session().stop()
    cell_hooks.uninstall(shell)
    if earlier_keys.current() is not None:
        _save_cache_keys()
        earlier_keys.uninstall()
    compile_history.uninstall()
    inspector_comm.unregister()
    cell_names.use(None)
    compile_shell_names.use(None)
    if _torch_logs is not None:
        _torch_logs.uninstall()
        _torch_logs = None
    cache.restore()
    trace_dir.stop()  # a trace still being written: its handler off torch's logger
    uninstall_error_display(shell)
    get_session().eager.stop()
    for magics in MAGICS:
        for kind, table in magics.magics.items():
            for name in table:
                shell.magics_manager.magics[kind].pop(name, None)
        shell.magics_manager.registry.pop(magics.__name__, None)
