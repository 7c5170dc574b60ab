"""Names still bound to CUDA-graph outputs that a later call overwrote.

CUDA-graph trees (``torch/_inductor/cudagraph_trees.py``) give a graph's outputs memory in
their private pool and reuse it at the next replay. When a compiled function is called
again in a new generation (a new ``torch.compile`` invocation), the tree manager's
``dealloc_current_path_weakrefs`` frees the outputs of the previous one that are still
alive and marks them: ``torch._C._set_storage_access_error_msg`` on each output tensor and
``_set_storage_data_ptr_access_error_msg`` on each live storage, with the text of its
``format_dealloc_msg`` ("Error: accessing tensor output of CUDAGraphs that has been
overwritten by a subsequent run. Stack trace: ..."). Reading such a tensor raises
``RuntimeError`` with that text (pytorch#148439). In a notebook that is the common case:
``y1 = f(x)`` in one cell, ``f(x)`` again in a later one.

After each cell (told by ``magics/``; core never imports IPython), when a target of the
session asked for CUDA graphs and CUDA is available, ``HazardWatch.after_cell`` reads
torch's mark on the CUDA tensors the user's names hold (``data_ptr()`` raises with torch's
text: no storage object is made, nothing changes their liveness) and names, once each, the
ones overwritten in that cell, with the cell that bound them and the call that overwrote
them (the functions of the tree manager's current path, from the stack traces torch kept
for their outputs). ``explain`` says the same when torch's error comes later.

A replay marks nothing: a recorded graph hands back the very tensor object it returned
before (while the user holds it) and writes the new values into it. ``y1 = f(x)`` then
``y2 = f(x2)``: ``y1 is y2``, and ``y1`` silently holds the new values; ``[f(b) for b in
batches]`` holds one tensor many times. ``shared_after_cell`` names such groups (user
names holding one tensor that the trees hand back, ``trees.graph_outputs``), once each,
and a name alone on such a tensor that a later replay wrote (``written_names``): a replay
is known per recorded graph (the latest run's graph, or the replays watched calls
counted), never inferred from the path, and the generation is compared for equality only
(torch's ``cudagraph_mark_step_begin`` counts it down). Every graph device's trees are
read, not only the current device's. torch's state is read through ``trees.py`` and
``torch_mark``; the rest is pure.

Each report carries torch's own remedy where the running torch offers one (``cloning.py``:
torch 2.15's ``cudagraph_trees_generation_cloning``, read from its own message). With it
on, torch copies held outputs out of the pool at a new generation: no mark, no cached
output handed back again, nothing said here.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import torch

from ...frames import is_entry_file, is_torch_file
from ..targets import running as target_calls
from . import trees
from .cloning import Cloning
from .cloning import running as torch_cloning
from .ledger import Ledger, tensor_leaves
from .replayed import Shared, SharedReport, shared_outputs, written_names

__all__ = ["Shared", "SharedReport"]  # re-exported: the words' module reads them here

#: The part of torch's text (``CUDAGraphTreeManager.format_dealloc_msg``) shared by the
#: output and gradient-output variants.
MARK = "output of CUDAGraphs that has been overwritten by a subsequent run"
#: Reports and explanations kept (the latest).
MAX_KEPT = 20
_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<fn>[^\s]+)')
_STACK = re.compile(r"Stack trace: (?P<stack>.*?)\. (?:To prevent overwriting|This can happen)",
                    re.S)


@dataclass(frozen=True)
class TorchMessage:
    """torch's text on an overwritten output, read."""

    gradient: bool  # a gradient output (``is_grad_output``)
    stack_trace: str  # where the output was produced, as torch kept it ("" when it had none)

    @property
    def produced_in(self) -> str:
        """The function the output's stack trace ends in (``""`` when not found)."""
        frames = _FRAME.findall(self.stack_trace)
        return frames[-1][2] if frames else ""


