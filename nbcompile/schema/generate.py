"""Generate the record JSON Schema and the field tables of ``docs/records.md`` from the
record dataclasses (``nbcompile.core.records``, ``timing``, ``profile``, ``suggest``,
``logs.run``, ``diagnosis.record``, ``compiletime.record``).

    python -m nbcompile.schema.generate [--check]

Types come from the annotations, descriptions from the comment on (or just above) each
field. Every object is closed (``additionalProperties: false``); a field is required
unless its class lists it in ``OPTIONAL_KEYS``, and then the schema carries its
``default`` (what a reader takes when a record lacks it): the dataclass default, or for
a key in ``COMPUTED`` the empty value of its type. ``--check`` writes nothing and exits
1 when a generated file is stale.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import io
import json
import re
import sys
import tokenize
import types
import typing
from pathlib import Path
from typing import Any, Literal, Union

from ..core import records
from ..core.compiletime import record as compiletime
from ..core.diagnosis import record as diagnosis
from ..core.fixes import suggest
from ..core.logs import run as trace_run
from ..core.perf import comparison
from ..core.perf.profile import run as profile
from ..display import budget

SCHEMA_PATH = Path(__file__).with_name("record-v1.schema.json")
DOCS_PATH = Path(__file__).resolve().parents[2] / "docs" / "records.md"

#: The top-level records, one per value of ``record``.
TOP_LEVEL: tuple[type, ...] = (records.SummaryRecord, records.TargetRecord, comparison.Comparison,
                                profile.Profile, suggest.Suggestions, trace_run.TraceRecord,
                                diagnosis.Diagnosis, compiletime.CompileTime)

_SIMPLE = {str: "string", int: "integer", float: "number", bool: "boolean",
           type(None): "null"}
_FIELD = re.compile(r"^\s+(\w+)\s*:")


def field_docs(cls: type) -> dict[str, str]:
    """Each field's comment: the one on its line, else the comment lines just above it."""
    source = inspect.getsource(cls)
    comments: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok.string.lstrip("#").strip().replace("``", "`")
    lines = source.splitlines()
    names = {f.name for f in dataclasses.fields(cls)}
    docs: dict[str, str] = {}
    for number, text in enumerate(lines, start=1):
        match = _FIELD.match(text)
        if not match or match.group(1) not in names or text.lstrip().startswith("#"):
            continue
        if number in comments and not text.lstrip().startswith("#"):
            docs[match.group(1)] = comments[number]
            continue
        above: list[str] = []
        row = number - 1
        while row in comments and lines[row - 1].lstrip().startswith("#"):
            above.insert(0, comments[row])
            row -= 1
        if above:
            docs[match.group(1)] = " ".join(above)
    return docs


def public_hints(cls: type) -> dict[str, Any]:
    """The evaluated annotations of ``cls``'s public fields (private ``_fields`` may use
    types that are not JSON, or not subscriptable at run time, such as ``array[int]``)."""
    hints: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name.startswith("_"):
            continue
        owner = next(c for c in cls.__mro__ if f.name in vars(c).get("__annotations__", {}))
        namespace = vars(sys.modules[owner.__module__])
        hints[f.name] = eval(f.type, namespace) if isinstance(f.type, str) else f.type
    return hints


_JSON = (str, int, float, bool, type(None), list, dict)


def field_default(cls: type, f: dataclasses.Field[Any]) -> Any:
    """The JSON value of an optional field's dataclass default (what a reader fills in
    for a record that lacks the field)."""
    if f.default is not dataclasses.MISSING:
        value = f.default
    elif f.default_factory is not dataclasses.MISSING:
        value = f.default_factory()
    else:
        raise TypeError(f"{cls.__name__}.{f.name} is optional but has no default")
    if not isinstance(value, _JSON) or json.loads(json.dumps(value)) != value:
        raise TypeError(f"{cls.__name__}.{f.name}: default {value!r} is not a JSON value")
    return value


def empty_value(tp: Any) -> Any:
    """The empty value of an annotation (a computed key's default): None where it may be
    None, else '', 0, False, [] or {}."""
    args = typing.get_args(tp) if typing.get_origin(tp) in (Union, types.UnionType) else ()
    if type(None) in args:
        return None
    origin = typing.get_origin(tp) or tp
    empty = {str: "", int: 0, float: 0.0, bool: False, list: [], dict: {}}
    if origin not in empty:
        raise TypeError(f"no empty value for annotation {tp!r}")
    return empty[origin]


