"""Helpers the tests import (conftest.py holds only fixtures): ``shell`` for the in-process
IPython shell, ``kernel`` for real kernels, ``trace_logs`` for writing TORCH_TRACE logs."""

from __future__ import annotations

from pathlib import Path

#: The repository's root.
ROOT = Path(__file__).resolve().parent.parent.parent