@dataclass(frozen=True)
class Overwritten:
    """One user name whose CUDA-graph output was overwritten."""

    name: str  # ``y1``, ``outs[0]``, ``d['k']``
    bound_in: int | None  # execution count of the cell that bound it (None: not known)
    message: TorchMessage
    by: str = ""  # the function whose call overwrote it ("": not known which)


@dataclass(frozen=True)
class HazardReport:
    """The names a cell's call overwrote, reported at that cell."""

    cell: int | None  # execution count of the cell whose call overwrote them
    names: tuple[Overwritten, ...]  # each with the call that overwrote it, when known
    # the functions whose calls overwrote them, in order (empty: not known which)
    calls: tuple[str, ...]
    # the trees' generations the cell started (compiled calls, or the user's mark steps):
    # with more than one, an output not seen overwritten by a watched call is not blamed
    generations: int | None = None
    # torch's own setting that keeps such outputs (its message offers it; None: none)
    cloning: Cloning | None = None


@dataclass(frozen=True)
class Explanation:
    """torch's error on reading an overwritten output, explained."""

    names: tuple[Overwritten, ...]  # the names it can be (the one whose text matches first)
    overwritten_in: int | None  # the cell whose call overwrote them (None: not seen)
    calls: tuple[str, ...]  # that call's functions
    message: TorchMessage
    cloning: Cloning | None = None  # torch's own setting that keeps such outputs


def is_overwritten_error(text: str) -> bool:
    """Whether ``text`` is torch's error on an overwritten CUDA-graph output."""
    return MARK in text


def parse_message(text: str) -> TorchMessage | None:
    """torch's text (``format_dealloc_msg``) read: gradient or not, its stack trace; None
    for any other text."""
    if not is_overwritten_error(text):
        return None
    found = _STACK.search(text)
    stack = found.group("stack").strip() if found else ""
    if stack == "[Could not find stack trace]":
        stack = ""
    return TorchMessage("gradient tensor output of CUDAGraphs" in text, stack)


def newly_overwritten(leaves: list[tuple[str, torch.Tensor]], marks: Mapping[int, str],
                      ledger: Ledger, cell: int | None,
                      by: Callable[[torch.Tensor], str] = lambda _: ""
                      ) -> list[Overwritten]:
    """The names whose tensor carries torch's mark (``marks``: ``id(tensor)`` -> torch's
    text) not reported before, each noted as overwritten in ``cell`` by the call ``by``
    names ("": not known); every other name's binding noted. A name first seen now was
    bound in this cell."""
    found: list[Overwritten] = []
    for name, value in leaves:
        binding = ledger.note(name, value, cell)
        text = marks.get(id(value))
        if text is None or binding.reported:
            continue
        message = parse_message(text)
        if message is None:
            continue
        caller = by(value)
        binding.reported, binding.overwritten_in = True, cell
        binding.calls = (caller,) if caller else ()
        found.append(Overwritten(name, binding.cell, message, caller))
    ledger.keep_only({name for name, _ in leaves})
    return found


def explain(error_text: str, leaves: list[tuple[str, torch.Tensor]],
            marks: Mapping[int, str], ledger: Ledger) -> Explanation | None:
    """torch's error explained: the names whose tensor carries the same text (the same
    output), else every overwritten name; the cell that bound each and the call that
    overwrote them, as the ledger noted. None for any other error."""
    message = parse_message(error_text)
    if message is None:
        return None
    marked = [(name, value, parse_message(marks[id(value)]))
              for name, value in leaves if id(value) in marks]
    same = [m for m in marked if m[2] == message] or marked
    names: list[Overwritten] = []
    cell: int | None = None
    calls: tuple[str, ...] = ()
    for name, value, _ in same:
        binding = ledger.binding(name, value)
        names.append(Overwritten(name, binding.cell if binding else None, message))
        if binding is not None and binding.overwritten_in is not None and cell is None:
            cell, calls = binding.overwritten_in, binding.calls
    return Explanation(tuple(names), cell, calls, message)


