"""The public Python API: ``report(obj)``, ``compare(fn, *args)``, ``diagnose(fn, *args)``,
``open_trace(path)`` and their results.

The results are core records (plain data) with rich reprs added here, so ``core/`` never
imports ``display/`` and the results still display richly without ``%load_ext``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from .core.compiletime import compile_time as _compile_time
from .core.compiletime import record as _compile_time_record
from .core.diagnosis import diagnose as _diagnose
from .core.diagnosis import record as _diagnosis
from .core.fixes import suggest as _suggest
from .core.notebook import trace_dir as _trace_dir
from .core.notebook.capture.session import get_session
from .core.notebook.capture.snapshot import target_record
from .core.perf import comparison as _comparison
from .core.perf import timing as _timing
from .core.perf.profile import run as _profile
from .core.records import TargetRecord
from .core.repro import record as _repro_record
from .core.repro import repro as _repro
from .core.trace import chrome_trace as _chrome_trace
from .display.reprs import RichRecord
from .trace_report import TraceReport, open_trace  # noqa: F401 (re-exported)

if TYPE_CHECKING:
    from .display.annotate import AnnotatedSource
    from .display.inline_inspector import Inspector


class CompileReport(RichRecord, TargetRecord):
    """Everything nbcompile captured for one compiled target (a snapshot).

    Like IPython's ``TimeitResult``: plain attributes (``name``, ``kind``, ``options``,
    ``compiles``, ``graph_count``, ``graph_breaks``, ``recompiles``, ``output_code``,
    ``kernels``, ``compile_time_s``), ``to_dict()`` for JSON, and rich reprs.
    """

    def _repr_html_(self) -> str:
        from .display.annotate import diffs_html
        from .display.phases import phases_html
        from .display.report_html import report_html

        return report_html(self) + phases_html(self) + diffs_html(self)

    def annotate(self) -> AnnotatedSource:
        """The target's source annotated line by line, like ``%%cython --annotate``:
        which kernel each line was fused into, extern calls, graph breaks, lines left
        to Python. Displays as coloured HTML; its ``lines`` are ``LineAnnotation`` records."""
        from .display.annotate import AnnotatedSource

        return AnnotatedSource(self)

    def save_chrome_trace(self, path: str | Path) -> Path:
        """Write the compiles' phase events (Dynamo, AOTAutograd, Inductor...) as a
        Chrome trace JSON file that Perfetto and ``chrome://tracing`` open."""
        return _chrome_trace.save_chrome_trace(self.compiles, path)

    @property
    def status_text(self) -> str:
        """The status in words, as the summary and the inspector show it (``status`` is
        its code: ``not_compiled`` reads ``not compiled (runs eagerly)``)."""
        from .display.summary_model import status_text

        return status_text(self)

    def __repr__(self) -> str:
        from .display.units import format_seconds, plural

        return (
            f"<CompileReport {self.name} ({self.kind}): {self.status_text}, "
            f"{plural(self.graph_count, 'graph')}, {plural(self.graph_break_count, 'break')}, "
            f"{plural(self.recompile_count, 'recompile')}, "
            f"{plural(self.code_piece_count, 'code piece')}, "
            f"{format_seconds(self.compile_time_s, 2)}>"
        )


def report(obj: Any) -> CompileReport:
    """The ``CompileReport`` of a function or module compiled by ``%%compile``.

    ``obj`` is what the name holds (the compiled function, or the module, or its
    DDP/FSDP wrapper) or the original function.
    """
    target = get_session().find(obj)
    if target is None:
        name = getattr(obj, "__name__", type(obj).__name__)
        if isinstance(obj, functools.partial):
            raise LookupError(
                f"nbcompile has no record of this functools.partial of {obj.func!r}: "
                "%%compile compiles a partial (as torch.compile(partial)) when it wraps a "
                "function defined in the notebook and is bound to a name in the cell; "
                "compile one like that, or call torch.compile on it yourself."
            )
        raise LookupError(
            f"nbcompile has no record of {name}: compile it in a %%compile cell first "
            "(after %load_ext nbcompile)."
        )
    return CompileReport.from_record(target_record(target))


def inspect(obj: Any) -> Inspector:
    """The Compile inspector inside the cell: a widget with the sidebar's views (breaks
    and their lines, recompiles, guards, compiles and phases, kernels with search, source
    and kernels side by side, diffs between compiles, CUDA graphs) for a target compiled by
    ``%%compile`` (what ``report`` accepts), or for a result of ``report``, ``compare``,
    ``profile``, ``suggest``, ``diagnose``, ``compile_time`` or ``open_trace``.

    Runs where Jupyter widgets run (JupyterLab, Notebook 7, VS Code, Colab) without the
    JupyterLab extension; elsewhere the output shows its static HTML.
    """
    from .display.inline_inspector import inspector_for

    shown = obj if isinstance(obj, RichRecord) else report(obj)
    return inspector_for(shown._repr_mimebundle_())


