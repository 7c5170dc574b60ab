"""What a fresh process needs to reproduce a call, read from the code that runs.

The global names the target's code reads (its code objects and their nested code; for a
module, the methods of every class in its module tree), and transitively those of the
notebook's own functions and classes it reaches (``__module__ == "__main__"``), each with
its *current* value in the kernel: a module by its import name; a notebook function or
class by its own definition (the source of the code bound now, from Python's line cache,
checked against that code), its defaults and class attributes as they are now; any other
value pickled. What cannot be carried is said as "``<name>`` is ``<why>``" (a lambda, a
closure, an open file, an unpicklable value) and nothing is shipped.
"""

from __future__ import annotations
import __future__

import ast
import builtins
import dis
import inspect
import io
import linecache
import pickle
import sys
import textwrap
import types
from dataclasses import dataclass, field
from typing import Any

from ..torch_compat import orig_callable
from .child import attribute, defined
from .shell_names import SHELLS_ONLY, python_resolves

Call = tuple[tuple[Any, ...], dict[str, Any]]

#: The ``from __future__`` flags a definition keeps when compiled again on its own.
_FUTURE = 0
for _feature in __future__.all_feature_names:
    _FUTURE |= getattr(__future__, _feature).compiler_flag
_GLOBAL_OPS = frozenset({"LOAD_GLOBAL", "LOAD_NAME"})


class NotReproducible(Exception):
    """Why something the call needs cannot be carried (``<what> is <why>``)."""


@dataclass
class Definition:
    """A notebook function or class, defined again in the fresh process by its source."""

    key: int  # what pickles of the call refer to it by
    name: str  # the name its statement binds
    source: str  # the ``def``/``class`` statement on its cell's line numbers
    filename: str  # its cell
    cell: str  # the cell's text (for the line cache: graphs quote the user's lines)
    flags: int = 0  # its cell's ``from __future__`` compiler flags
    binds: list[str] = field(default_factory=list)  # the global names that hold it


@dataclass
class Needs:
    """What the child runs before the call: imports, values, definitions, then patches."""

    imports: dict[str, str] = field(default_factory=dict)  # global name -> module
    early: bytes = b""  # pickle of {name: value} for values needing no definition
    definitions: list[Definition] = field(default_factory=list)
    late: bytes = b""  # pickle of (values, patches, fn, calls)
    problem: str = ""  # "cannot be reproduced in a fresh process: ..." ("" when it can)
    values: list[str] = field(default_factory=list)  # names carried by value

    def describe(self) -> str:
        """In words, for the record's ``how``."""
        parts = ["pickled"]
        if self.definitions:
            names = [d.binds[0] if d.binds else d.name for d in self.definitions]
            cells = len({d.filename for d in self.definitions})
            parts.append(f"with the definitions of {', '.join(names)} from {cells} cell(s)")
        if self.values:
            parts.append(f"the current values of {', '.join(sorted(self.values))}")
        if self.imports:
            parts.append(f"imports of {', '.join(sorted(set(self.imports.values())))}")
        return ", ".join(parts)


class _Sink:
    def write(self, data: bytes) -> int:
        return len(data)


class _Pickler(pickle.Pickler):
    """Pickles notebook functions and classes as references to their definitions (found
    on the way) and refuses, in words, what a fresh process cannot rebuild."""

    def __init__(self, file: Any, walk: _Walk) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.walk = walk
        self.found_main = False

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, io.IOBase):
            raise NotReproducible("an open file")
        if isinstance(obj, (types.FunctionType, type)):
            obj = orig_callable(obj)
            main = getattr(obj, "__module__", None) == "__main__"
            module = getattr(obj, "__module__", None) or ""
            if not main and not _importable(obj) and getattr(
                    sys.modules.get(module), getattr(obj, "__name__", "<"), None) is obj:
                return attribute, (module, obj.__name__)
            if isinstance(obj, types.FunctionType) and (main or not _importable(obj)):
                why = _function_problem(inspect.unwrap(obj))
                if why:
                    raise NotReproducible(why)
            if main:
                self.found_main = True
                return defined, (self.walk.define(obj),)
        return NotImplemented


def _importable(obj: Any) -> bool:
    """Whether pickle finds ``obj`` by its module and qualified name (an import)."""
    found: Any = sys.modules.get(getattr(obj, "__module__", None) or "")
    for part in getattr(obj, "__qualname__", "<").split("."):
        found = getattr(found, part, None)
    return found is obj


