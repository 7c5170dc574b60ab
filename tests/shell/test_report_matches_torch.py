"""The report tells the truth in the programs people write.

A differential test. Each program shape runs twice in the same in-process IPython shell:
once through ``%%compile`` and once through plain ``torch.compile`` (``module.compile()``
for a module), with fresh code objects each time (the names carry a per-run prefix, so no
compile of one run is a cache hit of the other). torch's own record of the plain run is
the truth: a backend that counts the graphs it is given; torch's structured trace read
raw (the frame compiles, those that failed, the graph-break reasons logged per frame
compile: one per traced occurrence; Dynamo's ``counters["graph_break"]`` misses some,
e.g. a data-dependent branch, and its frame counters count frames it never compiles);
and what the call raised. nbcompile's ``report(target)`` of the ``%%compile`` run must say the same:
``graph_count``, the break occurrences of the compiles that produced code, the frames it
compiled and those it gave up on, and a status (and error) derived from what torch did.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

import pytest
import torch

import nbcompile

BACKEND = "nbc_truth_count"
_graphs = [0]


def _count_graphs(gm, example_inputs):
    _graphs[0] += 1
    return gm.forward


if BACKEND not in torch._dynamo.list_backends(None):
    torch._dynamo.register_backend(_count_graphs, name=BACKEND)


@dataclass
class Shape:
    """A program: ``source`` defines it (``P_`` starts every name, replaced per run),
    ``compiled`` are the names compiled (``%%compile --only``), ``call`` calls it."""

    id: str
    source: str
    call: str
    compiled: list[str] = field(default_factory=lambda: ["f"])
    target: str = "f"  # whose report is compared
    flags: str = ""  # %%compile flags; the same as torch.compile keyword arguments
    setup: str = ""  # a plain cell run before (helpers that are nobody's target)


BREAK = "torch._dynamo.graph_break()"

SHAPES = [
    Shape("no-break", "def P_f(x):\n    return (x.sin() + 1).cos()\n", "P_f(torch.randn(4))"),
    Shape("one-break", f"def P_f(x):\n    x = x + 1\n    {BREAK}\n    return x * 2\n",
          "P_f(torch.randn(4))"),
    Shape("two-breaks", f"def P_f(x):\n    x = x + 1\n    {BREAK}\n    x = x * 2\n"
                        f"    {BREAK}\n    return x - 1\n", "P_f(torch.randn(4))"),
    Shape("nested-depth-2", f"def P_g(x):\n    x = x.sin()\n    {BREAK}\n    return x + 1\n"
                            "def P_f(x):\n    return P_g(x * 3) - 1\n", "P_f(torch.randn(4))"),
    Shape("nested-depth-3", f"def P_inner2(x):\n    x = x + 1\n    {BREAK}\n    return x * 2\n"
                            "def P_inner1(x):\n    return P_inner2(x.sin()).cos()\n"
                            "def P_f(x):\n    return P_inner1(x * 3) - 1\n",
          "P_f(torch.randn(4))"),
    Shape("nested-depth-3-helpers-elsewhere",
          "def P_f(x):\n    return P_inner1(x * 3) - 1\n", "P_f(torch.randn(4))",
          setup=f"def P_inner2(x):\n    x = x + 1\n    {BREAK}\n    return x * 2\n"
                "def P_inner1(x):\n    return P_inner2(x.sin()).cos()\n"),
    Shape("nested-depth-3-all-targets",
          f"def P_inner2(x):\n    x = x + 1\n    {BREAK}\n    return x * 2\n"
          "def P_inner1(x):\n    return P_inner2(x.sin()).cos()\n"
          "def P_f(x):\n    return P_inner1(x * 3) - 1\n", "P_f(torch.randn(4))",
          compiled=["inner2", "inner1", "f"]),
    Shape("nested-depth-4", f"def P_d(x):\n    {BREAK}\n    return x + 4\n"
                            "def P_c(x):\n    return P_d(x + 3) * 2\n"
                            "def P_b(x):\n    return P_c(x + 2).sin()\n"
                            "def P_f(x):\n    return P_b(x + 1).cos()\n", "P_f(torch.randn(4))"),
    Shape("break-in-two-callees", f"def P_g(x):\n    {BREAK}\n    return x + 1\n"
                                  f"def P_h(x):\n    {BREAK}\n    return x * 2\n"
                                  "def P_f(x):\n    return P_g(x.sin()) + P_h(x.cos())\n",
          "P_f(torch.randn(4))"),
    Shape("closure-factory", f"def P_make(k):\n    def inner(x):\n        x = x * k\n"
                             f"        {BREAK}\n        return x + k\n    return inner\n"
                             "P_scale = P_make(3)\n"
                             "def P_f(x):\n    return P_scale(x.sin()).cos()\n",
          "P_f(torch.randn(4))"),
    Shape("closure-local-def", "def P_f(x):\n    k = 2\n    def inner(y):\n"
                               f"        {BREAK}\n        return y * k\n"
                               "    return inner(x + 1) - 1\n", "P_f(torch.randn(4))"),
    Shape("method-break", "class P_Scaler:\n    def __init__(self):\n        self.k = 2.0\n"
                          f"    def apply(self, x):\n        x = x * self.k\n        {BREAK}\n"
                          "        return x + 1\nP_obj = P_Scaler()\n"
                          "def P_f(x):\n    return P_obj.apply(x.sin()).cos()\n",
          "P_f(torch.randn(4))"),
    Shape("skip-frame-calls-two", "def P_inner1(x):\n    return x.sin()\n"
                                  "def P_inner2(x):\n    return x.cos()\n"
                                  "def P_f(x):\n    torch._dynamo.skip_frame()\n"
                                  "    return P_inner1(x) + P_inner2(x)\n",
          "P_f(torch.randn(4))"),
    Shape("skip-frame-in-callee", "def P_g(x):\n    torch._dynamo.skip_frame()\n"
                                  "    return x + 1\n"
                                  "def P_f(x):\n    return P_g(x.sin()).cos()\n",
          "P_f(torch.randn(4))"),
    Shape("compiler-disable", "@torch.compiler.disable\ndef P_g(x):\n    return x + 1\n"
                              "def P_f(x):\n    return P_g(x.sin()).cos()\n",
          "P_f(torch.randn(4))"),
    Shape("compiler-disable-not-recursive",
          "def P_h(x):\n    return x * 2\n"
          "@torch.compiler.disable(recursive=False)\ndef P_g(x):\n    return P_h(x + 1)\n"
          "def P_f(x):\n    return P_g(x.sin()).cos()\n", "P_f(torch.randn(4))"),
    Shape("error-on-graph-break-nested",
          f"def P_g(x):\n    {BREAK}\n    return x + 1\n"
          "def P_f(x):\n    with torch._dynamo.error_on_graph_break(True):\n"
          "        return P_g(x.sin())\n", "P_f(torch.randn(4))"),
    Shape("error-on-graph-break-false-around-break",
          f"def P_g(x):\n    {BREAK}\n    return x + 1\n"
          "def P_f(x):\n    with torch._dynamo.error_on_graph_break(False):\n"
          "        y = P_g(x.sin())\n    return y.cos()\n", "P_f(torch.randn(4))"),
    Shape("fullgraph-nested-break", f"def P_g(x):\n    {BREAK}\n    return x + 1\n"
                                    "def P_f(x):\n    return P_g(x.sin())\n",
          "P_f(torch.randn(4))", flags="--fullgraph"),
    Shape("fullgraph-ok", "def P_f(x):\n    return x.sin() * 2\n", "P_f(torch.randn(4))",
          flags="--fullgraph"),
    Shape("loop-around-break", "def P_f(x):\n    for i in range(3):\n        x = x + i\n"
                               f"        {BREAK}\n    return x * 2\n", "P_f(torch.randn(4))"),
    Shape("with-around-break", "def P_f(x):\n    with torch.no_grad():\n        x = x + 1\n"
                               f"        {BREAK}\n        x = x * 2\n    return x.sin()\n",
          "P_f(torch.randn(4))"),
    Shape("try-around-break", "def P_f(x):\n    try:\n        x = x + 1\n"
                              f"        {BREAK}\n        x = x * 2\n"
                              "    except ValueError:\n        x = x - 1\n    return x.sin()\n",
          "P_f(torch.randn(4))"),
    Shape("print-break", "def P_f(x):\n    x = x + 1\n    print('', end='')\n    return x * 2\n",
          "P_f(torch.randn(4))"),
    Shape("data-dependent-branch", "def P_f(x):\n    if x.sum() > 0:\n        return x + 1\n"
                                   "    return x - 1\n", "P_f(torch.ones(4))"),
    Shape("item-break", "def P_f(x):\n    s = x.sum().item()\n    return x * s\n",
          "P_f(torch.ones(4))"),
    Shape("nonstrict-trace", "@torch._dynamo.nonstrict_trace\ndef P_g(x):\n"
                             "    return x * 2\n"
                             "def P_f(x):\n    return P_g(x.sin()).cos()\n",
          "P_f(torch.randn(4))"),
    Shape("dynamic-automatic", "def P_f(x):\n    return x.sin() * x.shape[0]\n",
          "for n in (3, 4, 5, 6):\n    P_f(torch.randn(n))\n"),
    Shape("dynamic-flag", "def P_f(x):\n    return x.sin() * 2\n",
          "for n in (3, 4, 5):\n    P_f(torch.randn(n))\n", flags="--dynamic"),
    Shape("no-dynamic-changing-sizes", "def P_f(x):\n    return x.cos() + 1\n",
          "for n in (3, 4, 5):\n    P_f(torch.randn(n))\n", flags="--no-dynamic"),
    Shape("zero-one-specialisation", "def P_f(x):\n    return x * 2 + x.shape[0]\n",
          "for n in (1, 2, 3, 4):\n    P_f(torch.randn(n))\n"),
    Shape("dynamic-with-nested-break", f"def P_g(x):\n    {BREAK}\n    return x + 1\n"
                                       "def P_f(x):\n    return P_g(x.sin()).cos()\n",
          "for n in (3, 4, 5):\n    P_f(torch.randn(n))\n"),
    Shape("dtype-recompile", "def P_f(x):\n    return x * 2\n",
          "P_f(torch.randn(4))\nP_f(torch.randn(4, dtype=torch.float64))\n"),
    Shape("first-call-raises", "def P_f(x):\n    if x.shape[0] > 3:\n"
                               "        raise ValueError('too long')\n    return x.sin()\n",
          "P_f(torch.ones(5))"),
    Shape("lambda-callee", f"P_g = lambda x: ({BREAK}, x + 1)[1]\n"
                           "def P_f(x):\n    return P_g(x.sin()).cos()\n",
          "P_f(torch.randn(4))"),
    Shape("user-compiled-callee", "@torch.compile(backend='nbc_truth_count')\n"
                                  f"def P_g(x):\n    {BREAK}\n    return x + 1\n"
                                  "def P_f(x):\n    return P_g(x.sin()).cos()\n",
          "P_f(torch.randn(4))"),
    Shape("module-no-break", "class P_M(torch.nn.Module):\n    def __init__(self):\n"
                             "        super().__init__()\n"
                             "        self.lin = torch.nn.Linear(3, 3)\n"
                             "    def forward(self, x):\n        return self.lin(x).relu()\n"
                             "P_m = P_M()\n", "P_m(torch.randn(2, 3))",
          compiled=["m"], target="m"),
    Shape("module-nested-break", f"def P_helper(x):\n    {BREAK}\n    return x + 1\n"
                                 "class P_M(torch.nn.Module):\n    def __init__(self):\n"
                                 "        super().__init__()\n"
                                 "        self.lin = torch.nn.Linear(3, 3)\n"
                                 "    def forward(self, x):\n"
                                 "        return P_helper(self.lin(x)).relu()\n"
                                 "P_m = P_M()\n", "P_m(torch.randn(2, 3))",
          compiled=["m"], target="m"),
    Shape("module-break-in-forward",
          "class P_M(torch.nn.Module):\n    def __init__(self):\n"
          "        super().__init__()\n        self.lin = torch.nn.Linear(3, 3)\n"
          f"    def forward(self, x):\n        x = self.lin(x)\n        {BREAK}\n"
          "        return x.relu()\nP_m = P_M()\n", "P_m(torch.randn(2, 3))",
          compiled=["m"], target="m"),
    Shape("module-nested-break-recompile", f"def P_helper(x):\n    {BREAK}\n    return x + 1\n"
                                           "class P_M(torch.nn.Module):\n"
                                           "    def forward(self, x):\n"
                                           "        return P_helper(x * 2).relu()\n"
                                           "P_m = P_M()\n",
          "P_m(torch.randn(2, 3))\nP_m(torch.randn(2, 3, dtype=torch.float64))\n",
          compiled=["m"], target="m"),
    Shape("function-calls-module-with-break",
          "def P_f(x):\n    return P_m(x.sin()).cos()\n", "P_f(torch.randn(2, 3))",
          setup="class P_M(torch.nn.Module):\n    def __init__(self):\n"
                "        super().__init__()\n        self.lin = torch.nn.Linear(3, 3)\n"
                f"    def forward(self, x):\n        x = self.lin(x)\n        {BREAK}\n"
                "        return x.relu()\nP_m = P_M()\n"),
]


@dataclass
class Seen:
    graphs: int
    breaks: int
    frames: int
    frames_ok: int
    raised: str | None
    recompiles: int = 0  # frame compiles after a frame's first (compile id ``n/1`` on)


def _named(text: str, prefix: str) -> str:
    return re.sub(r"\bP_", prefix, text)


def _flags_kwargs(flags: str) -> dict:
    kwargs: dict = {"backend": BACKEND}
    if "--fullgraph" in flags:
        kwargs["fullgraph"] = True
    if "--no-dynamic" in flags:
        kwargs["dynamic"] = False
    elif "--dynamic" in flags:
        kwargs["dynamic"] = True
    return kwargs


class TraceRecord(logging.Handler):
    """torch's structured trace, read raw (not through nbcompile's parsers): per frame
    compile, whether it failed and how many graph-break reasons it logged."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.compiles: dict[tuple, dict] = {}

    def emit(self, record: logging.LogRecord) -> None:
        meta = getattr(record, "metadata", None)
        if not isinstance(meta, dict) or "frame_id" not in meta:
            return
        key = (meta["frame_id"], meta.get("frame_compile_id"), meta.get("attempt", 0))
        entry = self.compiles.setdefault((key[0], key[1]), {"breaks": 0, "failed": False})
        if "dynamo_start" in meta:
            entry.update(breaks=0, failed=False)  # a restarted attempt starts over
        elif meta.get("artifact", {}).get("name") == "dynamo_graph_break_reason":
            entry["breaks"] += 1
        elif "compilation_metrics" in meta:
            entry["failed"] = bool(meta["compilation_metrics"].get("fail_type"))


