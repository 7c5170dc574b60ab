"""One handler per torch logger, every tap in the registry: with every feature that taps
torch's logs active at once (a ``%%compile`` capture, ``%nbcompile trace DIR``, the
compile-time history, a trial's private capture, the artifact loader's filter, torch's
warnings routed into records, the CUDA-graph log tap), each torch logger carries at most
one nbcompile handler, every handler and filter nbcompile put on a torch logger or on
torch's handlers is registered in ``log_taps``, and each feature still hears its records."""

from __future__ import annotations

import logging

import nbcompile
from nbcompile.core.compiletime import artifacts, history
from nbcompile.core.notebook import trace_dir
from nbcompile.core.notebook.capture.session import get_session
from nbcompile.core.runs.capture import GraphCapture
from nbcompile.core.trace import log_taps
from nbcompile.core.trace.listener import TRACE_LOGGER
from tests.support.shell import run_cell


def _ours(obj: object) -> bool:
    return type(obj).__module__.startswith("nbcompile.")


def taps_out_of_place() -> list[str]:
    """Each torch logger with more than one nbcompile handler, and each nbcompile handler
    or filter on torch's loggers (or their handlers) that the registry does not hold."""
    registered = log_taps.taps()
    found = []
    for name, logger in list(logging.Logger.manager.loggerDict.items()):
        if not name.startswith("torch") or not isinstance(logger, logging.Logger):
            continue
        handlers = [h for h in logger.handlers if _ours(h)]
        if len(handlers) > 1:
            found.append(f"{name}: {len(handlers)} nbcompile handlers "
                         f"({', '.join(type(h).__name__ for h in handlers)})")
        placed = (handlers + [f for f in logger.filters if _ours(f)]
                  + [f for h in logger.handlers for f in h.filters if _ours(f)])
        found += [f"{name}: {type(tap).__name__} is not registered" for tap in placed
                  if not any(tap is r for r in registered)]
    return found


class _Witness(logging.Filter):
    """Checks the taps at the instant torch's portable cache warns (the artifact loader's
    filter is on then)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[list[str]] = []
        self.artifact_filters = 0

    def filter(self, record: logging.LogRecord) -> bool:
        logger = logging.getLogger(artifacts.CACHE_LOGGER)
        self.artifact_filters = sum(_ours(f) for f in logger.filters)
        self.seen.append(taps_out_of_place())
        return True


CELL = '''
def lt_fn(x):
    return torch.sin(x) * 2 + 1
'''


def test_one_handler_per_torch_logger_every_tap_registered(ip, home, tmp_path):
    run_cell(ip, "%%compile --backend eager\nimport torch\n" + CELL)
    run_cell(ip, "lt_fn(torch.randn(4))")
    where = tmp_path / "trace"
    ip.run_line_magic("nbcompile", f"trace {where}")
    trial = GraphCapture()
    witness = _Witness()
    cache_logger = logging.getLogger(artifacts.CACHE_LOGGER)
    garbage = home / "garbage.nbcompile-artifacts"
    garbage.write_bytes(b"not even a pickle")
    garbage.chmod(0o600)
    kept = history.current()
    assert kept is not None
    heard_before = kept.count
    try:
        with trial.listening():
            # torch resetting its loggers meanwhile changes none of it
            run_cell(ip, "torch._logging.set_logs()\nlt_fn(torch.randn(4, 3))")  # a recompile
            trace_logger = logging.getLogger(TRACE_LOGGER)
            ours = [h for h in trace_logger.handlers if _ours(h)]
            assert [type(h).__name__ for h in ours] == ["Fanout"]
            written = trace_dir.current()
            assert written is not None
            sinks = log_taps.sinks(TRACE_LOGGER)
            for sink in (get_session().listener, kept, written._handler, trial._listener):
                assert any(sink is s for s in sinks), type(sink).__name__
            cache_logger.addFilter(witness)
            try:
                artifacts.load(garbage, trust=True)
            except artifacts.ArtifactError as e:
                assert "could not read" in str(e)
            else:
                raise AssertionError("torch read a garbage artifacts file")
            finally:
                cache_logger.removeFilter(witness)
    finally:
        ip.run_line_magic("nbcompile", "trace off")
    assert witness.seen and witness.artifact_filters == 1
    assert witness.seen == [[]] * len(witness.seen), witness.seen
    assert taps_out_of_place() == []

    # every sink heard the recompile through the one handler
    assert trial.graphs >= 1
    assert kept.count > heard_before
    fn = ip.user_ns["lt_fn"]
    assert len(nbcompile.report(fn).compiles) >= 2
    files = list(where.glob("dedicated_log_torch_trace_*.log"))
    assert len(files) == 1 and "lt_fn" in files[0].read_text()
    # the trial's sink and the trace's are gone; the session and the history still hear
    sinks = log_taps.sinks(TRACE_LOGGER)
    assert not any(s is trial._listener or s is written._handler for s in sinks)
    assert get_session().listener.installed and any(s is kept for s in sinks)
    assert not [f for f in cache_logger.filters if _ours(f)]