def _function_problem(fn: Any) -> str:
    """Why a function cannot be defined again elsewhere ("": it can, or is a builtin)."""
    if not isinstance(fn, types.FunctionType):
        return ""
    if fn.__name__ == "<lambda>":
        return "a lambda, which cannot be copied into a fresh process (define it with def " \
               "at a cell's top level)"
    if fn.__closure__:
        return (f"a closure (it reads {', '.join(fn.__code__.co_freevars)} of the function "
                "that made it), which cannot be copied into a fresh process")
    return ""


def _reads(code: types.CodeType) -> set[str]:
    """The global names ``code`` and the code nested in it read."""
    names: set[str] = set()
    todo = [code]
    while todo:
        c = todo.pop()
        names.update(str(i.argval) for i in dis.get_instructions(c) if i.opname in _GLOBAL_OPS)
        todo.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return names


def _statement_reads(node: ast.AST) -> set[str]:
    """The names a ``def``/``class`` statement reads when it runs (decorators, defaults,
    annotations, bases, the class body; not the functions' bodies)."""
    names: set[str] = set()
    bound: set[str] = set()

    def visit(n: ast.AST, in_class: bool) -> None:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if in_class and not isinstance(n, ast.Lambda):
                bound.add(n.name)
            extra: list[ast.expr] = list(n.args.defaults) + [d for d in n.args.kw_defaults if d]
            if not isinstance(n, ast.Lambda):
                extra += list(n.decorator_list) + ([n.returns] if n.returns else [])
                every = n.args.posonlyargs + n.args.args + n.args.kwonlyargs
                every += [a for a in (n.args.vararg, n.args.kwarg) if a]
                extra += [a.annotation for a in every if a.annotation]
            for e in extra:
                visit(e, False)
            return
        if isinstance(n, ast.ClassDef):
            if in_class:
                bound.add(n.name)
            for e in [*n.decorator_list, *n.bases, *(k.value for k in n.keywords)]:
                visit(e, False)
            for s in n.body:
                visit(s, True)
            return
        if isinstance(n, ast.Name):
            (bound if isinstance(n.ctx, ast.Store) and in_class else names).add(n.id)
        for child in ast.iter_child_nodes(n):
            visit(child, in_class)

    visit(node, False)
    return names - bound


def _codes(cls: type) -> dict[str, types.FunctionType]:
    """The functions a class's own namespace holds (methods, static and class methods,
    properties' accessors), by attribute."""
    found: dict[str, types.FunctionType] = {}
    for attr, value in vars(cls).items():
        parts = ([value.fget, value.fset, value.fdel] if isinstance(value, property)
                 else [getattr(value, "__func__", value)])
        for i, part in enumerate(parts):
            part = inspect.unwrap(part) if callable(part) else part
            if isinstance(part, types.FunctionType):
                found[attr if i == 0 else f"{attr}.{i}"] = part
    return found


def _is_cell(filename: str) -> bool:
    return (filename.startswith("<ipython-input") or "ipykernel_" in filename
            or "/ipython-input" in filename)


def _class_statement(cls: type) -> tuple[str, list[str], int] | None:
    """``(cell, lines, first line)`` of the ``class`` statement that made ``cls``: the one
    holding its methods' code; for a class without methods of its own, the last cell
    that defines a class of its name."""
    own = [f.__code__ for f in _codes(cls).values()
           if f.__qualname__.startswith(cls.__qualname__ + ".")
           and linecache.getlines(f.__code__.co_filename)]
    cells = ([own[0].co_filename] if own
             else [n for n in reversed(list(linecache.cache)) if _is_cell(n)])
    for filename in cells:
        lines = linecache.getlines(filename)
        try:
            tree = ast.parse("".join(lines))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef) or node.name != cls.__name__:
                continue
            if own and not node.lineno <= own[0].co_firstlineno <= (node.end_lineno or 0):
                continue
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            return filename, lines[first - 1:node.end_lineno], first
    return None


def _compiled_codes(code: types.CodeType) -> dict[tuple[str, int], types.CodeType]:
    out: dict[tuple[str, int], types.CodeType] = {}
    todo = [code]
    while todo:
        c = todo.pop()
        out[(c.co_name, c.co_firstlineno)] = c
        todo.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return out


def _shape(code: types.CodeType) -> tuple[Any, ...]:
    """What a code object reads, binds and holds: equal for one statement compiled from
    source or from an AST (whose bytecode can differ: a method call's opcodes)."""
    return (code.co_names, code.co_varnames, code.co_freevars, code.co_argcount,
            code.co_kwonlyargcount, tuple(_shape(k) if isinstance(k, types.CodeType)
                                          else repr(k) for k in code.co_consts))


