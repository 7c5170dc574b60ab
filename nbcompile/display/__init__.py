"""Rendering: records -> MIME bundles (JSON record, text/html, text/plain) and charts."""

from .bundle import summary_bundle
from .report_html import report_bundle

__all__ = ["report_bundle", "summary_bundle"]