class Comparison(RichRecord, _comparison.Comparison):
    """What ``compare()`` returns: ``rows`` (each a ``TimingRow``), ``best``, ``row(mode)``,
    ``to_dict()`` (the ``timing`` record), and rich reprs (table and speedup chart)."""


@functools.wraps(_timing.compare)
def compare(fn: Any, *args: Any, **kwargs: Any) -> Comparison:
    return Comparison.from_call(_timing.compare, fn, *args, **kwargs)


class Profile(RichRecord, _profile.Profile):
    """What ``profile()`` returns: ``kernels``, ``lines``, the per-call budget
    (``wall_s``, ``outside_graphs_s``, ``overhead_s`` ...), ``to_dict()`` (the ``profile``
    record), and rich reprs (the source coloured by measured time, the kernel table)."""


@functools.wraps(_profile.profile)
def profile(fn: Any, *args: Any, **kwargs: Any) -> Profile:
    return Profile.from_call(_profile.profile, fn, *args, **kwargs)


class Suggestions(RichRecord, _suggest.Suggestions):
    """What ``suggest()`` returns: ``baseline``, ``items`` (each a ``Suggestion``),
    ``to_dict()`` (the ``suggestions`` record), and rich reprs (one row per suggestion)."""


@functools.wraps(_suggest.suggest)
def suggest(fn: Any, *args: Any, **kwargs: Any) -> Suggestions:
    return Suggestions.from_call(_suggest.suggest, fn, *args, **kwargs)


class Diagnosis(RichRecord, _diagnosis.Diagnosis):
    """What ``diagnose()`` returns: ``kind`` (crash | accuracy | ok), ``layer``, ``rungs``,
    ``culprit``/``lineno``/``line``, ``max_abs_diff``, ``reference`` (``closer``: eager |
    compiled | neither), ``workarounds`` (each ``change``, ``verified``, ``max_abs_diff``,
    ``note``), ``to_dict()`` (the ``diagnosis`` record), and rich reprs."""


@functools.wraps(_diagnose.diagnose)
def diagnose(fn: Any, *args: Any, **kwargs: Any) -> Diagnosis:
    return Diagnosis.from_call(_diagnose.diagnose, fn, *args, **kwargs)


class CompileTime(RichRecord, _compile_time_record.CompileTime):
    """What ``compile_time()`` returns: ``cold_s``, ``warm_restart_s``, ``where`` (frames,
    phases, caches, repeated blocks), ``remedies`` (each ``kind``, ``change``, ``status``,
    ``verified``, ``cold_s``/``restart_s``, ``steady_ratio``, ``same_result``, ``note``),
    ``to_dict()`` (the ``compile_time`` record), and rich reprs."""


@functools.wraps(_compile_time.compile_time)
def compile_time(fn: Any, *args: Any, **kwargs: Any) -> CompileTime:
    return CompileTime.from_call(_compile_time.compile_time, fn, *args, **kwargs)


TraceDir = _trace_dir.TraceDir


@overload
def trace(path: str | Path) -> TraceDir: ...
@overload
def trace(path: None) -> TraceDir | None: ...
def trace(path: str | Path | None) -> TraceDir | None:
    """Write torch's structured trace of what runs next into the directory ``path``, in
    torch's own ``TORCH_TRACE`` format (tlparse and ``open_trace`` read it), until the
    result's ``stop()``; also a context manager (``with nbcompile.trace(DIR): ...``).
    ``trace(None)`` stops the trace being written and returns it. A ``TORCH_TRACE`` set
    in the environment keeps writing as before. Raises ``ValueError`` (in words) where the
    directory cannot be written, or while another trace is being written."""
    if path is None:
        return _trace_dir.stop()
    return _trace_dir.start(path)


class Repro(_repro_record.Repro):
    """What ``repro()`` returns: ``path`` (the script), ``fact``, ``reproduced``,
    ``differs``, ``report_path``, ``trace_dir``, ``command``, ``to_dict()``, rich reprs."""

    def __repr__(self) -> str:
        from .display.repro import repro_text

        return repro_text(self)

    def _repr_html_(self) -> str:
        from .display.repro import repro_html

        return repro_html(self)


@functools.wraps(_repro.repro)
def repro(target: Any, *args: Any, **kwargs: Any) -> Repro:
    done = _repro.repro(target, *args, **kwargs)
    return Repro(**{f: getattr(done, f) for f in done.__dataclass_fields__})
