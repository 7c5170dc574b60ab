"""Inductor's generated module, split into the kernels it defines and calls."""

from __future__ import annotations

import re

from .records import Kernel

_CPP = re.compile(
    r"^(?P<name>\w+) = async_compile\.cpp(?:_pybinding)?\((?:\[[^\]]*\],\s*)?r?'''(?P<src>.*?)'''\)",
    re.S | re.M,
)
_TRITON = re.compile(
    r"^(?P<name>\w+) = async_compile\.triton\('(?P=name)',\s*r?'''(?P<src>.*?)'''", re.S | re.M
)
_CALL = re.compile(r"^(?P<indent>[ \t]*)def call\((?:self, )?args\):\n(?P<body>(?:(?P=indent)[ \t]+.*\n|\s*\n)*)", re.M)
_EXTERN = re.compile(r"\b(?P<name>extern_kernels\.\w+|aten\.\w+(?:\.\w+)?|torch\.ops\.\w+\.\w+(?:\.\w+)?)\(")


def split_kernels(output_code: str, graphs: list[str] | None = None, compile_id: str = "") -> list[Kernel]:
    """Kernels (C++/Triton), extern calls and the ``call`` wrapper of one output module."""
    kernels: list[Kernel] = []
    for pattern, language in ((_CPP, "cpp"), (_TRITON, "triton")):
        for m in pattern.finditer(output_code):
            src = m.group("src").strip("\n")
            kernels.append(Kernel(name=m.group("name"), language=language, source=src,
                                  size=len(src), compile_id=compile_id))
    call = _CALL.search(output_code)
    if call:
        body = call.group(0)
        seen: set[str] = set()
        for m in _EXTERN.finditer(body):
            name = m.group("name")
            if name in seen:
                continue
            seen.add(name)
            line = next(ln for ln in body.splitlines() if name + "(" in ln).strip()
            kernels.append(Kernel(name=name, language="python", kind="extern", source=line,
                                  size=len(line), compile_id=compile_id))
        kernels.append(Kernel(name="call", language="python", kind="wrapper", source=body,
                              size=len(body), compile_id=compile_id))
    return kernels
