"""Layering of the rendering code: ``core/`` never imports ``display/``, and the modules
of ``display/`` import each other without cycles (lazy imports inside functions count)."""

from __future__ import annotations

import ast
from pathlib import Path

import nbcompile

PACKAGE = Path(nbcompile.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every ``nbcompile`` module that ``path`` imports, anywhere in the file."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("nbcompile")}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("nbcompile"):
                found.add(target)
                found |= {f"{target}.{a.name}" for a in node.names}  # from .x import module
    return found


def _graph(package: str) -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in (PACKAGE / package.split(".")[-1]).glob("*.py")}
    return {m: _imports(p) & set(modules) for m, p in modules.items()}


def test_core_imports_nothing_from_display():
    for path in (PACKAGE / "core").glob("*.py"):
        bad = sorted(m for m in _imports(path) if m.startswith("nbcompile.display"))
        assert not bad, f"{path.name} imports {bad}"


def test_display_modules_have_no_import_cycle():
    graph = _graph("nbcompile.display")
    state: dict[str, str] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = "open"
        for dep in sorted(graph[module]):
            if dep == "nbcompile.display":
                continue  # the package __init__ only re-exports
            assert state.get(dep) != "open", " -> ".join(path + [module, dep])
            if dep not in state:
                visit(dep, path + [module])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [])
    assert graph["nbcompile.display.text"] == set()  # the shared leaf