class _Builder:
    """Walks annotations into JSON Schema, collecting dataclasses as ``$defs``."""

    def __init__(self) -> None:
        self.defs: dict[str, dict[str, Any]] = {}

    def type_schema(self, tp: Any) -> dict[str, Any]:
        origin = typing.get_origin(tp)
        if tp is Any:
            return {}
        if tp in _SIMPLE:
            return {"type": _SIMPLE[tp]}
        if origin is Literal:
            values = list(typing.get_args(tp))
            return {"const": values[0]} if len(values) == 1 else {"enum": values}
        if origin in (Union, types.UnionType):
            args = typing.get_args(tp)
            if all(a in _SIMPLE for a in args):
                return {"type": [_SIMPLE[a] for a in args]}
            return {"anyOf": [self.type_schema(a) for a in args]}
        if origin is list:
            (item,) = typing.get_args(tp)
            return {"type": "array", "items": self.type_schema(item)}
        if origin is dict:
            key, value = typing.get_args(tp)
            if key is not str:
                raise TypeError(f"JSON object keys must be str, not {key!r}")
            return {"type": "object", "additionalProperties": self.type_schema(value)}
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            self.add(tp)
            return {"$ref": f"#/$defs/{tp.__name__}"}
        raise TypeError(f"no JSON Schema for annotation {tp!r}")

    def add(self, cls: type) -> None:
        if cls.__name__ in self.defs:
            return
        self.defs[cls.__name__] = {}  # placeholder: recursion stops here
        self.defs[cls.__name__] = self.object_schema(cls)

    def object_schema(self, cls: type) -> dict[str, Any]:
        hints = public_hints(cls)
        docs = field_docs(cls)
        optional = getattr(cls, "OPTIONAL_KEYS", frozenset())
        properties: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if f.name.startswith("_"):  # internal state, never published
                continue
            prop = self.type_schema(hints[f.name])
            if f.name in docs:
                prop["description"] = docs[f.name]
            if f.name in optional:
                prop["default"] = field_default(cls, f)
            properties[f.name] = prop
        for name, (tp, doc) in getattr(cls, "COMPUTED", {}).items():
            properties[name] = {**self.type_schema(tp), "description": doc}
            if name in optional:
                properties[name]["default"] = empty_value(tp)
        schema: dict[str, Any] = {"title": cls.__name__, "type": "object"}
        if cls.__doc__:
            summary = inspect.cleandoc(cls.__doc__).split("\n\n")[0]
            schema["description"] = " ".join(summary.split()).replace("``", "`")
        schema["properties"] = properties
        schema["required"] = [n for n in properties if n not in optional]
        schema["additionalProperties"] = False
        return schema


def build_schema() -> dict[str, Any]:
    """The JSON Schema of every record published under the nbcompile MIME type."""
    builder = _Builder()
    for cls in TOP_LEVEL:
        builder.add(cls)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": records.MIME_TYPE,
        "title": f"nbcompile record, schema version {records.SCHEMA_VERSION}",
        "description": (
            f"What the kernel publishes under the MIME type {records.MIME_TYPE}. "
            "Generated from the dataclasses in nbcompile/core/ (records.py, "
            "perf/comparison.py, perf/profile/record.py, fixes/record.py, logs/record.py, "
            "diagnosis/record.py) by "
            "`python -m nbcompile.schema.generate`: "
            "do not edit. Documented in docs/records.md."
        ),
        "oneOf": [{"$ref": f"#/$defs/{cls.__name__}"} for cls in TOP_LEVEL],
        "x-nbcompile-limits": limits(),
        "$defs": builder.defs,
    }


def limits() -> dict[str, Any]:
    """The sizes the kernel publishes at most, for the front end's validator: every
    record kind within the largest output budget, the inspector's whole record within
    its own budget (``display/budget.py``)."""
    return {
        "description": "Bytes of JSON (UTF-8): every record the kernel publishes in an output "
                       "is within the output budget, at most max_record_bytes; the record "
                       "sent to the Compile inspector on request at most "
                       "max_whole_record_bytes.",
        "max_record_bytes": budget.MAX_OUTPUT_BUDGET,
        "max_whole_record_bytes": budget.WHOLE_RECORD_BUDGET,
        "default_output_budget": budget.DEFAULT_OUTPUT_BUDGET,
    }


def schema_text() -> str:
    return json.dumps(build_schema(), indent=2) + "\n"


# --- docs tables -------------------------------------------------------------------------

_REGION = re.compile(
    r"(<!-- fields:(?P<name>\w+):begin -->\n).*?(<!-- fields:(?P=name):end -->)", re.DOTALL
)


def _type_text(prop: dict[str, Any]) -> str:
    if "$ref" in prop:
        return f"`{prop['$ref'].rsplit('/', 1)[1]}`"
    if "const" in prop:
        return f"`{json.dumps(prop['const'])}`"
    if "enum" in prop:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in prop["enum"])
    if "anyOf" in prop:
        return " \\| ".join(_type_text(p) for p in prop["anyOf"])
    kind = prop.get("type", "any")
    if isinstance(kind, list):
        return " \\| ".join(kind)
    if kind == "array":
        return f"list of {_type_text(prop['items'])}"
    if kind == "object":
        return f"object of {_type_text(prop['additionalProperties'] or {})}"
    return kind


def field_table(definition: dict[str, Any]) -> str:
    """A markdown table of one ``$defs`` entry: field, type, required, meaning."""
    required = set(definition["required"])
    rows = ["| field | type | required | meaning |", "|---|---|---|---|"]
    for name, prop in definition["properties"].items():
        doc = prop.get("description", "").replace("|", "\\|")
        rows.append(f"| `{name}` | {_type_text(prop)} | {'yes' if name in required else ''}"
                    f" | {doc} |")
    return "\n".join(rows) + "\n"


def docs_text(current: str, schema: dict[str, Any] | None = None) -> str:
    """``current`` with every ``<!-- fields:NAME:begin/end -->`` region regenerated."""
    defs = (schema or build_schema())["$defs"]

    def replace(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in defs:
            raise KeyError(f"docs region fields:{name}: no record class {name!r}")
        return match.group(1) + field_table(defs[name]) + match.group(3)

    return _REGION.sub(replace, current)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nbcompile.schema.generate",
                                     description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a file is stale")
    args = parser.parse_args(argv)
    schema = build_schema()
    wanted = {SCHEMA_PATH: json.dumps(schema, indent=2) + "\n"}
    if DOCS_PATH.exists():  # a source checkout (an installed wheel has no docs/)
        wanted[DOCS_PATH] = docs_text(DOCS_PATH.read_text(), schema)
    stale = [path for path, text in wanted.items()
             if not path.exists() or path.read_text() != text]
    for path in stale:
        if args.check:
            print(f"stale: {path}", file=sys.stderr)
        else:
            path.write_text(wanted[path])
            print(f"wrote {path}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
