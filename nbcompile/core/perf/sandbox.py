"""The old path of ``core/runs/sandbox.py``, kept while ``perf/profile.py`` imports
``Sandbox`` from here (drop it once that import names ``runs.sandbox``)."""

from ..runs.sandbox import Sandbox

__all__ = ["Sandbox"]