def _same_code(a: types.CodeType, b: types.CodeType) -> bool:
    return _shape(a) == _shape(b)


class _Walk:
    def __init__(self) -> None:
        self.needs = Needs()
        self.by_key: dict[int, Definition] = {}
        self.todo: list[Any] = []
        self.seen_names: set[str] = set()
        self.early: dict[str, Any] = {}
        self.late: dict[str, Any] = {}
        self.patches: list[tuple[Any, str, Any]] = []

    # --- definitions ------------------------------------------------------------------

    def define(self, obj: Any) -> int:
        """The key of ``obj``'s definition (queued for reading on first sight)."""
        key = id(obj)
        if key not in self.by_key:
            self.by_key[key] = Definition(key, getattr(obj, "__name__", "?"), "", "", "")
            self.todo.append(obj)
        return key

    def _source(self, obj: Any, label: str) -> tuple[Definition, ast.AST, types.CodeType]:
        """``obj``'s statement from its cell, checked against the code bound now."""
        inner = inspect.unwrap(obj) if isinstance(obj, types.FunctionType) else obj
        found = _class_statement(inner) if isinstance(inner, type) else None
        try:
            if found is None:
                lines, first = inspect.getsourcelines(inner)
                filename = inner.__code__.co_filename
            else:
                filename, lines, first = found
        except (OSError, TypeError, AttributeError):
            raise NotReproducible(f"{label} has no source Python can find (its cell is not "
                                  "in Python's line cache)") from None
        text = textwrap.dedent("".join(lines))
        tree = ast.parse(text).body[0]
        keep = text.splitlines(True)
        for d in getattr(tree, "decorator_list", []):  # torch.compile: the child compiles
            said = ast.unparse(d)
            if "compile" in said and "nested_compile_region" not in said:
                for i in range(d.lineno - 1, d.end_lineno or d.lineno):
                    keep[i] = "\n"
        first = max(first, 1)
        source = "\n" * (first - 1) + "".join(keep)
        code = inner.__code__ if isinstance(inner, types.FunctionType) else None
        flags = (code.co_flags & _FUTURE) if code is not None else 0
        if code is None and isinstance(obj, type):
            methods = list(_codes(obj).values())
            flags = (methods[0].__code__.co_flags & _FUTURE) if methods else 0
        module = compile(source, filename, "exec", flags=flags, dont_inherit=True)
        definition = self.by_key[id(obj)]
        definition.source, definition.filename, definition.flags = source, filename, flags
        definition.cell = "".join(linecache.getlines(filename))
        return definition, tree, module

    def _function(self, fn: types.FunctionType, label: str) -> None:
        inner = inspect.unwrap(fn)
        why = _function_problem(inner) if isinstance(inner, types.FunctionType) else ""
        if why:
            raise NotReproducible(f"{label} is {why}")
        definition, tree, module = self._source(fn, label)
        made = _compiled_codes(module).get((inner.__code__.co_name, inner.__code__.co_firstlineno))
        if made is None or not _same_code(made, inner.__code__):
            raise NotReproducible(f"{label} is a function whose cell no longer holds the code "
                                  "bound to it")
        definition.name = getattr(tree, "name", fn.__name__)
        if inner is fn and (inner.__defaults__ is not None or inner.__kwdefaults__):
            self.patches.append((fn, "__defaults__", inner.__defaults__))
            self.patches.append((fn, "__kwdefaults__", inner.__kwdefaults__))
        self._names(_reads(inner.__code__) | _statement_reads(tree), inner.__globals__)

    def _class(self, cls: type, label: str) -> None:
        definition, tree, module = self._source(cls, label)
        definition.name = cls.__name__
        made = _compiled_codes(module)
        names = _statement_reads(tree)
        namespace = vars(sys.modules.get("__main__", builtins))
        for attr, fn in _codes(cls).items():
            generated = not linecache.getlines(fn.__code__.co_filename)  # @dataclass's
            names |= _reads(fn.__code__)
            if not generated:
                namespace = fn.__globals__
            code = made.get((fn.__code__.co_name, fn.__code__.co_firstlineno))
            if not generated and (code is None or not _same_code(code, fn.__code__)):
                # set after the class statement: set again after it
                if "." in attr:
                    raise NotReproducible(f"{label}.{attr.split('.')[0]} is a property set "
                                          "after its class statement")
                self.patches.append((cls, attr, vars(cls)[attr]))
        for attr, value in vars(cls).items():  # plain class attributes, as they are now
            if not attr.startswith("_") and attr not in _codes(cls) and not isinstance(
                    value, (cls, staticmethod, classmethod, property, types.FunctionType)):
                try:
                    self._pickle(value, f"{label}.{attr}")
                except NotReproducible:
                    continue  # its class statement makes it again
                self.patches.append((cls, attr, value))
        for base in cls.__mro__[1:]:
            if getattr(base, "__module__", None) == "__main__":
                self.define(base)
        self._names(names, namespace)

    # --- global names -----------------------------------------------------------------

    def _names(self, names: set[str], namespace: dict[str, Any]) -> None:
        for name in sorted(names - self.seen_names):
            if (own := python_resolves(name, namespace)) is not None:
                self.seen_names.add(name)  # the shell's: ``open`` is Python's own too
                if not own:
                    raise NotReproducible(f"{name} {SHELLS_ONLY}")
                continue
            if name not in namespace:
                continue  # a builtin, or a name the kernel lacks too
            self.seen_names.add(name)
            self.value(name, namespace[name])

    def value(self, name: str, value: Any) -> None:
        """The global ``name`` as it is now: imported, defined, or pickled."""
        if isinstance(value, types.ModuleType):
            if sys.modules.get(value.__name__) is not value:
                raise NotReproducible(f"{name} is a module that cannot be imported by name "
                                      f"({value.__name__})")
            self.needs.imports[name] = value.__name__
            return
        value = orig_callable(value)
        if isinstance(value, (types.FunctionType, type)) \
                and getattr(value, "__module__", None) == "__main__":
            if isinstance(value, types.FunctionType):
                why = _function_problem(inspect.unwrap(value))
                if why:
                    raise NotReproducible(f"{name} is {why}")
            self.by_key[self.define(value)].binds.append(name)
            return
        if self._pickle(value, name):
            self.late[name] = value
        else:
            self.early[name] = value
        self.needs.values.append(name)

    def _pickle(self, value: Any, name: str) -> bool:
        """Whether ``value`` refers to notebook definitions; refused in words when it
        cannot be pickled."""
        pickler = _Pickler(_Sink(), self)
        try:
            pickler.dump(value)
        except NotReproducible as e:
            verb = "is" if _is_refused_itself(value) else "holds"
            raise NotReproducible(f"{name} {verb} {e}") from None
        except Exception as e:  # noqa: BLE001 - pickle's many failures, said in words
            first = (str(e).splitlines() or [""])[0][:200]
            what = type(value).__name__
            said = f"is an unpicklable {what}" if _is_refused_itself(value) or not isinstance(
                value, (tuple, list, dict, set)) else "holds an unpicklable value"
            raise NotReproducible(f"{name} {said} ({type(e).__name__}: {first})") from None
        return pickler.found_main

    def run(self) -> None:
        while self.todo:
            obj = self.todo.pop(0)
            definition = self.by_key[id(obj)]
            label = definition.binds[0] if definition.binds else getattr(
                obj, "__qualname__", definition.name)
            if isinstance(obj, type):
                self._class(obj, label)
            else:
                self._function(obj, label)


