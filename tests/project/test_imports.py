"""Layering checks on nbcompile's own imports (read with ``ast``, nothing is imported)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support import ROOT

PACKAGE = ROOT / "nbcompile"

#: Edges being removed by other work in progress, each named (never the whole check);
#: none left since main dropped core/timing -> display and the display/ cycle.
KNOWN_EDGES: set[tuple[str, str]] = set()


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, type_only: bool = True) -> set[str]:
    """Every nbcompile module ``path`` imports, at any depth (function-level too); imports
    under ``if TYPE_CHECKING:`` count too unless ``type_only`` is False (a type-only edge
    is still a dependency between two halves of one design)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(), str(path))
    for node in (ast.walk(tree) if type_only else _runtime_nodes(tree)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("nbcompile"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if not module.startswith("nbcompile"):
                continue
            found.add(module)
            found.update(f"{module}.{a.name}" for a in node.names)  # from . import compile_diff
    return found


def _runtime_nodes(tree: ast.AST):
    """``ast.walk`` without the bodies of ``if TYPE_CHECKING:`` blocks."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))


def import_graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = {m for m in imports_of(path) if m in modules and m != name}
        graph[name] = {t for t in targets if (name, t) not in KNOWN_EDGES}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_graph_sees_relative_and_function_level_imports():
    graph = import_graph()
    assert "nbcompile.core.records" in graph["nbcompile.core.notebook.capture.session"] or any(
        "nbcompile.core" in m for m in graph["nbcompile.core.notebook.capture.session"])
    assert "nbcompile.core.frames" in graph["nbcompile.core.trace.kernel_lines"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycles():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_core_imports_no_display_magics_or_ipython():
    for path in (PACKAGE / "core").rglob("*.py"):
        name = module_name(path)
        bad = sorted(m for m in imports_of(path)
                     if m.startswith(("nbcompile.display", "nbcompile.magics"))
                     and (name, m.rpartition(".")[0]) not in KNOWN_EDGES
                     and (name, m) not in KNOWN_EDGES)
        tree = ast.parse(path.read_text())
        bad += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import)
                for a in n.names if a.name.split(".")[0] in ("IPython", "ipykernel")]
        bad += [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                and not n.level and (n.module or "").split(".")[0] in ("IPython", "ipykernel")]
        assert not bad, f"{name} imports {bad}"


#: core's subsystems from the ground floor up: a package may import only from the ones
#: before it (and from core's top-level modules: ``records``, ``frames``).
CORE_LAYERS = ["trace", "logs", "insight", "runs", "notebook", "perf", "compiletime", "fixes",
               "diagnosis", "repro"]
#: Same floor, no edges between them.
SIBLINGS = {("logs", "insight"), ("insight", "logs")}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] != ["nbcompile", "core"] or len(parts) < 4:
        return None
    return parts[2] if parts[2] in CORE_LAYERS else None


def test_core_subsystems_depend_one_way():
    graph = import_graph()
    bad = []
    for name, targets in graph.items():
        here = _layer(name)
        if here is None:
            continue
        for t in targets:
            there = _layer(t)
            if there is None or there == here:
                continue
            if (CORE_LAYERS.index(there) > CORE_LAYERS.index(here)
                    or (here, there) in SIBLINGS):
                bad.append(f"{name} -> {t}")
    assert not bad, "core imports against the layer order " + " > ".join(CORE_LAYERS) \
        + ":\n" + "\n".join(sorted(bad))


def test_core_top_level_stays_small():
    top = sorted(p.name for p in (PACKAGE / "core").glob("*.py") if p.name != "__init__.py")
    assert len(top) <= 6, top
