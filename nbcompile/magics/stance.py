"""``%%stance NAME`` (one cell under ``torch.compiler.set_stance``, torch's whole stance
put back after it), the stance set from now on (``%nbcompile stance NAME``), and the cell
events that feed the kernel's cell history (``core/notebook/cells/cell_history.py``): IPython's
``pre_run_cell`` and ``post_run_cell`` give the execution count; core never imports
IPython. Calls are counted under torch's live stance from ``%load_ext`` on
(``EagerCounter``), whoever set it."""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, magics_class

from ..core.notebook.capture.session import get_session
from ..core.notebook.cells import running as cells
from ..core.notebook.cells import stance
from ..core.notebook.cells.cell_history import get_history
from .editor_lines import editor_text
from .errors import CellSyntaxError


def stance_name(line: str, command: str) -> str:
    """The one stance named on a magic's line, checked with torch, else a ``UsageError``
    (torch's stances listed)."""
    words = line.split()
    if len(words) != 1:
        raise UsageError(f"{command}: give one stance name, one of "
                         f"{', '.join(stance.known())}")
    try:
        stance.check(words[0])
    except ValueError as e:
        raise UsageError(f"{command}: {e}") from None
    return words[0]


def set_for_what_follows(name: str) -> None:
    """``%nbcompile stance NAME``: the stance for the cells that follow (the calls that
    run eagerly or are refused are counted, as under any stance torch is in)."""
    stance.set_stance(name)
    print(f"nbcompile: torch.compile stance is now {name} for the cells that follow"
          + (" (calls that run eagerly or are refused are counted)"
             if name in stance.EAGER_STANCES else ""))


@magics_class
class StanceMagics(Magics):
    """The ``%%stance`` cell magic."""

    @cell_magic("stance")
    def stance(self, line: str, cell: str) -> Any:
        """Run this cell under ``torch.compiler.set_stance(NAME)``, then put back exactly
        the stance in force before (its options too, whatever the cell did or raised):
        ``%%stance fail_on_recompile|eager_on_recompile|force_eager|default|...`` (any
        stance torch accepts).

        Under ``fail_on_recompile`` a call that would recompile raises, with the guard that
        failed in words and the cell that changed what it reads; calls that run eagerly
        (``force_eager``, ``eager_on_recompile``) are counted in the targets' statuses.
        """
        __tracebackhide__ = True  # noqa: F841 - IPython hides this frame in tracebacks
        name = stance_name(line, "%%stance")
        shell = self.shell
        if shell is None:
            raise UsageError("%%stance: no IPython shell")
        number = get_history().current()
        text = editor_text(shell, "stance", line, cell)  # line N is the editor's N
        filename = shell.compile.cache(text, number or 0, raw_code=text)
        try:
            body, tail = cells.split_last_expression(text, filename, shell.compile.flags)
        except SyntaxError as e:  # nothing ran, the stance untouched: a plain cell's error
            raise CellSyntaxError.of(e) from None
        session = get_session()
        saved = stance.save()
        try:
            stance.set_stance(name)
            exec(body, shell.user_global_ns, shell.user_ns)  # noqa: S102 - the user's cell
            if tail is not None:
                return eval(tail, shell.user_global_ns, shell.user_ns)  # noqa: S307
            return None
        finally:
            stance.restore(saved)
            session.flush_eager()


def before_cell(shell: Any, info: Any = None) -> None:
    """Before a cell (``pre_run_cell``): its history opened under its execution count."""
    count = getattr(shell, "execution_count", None)
    if isinstance(count, int) and getattr(info, "store_history", False):
        count -= 1  # IPython counted this cell before telling pre_run_cell
    get_history().begin(count, shell.user_ns)
    get_session().eager.refused = None  # a refusal is explained in the cell of its call


def after_cell(shell: Any, result: Any = None) -> None:
    """After a cell (``post_run_cell``): its history closed, its eager calls said."""
    get_history().end()
    get_session().flush_eager()