def overwriter(value: torch.Tensor, seen: Mapping[int, tuple[weakref.ref[torch.Tensor], str]],
               generations: int | None, root: str) -> str:
    """The call that overwrote ``value``: the one a watched call saw marking it (``seen``),
    else, when the cell started exactly one generation of the trees, the call that started
    it (``root``: torch marks the previous generation's outputs when a new one starts,
    ``dealloc_current_path_weakrefs``); else "" (not known which)."""
    found = seen.get(id(value))
    if found is not None and found[0]() is value:
        return found[1]
    return root if generations == 1 else ""


def call_names(stacks: list[list[str | None]], resolve: Callable[[str, int], str | None]
               ) -> tuple[str, ...]:
    """The functions of the calls on the tree manager's current path (``stacks``: per
    node, the stack traces torch kept for its outputs, ``ids_to_stack_traces``): each
    node's outermost frame that ``resolve(filename, line)`` names (the user's name of a
    target), else its outermost user frame's function (nbcompile's entry functions and
    torch's files left out); each once, in order."""
    names: list[str] = []
    for node in stacks:
        frames = [f for trace in node if trace for f in _FRAME.findall(trace)
                  if not is_entry_file(f[0]) and not is_torch_file(f[0])]
        if not frames:
            continue
        name = next((found for file, line, _ in frames
                     if (found := resolve(file, int(line))) is not None), frames[0][2])
        if name not in names:
            names.append(name)
    return tuple(names)


# --- torch's mark on a tensor (CUDA only) -----------------------------------------------------


def torch_mark(value: torch.Tensor) -> str | None:
    """torch's text on a tensor it marked as an overwritten CUDA-graph output
    (``data_ptr()`` raises it: a tensor-level mark has no storage, a storage-level one
    throws on its data), else None. Makes no storage object."""
    try:
        value.data_ptr()
    except Exception as e:  # noqa: BLE001 - any tensor subclass's refusal: not torch's mark
        text = str(e)
        return text if isinstance(e, RuntimeError) and is_overwritten_error(text) else None
    return None


