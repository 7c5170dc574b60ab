"""A decorated function in a ``%%compile`` cell compiles and reports like
its plain form (real in-process IPython shell, real compiles)."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

import nbcompile
from nbcompile.core.frames import is_cell_file
from tests.support.shell import run_cell

BODY = "def {name}(x):\n    y = x.sin() * 2\n    return y + 1\n"
DECORATORS = {
    "no_grad": "@torch.no_grad()\n",
    "inference_mode": "@torch.inference_mode()\n",
    "wraps": "@deco_wraps\n",
    "error_on_graph_break": "@torch._dynamo.error_on_graph_break(True)\n",
    "disable_then_enable_grad": "@torch.enable_grad()\n",
}
HELPERS = ("import functools\nimport torch\n"
           "def deco_wraps(f):\n"
           "    @functools.wraps(f)\n"
           "    def wrapper(*args, **kwargs):\n"
           "        return f(*args, **kwargs)\n"
           "    return wrapper\n")


@pytest.fixture(scope="module")
def plain(ip):
    run_cell(ip, HELPERS)
    ip.run_cell_magic("compile", "--backend eager", BODY.format(name="deco_plain"))
    run_cell(ip, "_ = deco_plain(torch.randn(4))")
    return nbcompile.report(ip.user_ns["deco_plain"])


@pytest.mark.parametrize("kind", list(DECORATORS))
def test_a_decorated_function_reports_like_its_plain_form(ip, plain, kind):
    name = f"deco_{kind}"
    ip.run_cell_magic("compile", f"--backend eager --only {name}",
                      DECORATORS[kind] + BODY.format(name=name))
    run_cell(ip, f"_ = {name}(torch.randn(4))")
    report = nbcompile.report(ip.user_ns[name])
    assert (report.status, report.graph_count, report.graph_break_count) == (
        plain.status, plain.graph_count, plain.graph_break_count), report
    # the annotated source is the user's function, not torch's decorator wrapper
    lines = [a for a in report.annotations if a.category not in ("blank", "outside")]
    assert lines and all(is_cell_file(a.filename) for a in lines), [
        (a.filename, a.lineno) for a in lines]
    assert {a.line.strip() for a in lines} >= {"y = x.sin() * 2", "return y + 1"}, lines


def test_error_on_graph_break_decorator_fails_like_plain_torch(ip):
    ip.run_cell_magic("compile", "--backend eager --only deco_strict",
                      "@torch._dynamo.error_on_graph_break(True)\n"
                      "def deco_strict(x):\n    x = x + 1\n"
                      "    torch._dynamo.graph_break()\n    return x * 2\n")
    result = ip.run_cell("deco_strict(torch.randn(4))")
    assert type(result.error_in_exec).__name__ == "Unsupported", result.error_in_exec
    report = nbcompile.report(ip.user_ns["deco_strict"])
    assert report.status == "failed" and report.error.type == "Unsupported", report


def test_a_library_function_under_a_decorator_is_refused_in_words(ip):
    with pytest.raises(UsageError) as err:
        ip.run_cell_magic("compile", "--only lib_relu",
                          "lib_relu = torch.no_grad()(torch.nn.functional.relu)\n")
    message = str(err.value)
    assert "lib_relu is function" in message and "from module torch" in message, message
    assert "not code of this cell" in message, message
