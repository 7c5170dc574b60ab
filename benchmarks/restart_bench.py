"""13b. The first call after a kernel restart with what ``%nbcompile cache save`` carries
(torch's portable cache and the built C++ kernels), into an empty Inductor cache
directory, and with a precompiled function (``aot_compile``) and the same kernels, vs the
cold first call; each a fresh process.

``python -m benchmarks --only 13``
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = r"""
import json, os, sys, time
from pathlib import Path
import torch
from tests.support import compile_models as cm
from nbcompile.core.compiletime import artifacts
step, work, which = sys.argv[1], sys.argv[2], sys.argv[3]
model = cm.transformer(12) if which == "transformer" else cm.stack(12)
x = torch.randn(2, 32, 64) if which == "transformer" else torch.randn(4, 8)
saved = os.path.join(work, "saved.nbcompile-artifacts")
pre = os.path.join(work, "model.pt2")
def call(m, x):
    return m(x)
out = {}
with torch.no_grad():
    if step == "cold":
        compiled = torch.compile(model, fullgraph=True)
        t0 = time.perf_counter(); compiled(x); out["first_call_s"] = time.perf_counter() - t0
        out["saved"] = artifacts.save(saved).note
        aot = torch.compile(call, fullgraph=True).aot_compile(((model, x), {}))
        aot.save_compiled_function(pre)
        artifacts.save_kernels(Path(pre))
    elif step == "warm":
        compiled = torch.compile(model, fullgraph=True)
        t0 = time.perf_counter(); compiled(x); out["first_call_s"] = time.perf_counter() - t0
    elif step == "carried":
        t0 = time.perf_counter()
        out["loaded"] = artifacts.load(saved, trust=True).note
        compiled = torch.compile(model, fullgraph=True)
        compiled(x); out["first_call_s"] = time.perf_counter() - t0
    elif step == "precompiled":
        t0 = time.perf_counter()
        import torch._inductor.codecache  # what loading imports first (Dynamo, Inductor)
        t1 = time.perf_counter()
        placed = len(artifacts.place_kernels(Path(pre), trust=True)[0])
        t2 = time.perf_counter()
        # Inductor's vector-instruction checks, which loading a C++ kernel runs once per
        # process (each probe library is loaded by a child Python), timed on their own
        from torch._inductor import cpu_vec_isa
        cpu_vec_isa.pick_vec_isa()
        t3 = time.perf_counter()
        with open(pre, "rb") as f:
            loaded = torch.compiler.load_compiled_function(f)
        t4 = time.perf_counter()
        loaded(model, x); out["first_call_s"] = time.perf_counter() - t0
        out["placed"] = placed
        out["layers"] = {"import": t1 - t0, "place": t2 - t1, "probes": t3 - t2,
                         "load": t4 - t3, "call": out["first_call_s"] - (t4 - t0)}
print(json.dumps(out))
"""


def _run(step: str, work: str, cache: str, which: str, **extra_env: str) -> dict:
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": cache, "PYTHONPATH": str(ROOT),
           **extra_env}
    out = subprocess.run([sys.executable, "-c", SCRIPT, step, work, which], env=env,
                         cwd=ROOT, capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_restart(which: str = "transformer") -> list[dict]:
    """Cold, warm restart, restart with the carried artifacts and kernels, precompiled."""
    with tempfile.TemporaryDirectory(prefix="nbcompile-restart-") as tmp:
        os.chmod(tmp, 0o700)
        dirs = {k: os.path.join(tmp, k) for k in ("cold", "carried", "precompiled",
                                                   "unprobed")}
        for d in dirs.values():
            os.makedirs(d, mode=0o700)
        cold = _run("cold", tmp, dirs["cold"], which)
        warm = _run("warm", tmp, dirs["cold"], which)
        carried = _run("carried", tmp, dirs["carried"], which)
        pre = _run("precompiled", tmp, dirs["precompiled"], which)
        # The same with the probes taken as passed: a torch setting users may choose
        # (TORCHINDUCTOR_VEC_ISA_OK=1) and nbcompile never sets for them.
        unprobed = _run("precompiled", tmp, dirs["unprobed"], which, TORCHINDUCTOR_VEC_ISA_OK="1")
    c = cold["first_call_s"]
    label = "12 transformer blocks" if which == "transformer" else "12 small residual blocks"
    return [
        {"name": f"13b. {label}: restart with %nbcompile cache load (portable cache + built "
                 "kernels, empty dir) / cold", "value": carried["first_call_s"] / c,
         "target": "(reported)", "ok": True,
         "detail": f"{carried['first_call_s']:.2f} s vs cold {c:.2f} s (warm Inductor "
                   f"cache dir {warm['first_call_s']:.2f} s); {carried['loaded'][:160]}"},
        {"name": f"13b. {label}: precompiled (fullgraph) restart with the built kernels "
                 "(empty dir) / cold", "value": pre["first_call_s"] / c,
         "target": "<= 0.10", "ok": pre["first_call_s"] / c <= 0.10,
         "detail": f"{pre['first_call_s']:.2f} s vs cold {c:.2f} s; {pre['placed']} "
                   f"kernels and CPU probes placed, none built; {_layers(pre)}"},
        {"name": f"13b. {label}: the same with TORCHINDUCTOR_VEC_ISA_OK=1 (torch's vector-"
                 "instruction probes skipped) / cold", "value": unprobed["first_call_s"] / c,
         "target": "(reported)", "ok": True,
         "detail": f"{unprobed['first_call_s']:.2f} s; {_layers(unprobed)}; a torch setting "
                   "a user may choose, never set by nbcompile"},
    ]


def _layers(run: dict) -> str:
    return "where the seconds go: " + ", ".join(
        f"{name} {seconds:.2f} s" for name, seconds in run["layers"].items())