@dataclass
class HazardWatch:
    """The kernel's watch: the ledger, and the latest reports and explanations."""

    ledger: Ledger = field(default_factory=Ledger)
    reports: list[HazardReport] = field(default_factory=list)
    explained: list[Explanation] = field(default_factory=list)
    shared: list[SharedReport] = field(default_factory=list)
    _shared_seen: set[frozenset[str]] = field(default_factory=set)
    # outputs a watched call marked, by id: (the tensor, weakly; the call's function)
    _overwritten_by: dict[int, tuple[weakref.ref[torch.Tensor], str]] = field(
        default_factory=dict)
    _generation_before: int | None = None  # the trees' generation when the cell began
    # per target name, its calls started when the cell began (``calls.counts_by_name``)
    _calls_before: dict[str, int] = field(default_factory=dict)

    def before_cell(self) -> None:
        """Before a cell (the caller checked ``in_use``): the trees' generation and the
        targets' calls noted."""
        self._generation_before = trees.generation()
        self._calls_before = target_calls.counts_by_name()
        self._overwritten_by.clear()

    def calls_in_cell(self) -> dict[str, int]:
        """Per target name, the calls started since the cell began."""
        now = target_calls.counts_by_name()
        return {name: n - self._calls_before.get(name, 0) for name, n in now.items()}

    def call_marked(self, held: list[weakref.ref[torch.Tensor]], call: str) -> None:
        """After a watched call of ``call``: the outputs held before it (``trees.path_outputs``)
        that now carry torch's mark were overwritten by it."""
        for ref in held:
            value = ref()
            if value is not None and torch_mark(value) is not None:
                self._overwritten_by.setdefault(id(value), (ref, call))

    def _marks(self, leaves: list[tuple[str, torch.Tensor]]) -> dict[int, str]:
        marks: dict[int, str] = {}
        for _, value in leaves:
            text = torch_mark(value)
            if text is not None:
                marks[id(value)] = text
        return marks

    def cell_ended(self, cell: int | None, namespace: Mapping[str, Any],
                   resolve: Callable[[str, int], str | None]
                   ) -> tuple[HazardReport | None, SharedReport | None]:
        """After a cell (the caller checked ``in_use``): ``after_cell`` and
        ``shared_after_cell`` over one walk of the namespace."""
        leaves = list(tensor_leaves(namespace))
        return (self._overwritten(cell, leaves, resolve),
                self._shared_leaves(cell, leaves, None, None, resolve))

    def after_cell(self, cell: int | None, namespace: Mapping[str, Any],
                   resolve: Callable[[str, int], str | None]) -> HazardReport | None:
        """After a cell (the caller checked ``in_use``): the names its calls overwrote,
        once each; None when there are none."""
        return self._overwritten(cell, list(tensor_leaves(namespace)), resolve)

    def _overwritten(self, cell: int | None, leaves: list[tuple[str, torch.Tensor]],
                     resolve: Callable[[str, int], str | None]) -> HazardReport | None:
        marks = self._marks(leaves)
        root = ""
        now = trees.generation()
        generations = (now - self._generation_before
                       if now is not None and self._generation_before is not None else None)
        if marks and torch.cuda.is_available() and generations == 1:
            for index in trees.graph_devices():  # the graphs' own devices
                root = next(iter(call_names(trees.generation_stacks(index)[:1], resolve)), "")
                if root:
                    break
        seen = dict(self._overwritten_by)
        found = newly_overwritten(leaves, marks, self.ledger, cell,
                                  lambda value: overwriter(value, seen, generations, root))
        self._overwritten_by.clear()
        if not found:
            return None
        calls = tuple(dict.fromkeys(o.by for o in found if o.by))
        report = HazardReport(cell, tuple(found), calls, generations, torch_cloning())
        self.reports = [*self.reports[-(MAX_KEPT - 1):], report]
        return report

    def shared_after_cell(self, cell: int | None, namespace: Mapping[str, Any],
                          outputs: Mapping[int, str] | None = None,
                          generation: int | Mapping[int, int | None] | None = None,
                          resolve: Callable[[str, int], str | None] = lambda f, line: None,
                          replayed: Mapping[int, trees.Replayed] | None = None,
                          runs: Mapping[int, int] | None = None,
                          handed_twice: set[int] | None = None) -> SharedReport | None:
        """After a cell: the names that now hold one CUDA-graph output together, once
        per group, each with the cell that bound it, and the names alone on an output a
        later replay wrote (``written_names``); None when none.
        ``outputs``, ``generation``, ``replayed``, ``runs`` and ``handed_twice``: the graph
        outputs' ids (each with the function that produced it), the generation of the
        latest run of each output's trees (one for all, or by output id), the outputs
        their current paths hand back, each output's node's counted replays, and the
        outputs this cell's calls handed back twice (read from every graph device's tree
        manager when ``outputs`` is not given)."""
        return self._shared_leaves(cell, list(tensor_leaves(namespace)), outputs, generation,
                                   resolve, replayed, runs, handed_twice)

    def _shared_leaves(self, cell: int | None, leaves: list[tuple[str, torch.Tensor]],
                       outputs: Mapping[int, str] | None,
                       generation: int | Mapping[int, int | None] | None,
                       resolve: Callable[[str, int], str | None],
                       replayed: Mapping[int, trees.Replayed] | None = None,
                       runs: Mapping[int, int] | None = None,
                       handed_twice: set[int] | None = None) -> SharedReport | None:
        if outputs is None:
            if not torch.cuda.is_available():
                return None
            read: dict[int, str] = {}
            generations: dict[int, int | None] = {}
            paths: dict[int, trees.Replayed] = {}
            counted: dict[int, int] = {}
            for index in trees.graph_devices():  # each graph's own device's trees
                found = trees.graph_outputs(index)
                read.update({i: (next(iter(call_names([t], resolve)), ""))
                             for i, t in found.items()})
                generations.update(dict.fromkeys(found, trees.last_run_generation(index)))
                paths.update(trees.replayed_path(index))
                counted.update(trees.node_runs(index))
            outputs, generation, replayed, runs = read, generations, paths, counted
            handed_twice = self._handed_twice(paths, read)
        written = written_names(leaves, replayed or {}, self.ledger)
        for name, value in leaves:
            binding = self.ledger.note(name, value, cell)
            if binding.generation is None and id(value) in outputs:
                found_gen = (generation.get(id(value)) if isinstance(generation, Mapping)
                             else generation)
                binding.generation = found_gen if isinstance(found_gen, int) else None
                ran = (replayed or {}).get(id(value))
                binding.runs = (runs or {}).get(id(value), ran.runs if ran else 0)
        groups = shared_outputs(leaves, set(outputs), self.ledger, self._shared_seen,
                                handed_twice or set())
        if not groups and not written:
            return None
        values = dict(leaves)
        producers = tuple(dict.fromkeys(
            [*(outputs.get(id(values[g[0].name]), "") for g in groups),
             *(outputs.get(id(values[w.name]), "") for w in written)]))
        report = SharedReport(cell, tuple(groups), producers, tuple(written),
                              torch_cloning())
        self.shared = [*self.shared[-(MAX_KEPT - 1):], report]
        return report

    def _handed_twice(self, replayed: Mapping[int, trees.Replayed],
                      outputs: Mapping[int, str]) -> set[int]:
        """The outputs this cell's calls handed back at least twice: the latest run's
        graph, run in a generation this cell started, whose function the cell called at
        least twice (the builtin call counter: no per-call cost). The same cached tensor
        is then what both calls returned, unless the calls ran other graphs between."""
        made = self.calls_in_cell()
        now = trees.generation()
        started = (now is not None and self._generation_before is not None
                   and now != self._generation_before)
        return {i for i, ran in replayed.items()
                if ran.latest and started and made.get(outputs.get(i, ""), 0) >= 2}

    def explain(self, error_text: str, namespace: Mapping[str, Any]) -> Explanation | None:
        """torch's error in a later cell, explained (None for any other error)."""
        if not is_overwritten_error(error_text):
            return None
        leaves = list(tensor_leaves(namespace))
        found = explain(error_text, leaves, self._marks(leaves), self.ledger)
        if found is not None:
            found = replace(found, cloning=torch_cloning())
            self.explained = [*self.explained[-(MAX_KEPT - 1):], found]
        return found


def in_use(targets: list[Any], asked_for: Callable[[Any], bool]) -> bool:
    """Whether to watch: CUDA is available (checked first: on a CPU nothing else is
    read) and a live target asked for CUDA graphs (``asked_for(options)``)."""
    if not torch.cuda.is_available():
        return False
    return any(t.alive and asked_for(t.options) for t in targets)


def owners(functions: Iterable[str], targets: Sequence[Any],
           asked_for: Callable[[Any], bool]) -> list[Any]:
    """The live targets asking for CUDA graphs that ``functions`` name (the user's names
    of the calls that produced or overwrote the outputs); all of them when none is named."""
    wanted = [t for t in targets if t.alive and asked_for(t.options)]
    names = set(functions) - {""}
    return [t for t in wanted if t.name in names] or wanted


def keep(target: Any, record: Any) -> None:
    """A hazard's record kept on a target (the latest ``MAX_KEPT``)."""
    target.cudagraph_hazards = [*target.cudagraph_hazards[-(MAX_KEPT - 1):], record]


_watch: HazardWatch | None = None


def get_watch() -> HazardWatch:
    """The process-wide watch (created on first use)."""
    global _watch
    if _watch is None:
        _watch = HazardWatch()
    return _watch
