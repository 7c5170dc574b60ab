"""The JupyterLab extension: its TypeScript unit tests (the shared record fixture parsed
by the TS side) and its installation as a prebuilt extension."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT

EXT = ROOT / "labextension"
NPM_NAME = json.loads((EXT / "package.json").read_text())["name"]


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is required to test the JupyterLab extension (node 20 + npm)")
    return npm


@pytest.mark.slow
def test_typescript_unit_tests_parse_the_shared_fixture():
    npm = _npm()
    _node_modules()
    proc = subprocess.run([npm, "test"], cwd=EXT, capture_output=True, text=True, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-6000:]
    passed = re.search(r"^# pass (\d+)", out, re.M)
    failed = re.search(r"^# fail (\d+)", out, re.M)
    assert passed and int(passed.group(1)) >= 10, out[-3000:]
    assert failed and int(failed.group(1)) == 0, out[-3000:]


def _node_modules() -> None:
    if not (EXT / "node_modules" / "json-schema-to-typescript").exists():
        subprocess.run([_npm(), "ci"], cwd=EXT, check=True, timeout=600)


@pytest.mark.slow
def test_generated_record_types_and_schema_module_are_fresh(tmp_path):
    """src/generated/ is what the generator makes of the JSON Schema today: the record
    types (json-schema-to-typescript), the schema module the renderer validates with,
    and each record object's fields, defaults and maps the view model reads with."""
    _node_modules()
    node = shutil.which("node")
    assert node is not None, "node is required to test the JupyterLab extension"
    proc = subprocess.run([node, "scripts/gen-types.mjs", str(tmp_path)], cwd=EXT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for name in ("record.ts", "schema.ts", "fields.ts"):
        committed = EXT / "src" / "generated" / name
        assert committed.read_text() == (tmp_path / name).read_text(), (
            f"labextension/src/generated/{name} is stale: run `npm run gen:types` in labextension/")
    assert "export interface TargetRecord" in (tmp_path / "record.ts").read_text()


@pytest.mark.slow
def test_prebuilt_extension_is_installed_and_enabled():
    jupyter = Path(sys.executable).parent / "jupyter"
    proc = subprocess.run([str(jupyter), "labextension", "list"], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "NO_COLOR": "1"})
    out = re.sub(r"\x1b\[[0-9;]*m", "", proc.stdout + proc.stderr)
    line = next((ln for ln in out.splitlines() if NPM_NAME in ln), None)
    assert line is not None, out
    assert "enabled" in line and "OK" in line, line
    assert "(python, nbcompile)" in line, line


# slow: it needs the built extension (`make labextension`, a prerequisite of `make test`)
@pytest.mark.slow
def test_labextension_paths_point_at_the_build_output():
    import nbcompile

    (entry,) = nbcompile._jupyter_labextension_paths()
    assert entry["dest"] == NPM_NAME
    built = Path(nbcompile.__file__).parent / entry["src"]
    assert (built / "package.json").exists(), "run `pip install -e .` (builds the extension)"
    meta = json.loads((built / "package.json").read_text())
    assert meta["name"] == NPM_NAME
    load = meta["jupyterlab"]["_build"]["load"]
    assert (built / load).exists()
    assert (built / "static" / "style.js").exists()
