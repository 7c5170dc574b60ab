"""Helpers of the GPU suite (tests/gpu/): torch's own CUDA-graph messages as logged, and
each scenario's evidence written where ``make test-gpu`` bundles it."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any


class TorchMessages(logging.Handler):
    """torch's own CUDA-graph messages (its ``cudagraphs`` artifact logger), as logged."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage().rstrip())


def save(evidence: Path, name: str, record: Any, messages: list[str]) -> None:
    """One scenario's evidence: its record (JSON) and torch's CUDA-graph messages."""
    data = record.to_dict() if hasattr(record, "to_dict") else record
    (evidence / f"{name}.record.json").write_text(json.dumps(data, indent=1, default=repr))
    (evidence / f"{name}.cudagraphs.log").write_text("\n\n".join(messages) + "\n")
