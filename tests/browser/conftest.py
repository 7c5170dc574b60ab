"""Helpers for browser tests: a real ``jupyter lab`` server in its own process group and
Debian's Chromium driven by Playwright (see ../shared/platform-notes.md, "Browser tests")."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("NBCOMPILE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--headless=new",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LabServer:
    """One ``jupyter lab`` (or, with ``app="notebook"``, Jupyter Notebook 7) process in its
    own process group, stopped by its group id."""

    def __init__(self, root: Path, state: Path, token: str, extra_args: list[str] | None = None,
                 app: str = "jupyterlab"):
        self.root = root
        self.token = token
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        state.mkdir(parents=True, exist_ok=True)
        # No "get notified about news?" toast over the screenshots, no update checks.
        notif = state / "settings" / "@jupyterlab" / "apputils-extension"
        notif.mkdir(parents=True, exist_ok=True)
        (notif / "notification.jupyterlab-settings").write_text(
            json.dumps({"fetchNews": "false", "checkForUpdates": False}))
        env = {
            **os.environ,
            # Compiled artifacts shared with the rest of the test run.
            "TORCHINDUCTOR_CACHE_DIR": os.environ.get(
                "TORCHINDUCTOR_CACHE_DIR", str(ROOT / ".cache" / "inductor")),
            "JUPYTER_CONFIG_DIR": str(state / "config"),
            "JUPYTER_RUNTIME_DIR": str(state / "runtime"),
            "JUPYTERLAB_SETTINGS_DIR": str(state / "settings"),
            "JUPYTERLAB_WORKSPACES_DIR": str(state / "workspaces"),
            "PYTHONUNBUFFERED": "1",
        }
        self.log_path = state / f"lab-{self.port}.log"
        self._log = open(self.log_path, "w")  # noqa: SIM115 - closed in stop()
        self.app = app
        lab_only = ["--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                    "--LabApp.news_url="] if app == "jupyterlab" else []
        cmd = [
            sys.executable, "-m", app,
            "--no-browser", f"--port={self.port}", "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.token={token}", "--ServerApp.password=",
            f"--ServerApp.root_dir={root}", "--allow-root",
            "--ServerApp.port_retries=0",
            *lab_only,
            *(extra_args or []),
        ]
        self.proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=self._log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self.pgid = os.getpgid(self.proc.pid)

    def api(self, path: str, method: str = "GET") -> object:
        req = urllib.request.Request(f"{self.url}{path}", method=method,
                                     data=b"" if method == "POST" else None,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def wait_ready(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited:\n{self.log_path.read_text()[-4000:]}")
            try:
                self.api("/api/status")
                return
            except Exception:
                time.sleep(0.1)
        raise TimeoutError(f"jupyter lab did not start:\n{self.log_path.read_text()[-4000:]}")

    def sessions(self) -> list[dict]:
        return list(self.api("/api/sessions"))  # type: ignore[arg-type]

    def wait_kernel_idle(self, path: str, timeout: float = 120) -> dict:
        """Poll /api/sessions until the notebook's kernel reports idle."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for s in self.sessions():
                if s.get("path") == path and (s.get("kernel") or {}).get(
                        "execution_state") == "idle":
                    return s
            time.sleep(0.1)
        raise TimeoutError(f"no idle kernel for {path}: {self.sessions()}")

    def lab_url(self, path: str) -> str:
        if self.app == "notebook":
            return f"{self.url}/notebooks/{path}?token={self.token}"
        return f"{self.url}/lab/tree/{path}?token={self.token}"

    def kernel_groups(self) -> list[int]:
        """The server's kernels, by process group: its children that lead a group of their
        own (jupyter_client starts each kernel in a new session)."""
        groups = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                ppid, pgid = stat.read_text().rsplit(")", 1)[1].split()[1:3]
            except (OSError, IndexError):
                continue  # gone meanwhile
            if int(ppid) == self.proc.pid and int(pgid) == int(stat.parent.name):
                groups.append(int(pgid))
        return groups

    def stop(self) -> None:
        if self.proc.poll() is None:
            # The kernels at once, first: the server's own shutdown of a kernel waits
            # 2-3 s for torch's teardown, and nothing is read from a kernel after.
            for group in self.kernel_groups():
                try:
                    os.killpg(group, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                os.killpg(self.pgid, signal.SIGTERM)
                self.proc.wait(timeout=20)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(self.pgid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait(timeout=10)
        # Nothing of the server's own group is left behind.
        try:
            os.killpg(self.pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self._log.close()


@contextmanager
def lab_server(root: Path, state: Path, token: str, extra_args: list[str] | None = None,
               app: str = "jupyterlab"):
    server = LabServer(root, state, token, extra_args, app)
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make chromium` (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture()
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
