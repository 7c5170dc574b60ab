"""Rich reprs for core records, attached once: a mixin that picks the renderer by the
record's kind (``record`` field), so ``core/`` stays plain data and never sees a display
class. The public result classes of ``nbcompile.api`` are core records plus this mixin."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

from ..core.steps import Interrupted

Bundle = Callable[[Any], dict[str, Any]]
Text = Callable[[Any], str]

R = TypeVar("R", bound="RichRecord")


def _bundles() -> dict[str, Bundle]:
    # Imported on first display: the renderers import matplotlib, Pygments and friends.
    from .compile_time import compile_time_bundle
    from .diagnose import diagnosis_bundle
    from .profile import profile_bundle
    from .report_html import report_bundle
    from .suggest import suggestions_bundle
    from .timing import timing_bundle
    from .trace import trace_bundle

    return {"target": report_bundle, "timing": timing_bundle, "profile": profile_bundle,
            "suggestions": suggestions_bundle, "trace": trace_bundle,
            "diagnosis": diagnosis_bundle, "compile_time": compile_time_bundle}


def _texts() -> dict[str, Text]:
    from .compile_time import compile_time_text
    from .diagnose import diagnosis_text
    from .suggest import suggestions_text
    from .timing import timing_text

    return {"timing": timing_text, "suggestions": suggestions_text,
            "diagnosis": diagnosis_text, "compile_time": compile_time_text}


class RichRecord:
    """Mixin for a core record dataclass: ``_repr_mimebundle_`` (the versioned record with
    its ``text/html`` and ``text/plain`` fallbacks) and a text ``repr`` where the kind has
    one; ``from_record`` copies a plain record into the rich class, ``from_call`` the record a
    command returns (or its partial one after Ctrl-C)."""

    record: str

    @classmethod
    def from_record(cls: type[R], record: Any) -> R:
        return cls(**{f.name: getattr(record, f.name) for f in dataclasses.fields(record)})

    @classmethod
    def from_call(cls: type[R], run: Callable[..., Any], *args: Any, **kwargs: Any) -> R:
        """``run(*args, **kwargs)``'s record as this class; after Ctrl-C, the command's
        ``Interrupted`` carries its partial record as this class too."""
        try:
            return cls.from_record(run(*args, **kwargs))
        except Interrupted as e:
            e.partial = cls.from_record(e.partial)
            raise

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return _bundles()[self.record](self)

    def __repr__(self) -> str:
        text = _texts().get(self.record)
        return text(self) if text is not None else super().__repr__()
