"""docs/architecture.md names every module and every test folder: one the map does not name
fails here."""

from __future__ import annotations

import re

from tests.support import ROOT

MAP = ROOT / "docs" / "architecture.md"


def _named() -> set[str]:
    return set(re.findall(r"`([\w./-]+\.(?:py|ts))`", MAP.read_text()))


def _modules() -> list[str]:
    found = [str(p.relative_to(ROOT / "nbcompile")) for p in (ROOT / "nbcompile").rglob("*.py")]
    found += [str(p.relative_to(ROOT)) for p in (ROOT / "benchmarks").glob("*.py")]
    src = ROOT / "labextension" / "src"
    found += [str(p.relative_to(src)) for p in src.rglob("*.ts")
              if "generated" not in p.parts]
    return sorted(found)


def test_every_module_is_on_the_map():
    named = _named()
    missing = [m for m in _modules() if m not in named]
    assert not missing, f"docs/architecture.md does not name: {', '.join(missing)}"


def test_the_map_names_no_module_that_is_gone():
    existing = set(_modules())
    ghosts = [n for n in _named() if n not in existing
              and not (ROOT / n).exists() and not (ROOT / "nbcompile" / n).exists()
              and not (ROOT / "labextension" / "src" / n).exists()]
    assert not ghosts, f"docs/architecture.md names modules that do not exist: {ghosts}"


def _test_folders() -> list[str]:
    """Every folder of tests under tests/, as the map writes it (``tests/core/perf/``); the
    folders inside ``tests/fixtures/`` are its data, and caches are not folders of tests."""
    tests = ROOT / "tests"
    found = []
    for p in tests.rglob("*"):
        parts = p.relative_to(tests).parts
        if (p.is_dir() and not any(x.startswith((".", "__")) for x in parts)
                and not (parts[0] == "fixtures" and len(parts) > 1)):
            found.append(f"{p.relative_to(ROOT)}/")
    return sorted(found)


def test_every_test_folder_is_on_the_map():
    named = set(re.findall(r"`(tests/[\w/]+/)`", MAP.read_text()))
    missing = [f for f in _test_folders() if f not in named]
    assert not missing, f"docs/architecture.md does not name the test folders: {missing}"
    ghosts = sorted(f for f in named if not (ROOT / f).is_dir())
    assert not ghosts, f"docs/architecture.md names test folders that do not exist: {ghosts}"


#: A module longer than this is named, with its one job, under "Large modules".
LONG = 450


def _lines(module: str) -> int:
    for base in (ROOT / "nbcompile", ROOT, ROOT / "labextension" / "src"):
        if (base / module).is_file():
            return len((base / module).read_text().splitlines())
    raise AssertionError(f"no module {module}")


def test_the_long_modules_are_the_ones_the_map_names():
    """The map's "Large modules" list is true to the files: every module over 450 lines is
    on it, and everything on it is over 450 lines."""
    text = MAP.read_text()
    section = text.split("## Large modules", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^- `([\w./-]+\.(?:py|ts))`", section, flags=re.M))
    listed |= set(re.findall(r"`([\w./-]+\.(?:py|ts))` and `[\w./-]+\.(?:py|ts)`", section))
    listed |= set(re.findall(r"`[\w./-]+\.(?:py|ts)` and `([\w./-]+\.(?:py|ts))`", section))
    src = ROOT / "labextension" / "src"
    every = _modules() + [str(p.relative_to(src)) for p in (src / "generated").glob("*.ts")]
    long = {m for m in every if _lines(m) > LONG}
    assert sorted(long - listed) == [], "long modules the map does not name under Large modules"
    assert sorted(listed - long) == [], "modules named under Large modules that are not long"
