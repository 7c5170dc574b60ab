"""The GPU suite (``make test-gpu`` on a lent device): every test here needs a CUDA GPU and
is skipped without one (collected, so ``make test`` on a CPU still lists it). Each scenario
writes its evidence (the record as JSON, torch's CUDA-graph messages, TORCH_TRACE logs)
under ``$NBCOMPILE_GPU_EVIDENCE`` (``make test-gpu`` bundles it into ``$OUT``)."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from nbcompile.core.notebook.cudagraphs.log import LOGGERS
from tests.support.gpu import TorchMessages

NEEDS_CUDA = "needs a CUDA GPU: run `make test-gpu` on a lent device (docs/project/gpu.md)"


def pytest_runtest_setup(item) -> None:
    """Skip before any fixture starts (the session's IPython shell included)."""
    if not torch.cuda.is_available():
        pytest.skip(NEEDS_CUDA)


@pytest.fixture(scope="session")
def evidence(tmp_path_factory) -> Path:
    """Where scenarios leave their evidence."""
    chosen = os.environ.get("NBCOMPILE_GPU_EVIDENCE")
    path = Path(chosen) if chosen else tmp_path_factory.mktemp("gpu-evidence")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def torch_messages() -> Iterator[TorchMessages]:
    """torch's CUDA-graph messages logged during the test (beside nbcompile's handler), on
    each logger ``cudagraph_utils`` writes them to (torch 2.9: its ``perf_hints`` too)."""
    handler = TorchMessages()
    loggers = [logging.getLogger(name) for name in LOGGERS]
    for logger in loggers:
        logger.addHandler(handler)
    yield handler
    for logger in loggers:
        logger.removeHandler(handler)
