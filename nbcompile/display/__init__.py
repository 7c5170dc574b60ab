"""Rendering: records -> MIME bundles (JSON record, text/html, text/plain) and charts."""

from .bundle import report_bundle, summary_bundle

__all__ = ["report_bundle", "summary_bundle"]
