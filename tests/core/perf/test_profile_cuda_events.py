"""``%kprun``'s matching of launches to captured kernels, on profiler events shaped as
``torch.profiler`` builds them on a CUDA device (pure logic; runs on a CPU).

The events are torch's own ``FunctionEvent``s, linked the way
``torch.autograd.profiler.profile._parse_kineto_results`` links kineto's events: a CUDA
kernel (``device_type=CUDA``) and the ``cudaLaunchKernel``/``cuLaunchKernel`` runtime event
(``device_type=CPU``) are linked (kineto's ``linked_correlation_id``) to the
``correlation_id`` (the ``FunctionEvent.id``) of the innermost op open at the launch; the
kernel is appended to that op (``append_kernel``), the runtime event takes its thread;
``EventList._build_tree`` then nests CPU events by time per thread (``cpu_children``).
The names are those torch gives: ``aten::mm`` for Inductor's ``extern_kernels.mm(...,
out=buf)``, the Triton kernel's own name for its launch (``CachingAutotuner._pre_launch``),
``## Call CompiledFxGraph None ##`` for every graph call when caches are off, the backward
on the autograd engine's device thread."""

from __future__ import annotations

from torch._C._autograd import DeviceType
from torch.autograd.profiler_util import EventList, FunctionEvent

from nbcompile.core.perf.kernel_events import KernelRows, graph_calls
from nbcompile.core.records import Kernel, SourceLine

CELL = "<ipython-input-3-train>"
MAIN, AUTOGRAD = 101, 202  # the caller's thread, the autograd engine's CUDA thread
GEMM = "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1"


class _Recording:
    """Kineto's events of one profiled step, then linked as ``_parse_kineto_results``."""

    def __init__(self) -> None:
        self.events: list[FunctionEvent] = []
        # kineto's correlation: event id -> the op's id (torch 2.9's FunctionEvent does not
        # carry it; ``_parse_kineto_results`` reads it from kineto's event)
        self.linked: dict[int, int] = {}
        self.next_id = 1

    def op(self, name: str, start: float, end: float, thread: int = MAIN) -> int:
        """A frontend CPU event (an aten op, a ``record_function`` range): linked id 0."""
        self.next_id += 1
        self.events.append(FunctionEvent(id=self.next_id, name=name, thread=thread,
                                         start_us=start, end_us=end, use_device="cuda",
                                         device_type=DeviceType.CPU))
        return self.next_id

    def launch(self, op: int, kernel: str, at: float, device_us: float,
               api: str = "cudaLaunchKernel") -> None:
        """The runtime call inside ``op`` and the kernel it ran on the device later."""
        self.next_id += 1
        self.events.append(FunctionEvent(id=self.next_id, name=api, thread=999,
                                         start_us=at, end_us=at + 3, use_device="cuda",
                                         device_type=DeviceType.CPU))
        self.linked[self.next_id] = op
        self.next_id += 1
        self.events.append(FunctionEvent(id=self.next_id, name=kernel, thread=7,
                                         start_us=at + 40, end_us=at + 40 + device_us,
                                         use_device="cuda", device_type=DeviceType.CUDA))
        self.linked[self.next_id] = op

    def built(self) -> EventList:
        frontend = {e.id: e for e in self.events if e.id not in self.linked}
        for e in self.events:
            op = frontend.get(self.linked.get(e.id, 0))
            if op is None:
                continue
            if e.device_type == DeviceType.CUDA:
                op.append_kernel(e.name, e.device_index,
                                 e.time_range.end - e.time_range.start)
            else:
                e.thread = op.thread
        events = EventList(self.events, use_device="cuda")
        events._build_tree()
        return events


def _step() -> EventList:
    """One training step of ``Linear(64, 64)`` + relu on a GPU: the forward's graph (an
    ``addmm`` and a Triton relu) on the caller's thread, the backward's (two ``mm`` and
    two Triton kernels) on the autograd thread."""
    r = _Recording()
    r.op("nbcompile.profile.call", 0, 900)
    r.op("Torch-Compiled Region: 0/0", 10, 300)
    r.op("## Call CompiledFxGraph None ##", 50, 250)
    addmm = r.op("aten::addmm", 60, 150)
    r.launch(addmm, GEMM, 100, device_us=30.0)
    relu = r.op("triton_poi_fused_relu_0", 160, 200)
    r.launch(relu, "triton_poi_fused_relu_0", 170, device_us=4.0, api="cuLaunchKernel")
    r.op("autograd::engine::evaluate_function: CompiledFunctionBackward", 400, 800,
         AUTOGRAD)
    r.op("CompiledFunctionBackward", 410, 790, AUTOGRAD)
    r.op("## Call CompiledFxGraph None ##", 420, 780, AUTOGRAD)
    thr = r.op("triton_poi_fused_threshold_backward_0", 430, 470, AUTOGRAD)
    r.launch(thr, "triton_poi_fused_threshold_backward_0", 440, device_us=5.0,
             api="cuLaunchKernel")
    mm1 = r.op("aten::mm", 480, 560, AUTOGRAD)
    r.launch(mm1, GEMM, 500, device_us=31.0)
    mm2 = r.op("aten::mm", 570, 650, AUTOGRAD)
    r.launch(mm2, GEMM, 590, device_us=29.0)
    red = r.op("triton_per_fused_sum_1", 660, 700, AUTOGRAD)
    r.launch(red, "triton_per_fused_sum_1", 670, device_us=6.0, api="cuLaunchKernel")
    return r.built()


