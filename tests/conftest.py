"""Shared fixtures: one Inductor cache for the whole run, a real in-process IPython shell
with nbcompile loaded, hostile trace directories, recorded trace runs; and the folder rule
of the fast tier. Helpers that tests call are in ``tests.support``."""

from __future__ import annotations

import contextlib
import os
import random
import sys
from pathlib import Path

from tests.support import ROOT

# Before torch is imported anywhere: compiled artifacts are shared by all tests and by
# the kernels they start (honest sharing: each test still compiles its own code objects).
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(ROOT / ".cache" / "inductor"))
# Kernels started by tests save no cache keys into the user's own cache directory (the
# tests of that feature turn it on with a directory of their own).
os.environ.setdefault("NBCOMPILE_CACHE_KEYS", "off")


import pytest  # noqa: E402

from nbcompile.core.notebook import cache  # noqa: E402
from tests.fixtures.traces import record_runs
from tests.support import sigint  # noqa: E402
from tests.support.trace_logs import CASES, SECRET  # noqa: E402

#: Folders whose every test is slow (in-process compiles, real kernels, Chromium): the fast
#: tier (``make test-fast``, ``-m "not slow"``) is the rest: tests/core, display, schema and
#: project, less the tests marked ``slow`` there. tests/project is never all slow, so the fast
#: tier is never empty (pytest's exit 5).
SLOW_FOLDERS = ("shell", "kernel", "browser")


#: Under pytest-xdist (``make test``: one process per core, a test file per work unit),
#: the folders whose files take longest go out first, so no long file starts last.
HEAVY_FIRST = ("browser", "kernel", "shell", "core")
#: Files whose every test is a work unit of its own (a tutorial runs for minutes): the
#: documentation build (tests/project, last) waits for those still running elsewhere
#: (``tests.support.tutorials.running``) and reads the copies they saved.
EACH_TEST_A_UNIT = ("tests/kernel/test_notebooks.py",)


def _folder(item) -> str:
    path = Path(item.fspath)
    tests = ROOT / "tests"
    return path.relative_to(tests).parts[0] if path.is_relative_to(tests) else ""


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        if _folder(item) in SLOW_FOLDERS:
            item.add_marker(pytest.mark.slow)
    if os.environ.get("PYTEST_XDIST_WORKER"):  # every worker collects the same order
        items.sort(key=lambda item: HEAVY_FIRST.index(_folder(item))
                   if _folder(item) in HEAVY_FIRST else len(HEAVY_FIRST))
    # torch's own code (the optimizer's step) is one code object per process, and some
    # commands' trials (suggest) leave such a frame running eagerly: the tests that need
    # it compiled run first, whatever folder order says (under xdist: their whole file,
    # the first work unit of the first process)
    items.sort(key=lambda item: item.get_closest_marker("before_torch_state_changes") is None)


#: ``NBCOMPILE_TEST_TIMELINE=FILE``: each test's process, start and end (Unix seconds) and
#: id appended to FILE, one line per test: where a run's wall time went (which process
#: waited for which test at the end).
TIMELINE = os.environ.get("NBCOMPILE_TEST_TIMELINE")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    import time

    start = time.time()
    yield
    if TIMELINE:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(TIMELINE, "a") as f:
            f.write(f"{worker} {start:.2f} {time.time():.2f} {item.nodeid}\n")


def pytest_xdist_make_scheduler(config, log):
    """A test file per work unit (``--dist loadfile``), in collection order, each test of
    ``EACH_TEST_A_UNIT`` a unit of its own."""
    from xdist.scheduler import LoadScopeScheduling

    class ByFile(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return nodeid if path in EACH_TEST_A_UNIT else path

    config.option.loadscopereorder = False
    return ByFile(config, log)


@pytest.fixture(scope="session")
def ip():
    """The real in-process IPython shell with ``%load_ext nbcompile`` done."""
    from IPython.testing.globalipapp import start_ipython

    shell = start_ipython()
    # As in a real kernel, the user namespace is the __main__ module (Dynamo resolves
    # globals of inlined user functions through sys.modules[fn.__module__]).
    saved_main = sys.modules.get("__main__")
    sys.modules["__main__"] = shell.user_module
    shell.run_line_magic("load_ext", "nbcompile")
    yield shell
    # Dynamo installs names in the user namespace (``__builtins_dict___N``) and removes
    # each when its code object dies; at exit Python clears the namespace first, so each
    # removal printed a KeyError traceback from torch's teardown (noise in the suite's
    # output). The removals are dropped: the process is ending.
    from torch._dynamo import utils as dynamo_utils

    manager = getattr(dynamo_utils, "CleanupManager", None)
    if manager is not None and hasattr(manager, "instance"):
        manager.instance.clear()
    if saved_main is not None:
        sys.modules["__main__"] = saved_main


@pytest.fixture
def sigint_handled():
    """SIGINT raises ``KeyboardInterrupt`` in the test however the suite was started
    (``tests/support/sigint.py``); the disposition is put back after."""
    with sigint.handled():
        yield


@pytest.fixture
def secret(tmp_path) -> Path:
    """A file outside every trace directory whose content must never show."""
    outside = tmp_path / "outside"
    outside.mkdir()
    path = outside / "secret.txt"
    path.write_text(f"{SECRET} first line\n{SECRET} second line\n")
    return path


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """The hostile trace directories (and the secret outside them)."""
    base = tmp_path_factory.mktemp("hostile")
    secret = base / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text(f"{SECRET} first line\n{SECRET} second line\n")
    rng = random.Random(21)
    dirs = {}
    for name, make in CASES.items():
        directory = base / name
        directory.mkdir()
        make(directory, rng, secret)
        dirs[name] = directory
    yield base, dirs
    for directory in dirs.values():  # free anything stuck on a FIFO
        for fifo in directory.glob("*.log"):
            if fifo.is_fifo():
                with contextlib.suppress(OSError):
                    os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A private home for nbcompile's per-user files (``XDG_CACHE_HOME`` under a 0700
    ``tmp_path``), outside any Jupyter session."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    os.chmod(tmp_path, 0o700)
    return tmp_path


@pytest.fixture
def cache_state(monkeypatch):
    saved = os.environ.get(cache.ENV)
    monkeypatch.setattr(cache, "_state", cache.CacheState())
    yield
    if saved is None:
        os.environ.pop(cache.ENV, None)
    else:
        os.environ[cache.ENV] = saved


@pytest.fixture(scope="session")
def runs(tmp_path_factory):
    """Each run once per session, on first use: from the committed archive where it was
    recorded under this machine's stamp (``record_runs.unpack``), else recorded here (each
    takes 10-30 s of compiling); under pytest-xdist, once for all the worker processes (a
    lock per run, and one for the archive)."""
    from filelock import FileLock

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    out = shared / "recorded-traces"
    out.mkdir(exist_ok=True)
    done: dict[str, Path] = {}
    with FileLock(str(out / "archive.lock")):
        if not (out / "archive.done").exists():
            if record_runs.unpack(out):
                for name in record_runs.RUNS:
                    (out / f"{name}.done").touch()
            (out / "archive.done").touch()

    def get(name: str) -> Path:
        if name in record_runs.NEEDS:
            get(record_runs.NEEDS[name])
        if name not in done:
            with FileLock(str(out / f"{name}.lock")):
                finished = out / f"{name}.done"
                if not finished.exists():
                    record_runs.record(name, out)
                    finished.touch()
            done[name] = out / name
        return done[name]

    return get