def _measure(ip, call: str) -> Seen:
    graphs = _graphs[0]
    trace = TraceRecord()
    logger = logging.getLogger("torch.__trace")
    logger.addHandler(trace)
    try:
        result = ip.run_cell(call, silent=True)
    finally:
        logger.removeHandler(trace)
    error = result.error_in_exec
    compiled = trace.compiles.values()
    return Seen(_graphs[0] - graphs,
                sum(c["breaks"] for c in compiled if not c["failed"]),
                len(compiled), sum(1 for c in compiled if not c["failed"]),
                type(error).__name__ if error is not None else None,
                sum(1 for key in trace.compiles if key[1]))


def _plain_run(ip, shape: Shape, prefix: str) -> Seen:
    if shape.setup:
        ip.run_cell(_named(shape.setup, prefix)).raise_error()
    ip.run_cell(_named(shape.source, prefix)).raise_error()
    kwargs = ", ".join(f"{k}={v!r}" for k, v in _flags_kwargs(shape.flags).items())
    for name in shape.compiled:
        full = prefix + name
        if isinstance(ip.user_ns[full], torch.nn.Module):
            ip.run_cell(f"{full}.compile({kwargs})").raise_error()
        else:
            ip.run_cell(f"{full} = torch.compile({full}, {kwargs})").raise_error()
    return _measure(ip, _named(shape.call, prefix))