def _kernel(name: str, kind: str, stage: str, lineno: int) -> Kernel:
    return Kernel(name=name, language="triton" if kind == "kernel" else "python", source="",
                  kind=kind, compile_id="0/0", stage=stage,  # type: ignore[arg-type]
                  lines=[SourceLine(CELL, lineno)])


def _captured() -> dict[tuple[str, str], list[Kernel]]:
    """What the capture engine records of the same compile (``split_kernels``' order:
    generated kernels, then externs in launch order)."""
    return {
        ("0/0", "forward"): [_kernel("triton_poi_fused_relu_0", "kernel", "forward", 3),
                             _kernel("extern_kernels.addmm", "extern", "forward", 2)],
        ("0/0", "backward"): [
            _kernel("triton_poi_fused_threshold_backward_0", "kernel", "backward", 3),
            _kernel("triton_per_fused_sum_1", "kernel", "backward", 2),
            _kernel("extern_kernels.mm", "extern", "backward", 2),
            _kernel("extern_kernels.mm", "extern", "backward", 2)],
    }


def test_torch_links_each_gemm_to_its_aten_op():
    """The precondition, from torch's own linking: an extern matmul's device time is on its
    ``aten::mm`` event, a Triton kernel's on its launch event."""
    events = _step()
    mms = [e for e in events if e.name == "aten::mm"]
    assert [e.device_time_total for e in mms] == [31.0, 29.0]
    assert [k.name for e in mms for k in e.kernels] == [GEMM, GEMM]
    calls = [e for e in events if e.name.startswith("## Call CompiledFxGraph")]
    assert [c.thread for c in calls] == [MAIN, AUTOGRAD]
    assert [c.name for c in calls[1].cpu_children] == [
        "triton_poi_fused_threshold_backward_0", "aten::mm", "aten::mm",
        "triton_per_fused_sum_1"]


def test_backward_extern_matmuls_are_matched_with_their_device_time():
    rows = KernelRows(_captured(), CELL)
    events = list(_step())
    calls = graph_calls(events, rows.extern_ops, rows.kernel_names)
    assert len(calls) == 2
    for call in calls:
        rows.add(call)
    by = {(r.stage, r.name, r.kind): r for r in rows.rows.values() if r.kind != "other"}
    mms = [r for r in rows.rows.values() if r.name == "extern_kernels.mm"]
    # both backward matmuls: their own extern kernel, stage and line, each its device time
    assert len(mms) == 2 and all(r.stage == "backward" and r.kind == "extern"
                                 and r.lines == [2] and r.calls == 1 for r in mms)
    assert sorted(round(r.total_s * 1e6, 3) for r in mms) == [29.0, 31.0]
    addmm = by[("forward", "extern_kernels.addmm", "extern")]
    assert round(addmm.total_s * 1e6, 3) == 30.0 and addmm.lines == [2]
    # the Triton kernels are kernels of their graph (not 'other'), with their device time
    relu = by[("forward", "triton_poi_fused_relu_0", "kernel")]
    assert round(relu.total_s * 1e6, 3) == 4.0 and relu.lines == [3]
    assert ("backward", "triton_per_fused_sum_1", "kernel") in by
    assert not [r for r in rows.rows.values() if r.kind == "other"]
    # the rows' device time is the device's: the kernels torch linked, nothing else
    device = sum(e.time_range.end - e.time_range.start for e in events
                 if e.device_type == DeviceType.CUDA)
    assert round(sum(r.total_s for r in rows.rows.values()) * 1e6, 3) == device


def test_a_backward_of_externs_only_is_told_from_the_forward_by_its_externs():
    """No generated kernel in either graph (``Linear(bias=False)``): the extern ops alone
    tell the backward's graph call (two ``mm``) from the forward's (one)."""
    captured = {("0/0", "forward"): [_kernel("extern_kernels.mm", "extern", "forward", 2)],
                ("0/0", "backward"): [_kernel("extern_kernels.mm", "extern", "backward", 2),
                                      _kernel("extern_kernels.mm", "extern", "backward", 2)]}
    rows = KernelRows(captured, CELL)
    assert rows.group_for("## Call CompiledFxGraph None ##", [], ["mm"]) == ("0/0", "forward")
    assert rows.group_for("## Call CompiledFxGraph None ##", [], ["mm", "mm"]) == (
        "0/0", "backward")