def _is_refused_itself(value: Any) -> bool:
    return isinstance(value, (io.IOBase, types.FunctionType, type))


def _dumps(value: Any, walk: _Walk) -> bytes:
    buffer = io.BytesIO()
    _Pickler(buffer, walk).dump(value)
    return buffer.getvalue()


def needs(fn: Any, calls: list[Call]) -> Needs:
    """What a fresh process needs to call ``fn`` with ``calls`` as this kernel would."""
    walk = _Walk()
    name = getattr(fn, "__name__", None) or type(fn).__name__
    try:
        walk._pickle(fn, name)
        for args, kwargs in calls:
            walk._pickle((args, kwargs), "an argument of the call")
        checked = 0
        while walk.todo or checked < len(walk.patches):
            walk.run()  # a patch's value may name more definitions, and those more patches
            for obj, attr, value in walk.patches[checked:]:
                walk._pickle(value, f"{getattr(obj, '__qualname__', '?')}.{attr}")
            checked = len(walk.patches)
        walk.needs.definitions = list(walk.by_key.values())
        walk.needs.early = _dumps(walk.early, walk)
        patches = [(id(obj), attr, value) for obj, attr, value in walk.patches]
        walk.needs.late = _dumps((walk.late, patches, fn, calls), walk)
    except NotReproducible as e:
        walk.needs.problem = f"cannot be reproduced in a fresh process: {e}"
    return walk.needs

