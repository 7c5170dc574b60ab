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
and a name alone on such a tensor that a later replay wrote (``written_names``).
torch's state is read through ``trees.py`` and ``torch_mark``; the rest is pure.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from ...frames import is_entry_file, is_torch_file
from . import trees
from .ledger import Ledger, tensor_leaves

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


@dataclass(frozen=True)
class Explanation:
    """torch's error on reading an overwritten output, explained."""

    names: tuple[Overwritten, ...]  # the names it can be (the one whose text matches first)
    overwritten_in: int | None  # the cell whose call overwrote them (None: not seen)
    calls: tuple[str, ...]  # that call's functions
    message: TorchMessage


@dataclass(frozen=True)
class Shared:
    """One user name holding a CUDA-graph output another name holds too."""

    name: str  # ``y1``, ``preds[0]``
    bound_in: int | None  # execution count of the cell that bound it (None: not known)


@dataclass(frozen=True)
class SharedReport:
    """Names that hold one tensor a recorded CUDA graph hands back at every replay
    (``CUDAGraphNode.reconstruct_outputs`` returns the same tensor object while one is
    alive, and the replay writes into it, with no mark and no error): each group, reported
    at the cell after which they were first seen together."""

    cell: int | None
    groups: tuple[tuple[Shared, ...], ...]
    producers: tuple[str, ...] = ()  # the functions whose outputs they are ("" not known)
    # names alone on such a tensor that a later replay wrote (``written_names``)
    written: tuple[Shared, ...] = ()


def shared_outputs(leaves: list[tuple[str, torch.Tensor]], outputs: set[int],
                   ledger: Ledger, reported: set[frozenset[str]]
                   ) -> list[tuple[Shared, ...]]:
    """The groups of names (two or more) whose tensor is one and the same graph output
    (``outputs``: ids of the tensors the trees hand back), on evidence that a replay made
    them one: names first seen in different generations of the trees (``y2 = y1`` in a
    cell with no call between is the user's own alias), or several items of one container
    (``[f(b) for b in batches]``). Each group once (``reported``, updated), each name with
    the cell that bound it (the ledger noted the leaves first)."""
    by_tensor: dict[int, list[tuple[str, torch.Tensor]]] = {}
    for name, value in leaves:
        if id(value) in outputs:
            by_tensor.setdefault(id(value), []).append((name, value))
    groups: list[tuple[Shared, ...]] = []
    for members in by_tensor.values():
        key = frozenset(name for name, _ in members)
        if len(members) < 2 or key in reported:
            continue
        bindings = [ledger.binding(name, value) for name, value in members]
        generations = {b.generation for b in bindings if b is not None} - {None}
        containers = {name.split("[", 1)[0] for name, _ in members if "[" in name}
        one_container = len(containers) == 1 and all("[" in name for name, _ in members)
        if len(generations) < 2 and not one_container:
            continue
        reported.add(key)
        groups.append(tuple(Shared(name, b.cell if b is not None else None)
                            for (name, _), b in zip(members, bindings, strict=True)))
    return groups


def written_names(leaves: list[tuple[str, torch.Tensor]], generation: int | None,
                  replayed: set[int], ledger: Ledger) -> list[Shared]:
    """The names, each alone on its tensor, whose tensor a replay wrote after the name was
    bound: an output of an inference graph on the trees' current path (``replayed``, from
    ``trees.replayed_path``) whose run (``generation``) came after the generation in which
    the name was first seen holding it (``Binding.generation``). ``y1 = f(x)``, then
    ``loss = f(x2).sum()`` in a later cell: ``y1`` holds ``f(x2)`` now. Each name once."""
    if generation is None or not replayed:
        return []
    holders: dict[int, int] = {}
    for _, value in leaves:
        holders[id(value)] = holders.get(id(value), 0) + 1
    found: list[Shared] = []
    for name, value in leaves:
        if id(value) not in replayed or holders[id(value)] > 1:
            continue  # several names on one tensor: ``shared_outputs`` says it
        binding = ledger.binding(name, value)
        if (binding is None or binding.written or binding.generation is None
                or generation <= binding.generation):
            continue
        binding.written = True
        found.append(Shared(name, binding.cell))
    return found


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

    def before_cell(self) -> None:
        """Before a cell (the caller checked ``in_use``): the trees' generation noted."""
        self._generation_before = trees.generation()
        self._overwritten_by.clear()

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
            index = torch.cuda.current_device()
            root = next(iter(call_names(trees.generation_stacks(index)[:1], resolve)), "")
        seen = dict(self._overwritten_by)
        found = newly_overwritten(leaves, marks, self.ledger, cell,
                                  lambda value: overwriter(value, seen, generations, root))
        self._overwritten_by.clear()
        if not found:
            return None
        calls = tuple(dict.fromkeys(o.by for o in found if o.by))
        report = HazardReport(cell, tuple(found), calls, generations)
        self.reports = [*self.reports[-(MAX_KEPT - 1):], report]
        return report

    def shared_after_cell(self, cell: int | None, namespace: Mapping[str, Any],
                          outputs: Mapping[int, str] | None = None,
                          generation: int | None = None,
                          resolve: Callable[[str, int], str | None] = lambda f, line: None,
                          replayed: set[int] | None = None) -> SharedReport | None:
        """After a cell: the names that now hold one CUDA-graph output together, once
        per group, each with the cell that bound it, and the names alone on an output a
        later replay wrote (``written_names``); None when none.
        ``outputs``, ``generation`` and ``replayed``: the graph outputs' ids (each with the
        function that produced it), the generation of the trees' latest run and the
        outputs its inference path hands back (read from the current device's tree manager
        when not given)."""
        return self._shared_leaves(cell, list(tensor_leaves(namespace)), outputs, generation,
                                   resolve, replayed)

    def _shared_leaves(self, cell: int | None, leaves: list[tuple[str, torch.Tensor]],
                       outputs: Mapping[int, str] | None, generation: int | None,
                       resolve: Callable[[str, int], str | None],
                       replayed: set[int] | None = None) -> SharedReport | None:
        if outputs is None:
            if not torch.cuda.is_available():
                return None
            index = torch.cuda.current_device()
            outputs = {i: (next(iter(call_names([t], resolve)), ""))
                       for i, t in trees.graph_outputs(index).items()}
            generation = trees.last_run_generation(index)
            replayed = trees.replayed_path(index)
        generation = generation if isinstance(generation, int) else None
        written = written_names(leaves, generation, replayed or set(), self.ledger)
        for name, value in leaves:
            binding = self.ledger.note(name, value, cell)
            if binding.generation is None and id(value) in outputs:
                binding.generation = generation
        groups = shared_outputs(leaves, set(outputs), self.ledger, self._shared_seen)
        if not groups and not written:
            return None
        values = dict(leaves)
        producers = tuple(dict.fromkeys(
            [*(outputs.get(id(values[g[0].name]), "") for g in groups),
             *(outputs.get(id(values[w.name]), "") for w in written)]))
        report = SharedReport(cell, tuple(groups), producers, tuple(written))
        self.shared = [*self.shared[-(MAX_KEPT - 1):], report]
        return report

    def explain(self, error_text: str, namespace: Mapping[str, Any]) -> Explanation | None:
        """torch's error in a later cell, explained (None for any other error)."""
        if not is_overwritten_error(error_text):
            return None
        leaves = list(tensor_leaves(namespace))
        found = explain(error_text, leaves, self._marks(leaves), self.ledger)
        if found is not None:
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
