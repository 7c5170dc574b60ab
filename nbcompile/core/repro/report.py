"""A repro's ``report.md``: the versions (torch, CUDA, Python, platform; torch's
``collect_env`` summary where it runs), the command, what nbcompile saw, what the fresh
run showed, and the trace directory to attach."""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

import torch

from .record import Repro

#: Seconds ``python -m torch.utils.collect_env`` may take (it asks pip, conda, nvidia-smi).
COLLECT_ENV_S = 60.0


def collect_env() -> subprocess.Popen[str] | None:
    """torch's ``collect_env`` started in its own process (read by ``env_summary``)."""
    try:
        return subprocess.Popen([sys.executable, "-m", "torch.utils.collect_env"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                start_new_session=True)
    except OSError:
        return None


def env_summary(proc: subprocess.Popen[str] | None) -> str:
    """What ``collect_env`` printed, or why there is none."""
    if proc is None:
        return "(torch.utils.collect_env could not be started)"
    try:
        out, _ = proc.communicate(timeout=COLLECT_ENV_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return f"(torch.utils.collect_env ran past {COLLECT_ENV_S:.0f} s and was stopped)"
    return out.strip() or "(torch.utils.collect_env printed nothing)"


def versions() -> list[str]:
    cuda = torch.version.cuda or "none (a CPU build)"
    return [f"- torch {torch.__version__} (CUDA {cuda})",
            f"- Python {platform.python_version()} ({sys.implementation.name})",
            f"- {platform.platform()}"]


def report_text(result: Repro, env: str) -> str:
    """The report's Markdown."""
    verdict = ("reproduced in a fresh process" if result.reproduced
               else "did NOT reproduce in a fresh process: " + "; ".join(result.differs))
    lines = [f"# torch.compile: {result.fact}", "",
             f"Target `{result.name}`; {verdict}.", "",
             "## Versions", *versions(), "",
             "## Repro", f"`{result.command}` (torch and the standard library only; exits 1 "
             "when the fact does not show)", "",
             "## What nbcompile saw in the notebook", result.fact, "",
             *[f"- {note}" for note in result.notes], *([""] if result.notes else []),
             "## What torch recorded in the fresh run", "```",
             *(f"{k}: {v}" for k, v in result.seen.items()), "```", ""]
    if result.saved:
        lines += ["## Saved tensors", "The script loads these from beside itself "
                  "(`torch.load(..., weights_only=True)`): "
                  + ", ".join(f"`{Path(p).name}`" for p in result.saved), ""]
    if result.trace_dir:
        lines += ["## Trace", f"The fresh run's `TORCH_TRACE` is in `{result.trace_dir}`: "
                  "attach it, or `tlparse` its file.", ""]
    lines += ["## Environment (torch.utils.collect_env)", "```", env, "```", ""]
    return "\n".join(lines)
