"""Live compile progress: the steps of a running compile, from torch's own trace events.

A real kernel compiles a function for several seconds on its first call; the live summary's
updates name the step torch is in while it runs, then end in the usual record.
"""

from __future__ import annotations

import random

from jupyter_client.manager import start_new_kernel

from nbcompile.core.records import MIME_TYPE
from nbcompile.core.trace.progress import AFTER, FIRST_STEP, STEPS
from tests.support.kernel import execute


def _slow_cell(name: str) -> str:
    """A function whose first compile takes seconds: a long chain of distinct ops with
    constants unique to this run (no compile cache can answer it)."""
    seed = random.randrange(10**6)
    lines = [f"def {name}(x):"]
    for i in range(24):
        c = 1 + (seed + i) / 1e7
        op = ("torch.sin", "torch.cos", "torch.tanh", "torch.sigmoid")[i % 4]
        lines.append(f"    x = {op}(x * {c!r}) + x.sum(dim={i % 2}, keepdim=True) / {i + 2}")
    lines.append("    return x")
    return "%%compile\nimport torch\n" + "\n".join(lines) + "\n"


def test_running_compile_names_its_steps_then_ends_in_the_record():
    km, kc = start_new_kernel(kernel_name="python3")
    try:
        execute(kc, "%load_ext nbcompile")
        execute(kc, _slow_cell("slow_chain"))
        called = execute(kc, "slow_chain(torch.randn(64, 64)).shape")
        updates = [m["content"]["data"] for m in called if m["msg_type"] == "update_display_data"]
        targets = [u[MIME_TYPE]["targets"][0] for u in updates]
        running = [(t, u) for t, u in zip(targets, updates, strict=True)
                   if t["status"] == "compiling"]
        steps = [t["progress"]["phase"] for t, _ in running if "progress" in t]
        # which steps an update shows depends on when its tick falls (1 a second; on a
        # busy machine one step can span them all): each is one of torch's steps in
        # words, in the order the tracker keeps (tests/core/trace/test_compile_progress.py)
        known = {*STEPS.values(), *AFTER.values(), FIRST_STEP}
        assert steps and set(steps) <= known, steps
        last_running = next(t for t, _ in reversed(running) if "progress" in t)
        assert last_running["progress"]["frame"] == "slow_chain"
        assert last_running["progress"]["compile_id"] == "0/0"
        # the worded step and frame are in the text the kernel publishes
        texts = [u["text/plain"] for _, u in running]
        assert any("frame 0/0 slow_chain (line " in text for text in texts), texts[-1]
        assert any(f": {step} for " in text for text in texts for step in steps)
        assert all(t["status_text"].startswith("compiling...") for t, _ in running)
        # the end: the usual record, its phases bar; the progress is not part of it
        final = targets[-1]
        assert final["status"] == "compiled" and "progress" not in final
        assert final["compiles"][0]["phases"]
        assert "frame 0/0" not in updates[-1]["text/plain"]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