def _nbcompile_run(ip, shape: Shape, prefix: str) -> tuple[Seen, nbcompile.CompileReport]:
    if shape.setup:
        ip.run_cell(_named(shape.setup, prefix)).raise_error()
    only = ",".join(prefix + n for n in shape.compiled)
    ip.run_cell_magic("compile", f"--backend {BACKEND} --only {only} {shape.flags}",
                      _named(shape.source, prefix))
    seen = _measure(ip, _named(shape.call, prefix))
    return seen, nbcompile.report(ip.user_ns[prefix + shape.target])


@pytest.fixture(scope="module")
def shell(ip):
    ip.run_cell("import torch").raise_error()
    return ip


@pytest.mark.parametrize("shape", SHAPES, ids=[s.id for s in SHAPES])
def test_report_matches_torch(shell, shape: Shape):
    index = SHAPES.index(shape)
    plain = _plain_run(shell, shape, f"pl{index}_")
    seen, report = _nbcompile_run(shell, shape, f"nb{index}_")
    # the same program: torch did the same in both runs (a module target has one more
    # frame, nbcompile's entry, which makes no graph when forward breaks: its report
    # lists the frames module.compile() compiles, no more)
    assert seen.graphs == plain.graphs and seen.raised == plain.raised, (seen, plain)

    compiles = report.compiles
    failed = [c for c in compiles if c.status == "failed"]
    got = {
        "graphs": report.graph_count,
        "breaks": sum(len(c.graph_breaks) for c in compiles if c.status == "ok"),
        "frames": len(compiles),
        "frames_ok": len(compiles) - len(failed),
        "recompiles": len(report.recompiles),
    }
    want = {"graphs": plain.graphs, "breaks": plain.breaks, "frames": plain.frames,
            "frames_ok": plain.frames_ok, "recompiles": plain.recompiles}
    assert got == want, [(c.compile_id, c.frame, c.status, len(c.graphs),
                          len(c.graph_breaks)) for c in report.compiles]

    dynamo_error = torch._dynamo.exc.TorchDynamoException
    compile_error = plain.raised is not None and issubclass(
        getattr(torch._dynamo.exc, plain.raised, type(None)), dynamo_error)
    if compile_error:
        assert report.status == "failed", report.status
        assert report.error is not None and report.error.type == plain.raised, report.error
    else:
        assert report.status == ("compiled" if plain.graphs else "not_compiled"), report.status
        assert report.error is None, report.error
