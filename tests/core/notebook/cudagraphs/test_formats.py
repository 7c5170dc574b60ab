"""The CUDA-graph tree's lines as each torch in range writes them, read by the one table
of formats (``cudagraph_events._PATTERNS``).

The installed torch's own source is the oracle: every line its tree manager logs
(``log.debug``/``log.info`` in ``torch/_inductor/cudagraph_trees.py``), formatted as torch
formats it, must read as the event it is, so a format torch changes fails here (``make
compat TORCH=...`` runs this on each version). torch 2.9's formats, which the installed
torch no longer has, are quoted from 2.9.1's ``cudagraph_trees.py``.
"""

from __future__ import annotations

import ast
import inspect
import logging
import re

import pytest
from torch._inductor import cudagraph_trees

from nbcompile.core.notebook.cudagraphs import events as ev
from nbcompile.core.notebook.cudagraphs.log import LOGGERS, CudagraphLog

#: What a line is, by its words (torch's format); None: a line that tells no event.
KINDS = (("Re-recording", "rerecord"), ("Running warmup", "warmup"),
         ("Running eager", "eager"), ("cudagraph tree for", "shape"),
         ("Recording function", "record"))


def _kind(fmt: str) -> str | None:
    return next((kind for words, kind in KINDS if words in fmt), None)


def _formatted(fmt: str) -> str:
    """A format filled as torch fills it: a compile id in ``[%s]``, numbers, names."""
    text = fmt.replace("[%s]", "[0/0]", 1)
    # torch passes ``self.id_to_mode[function_id].name``: a ``CompilationMode`` name
    text = text.replace("mode=%s", f"mode={cudagraph_trees.CompilationMode.BACKWARD.name}")
    text = re.sub(r"%d", "3", text)
    return text.replace("%s", "f")


def _tree_formats() -> list[str]:
    """Every format string the installed torch's tree manager logs with."""
    tree = ast.parse(inspect.getsource(cudagraph_trees))
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("debug", "info", "warning")
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "log"
                and node.args and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)):
            found.append(node.args[0].value)
    return found


def test_every_line_the_installed_torch_writes_reads_as_its_event():
    formats = _tree_formats()
    kinds = {_kind(f) for f in formats}
    assert {"warmup", "record", "shape"} <= kinds, formats  # what the doctor needs
    for fmt in formats:
        event = ev.parse(_formatted(fmt))
        assert (event.kind if event else None) == _kind(fmt), fmt


#: torch 2.9.1's formats (``cudagraph_trees.py``: ``run_eager``, ``record_function``,
#: ``cudagraphify_impl``), with the event each is.
TORCH_2_9 = {
    "Running warmup of function %d": "warmup",
    "Running eager of function %d because ancestor needed to warm up": "eager",
    "Recording function %d of graph recording id %d": "record",
    "recording cudagraph tree for graph without symints": "shape",
    "recording cudagraph tree for symint key %s": "shape",
    "Checkpointing cuda caching allocator state. Number of checkpoints %d": None,
}


@pytest.mark.parametrize("fmt", list(TORCH_2_9))
def test_torch_2_9_lines_read_as_their_events(fmt):
    event = ev.parse(_formatted(fmt))
    assert (event.kind if event else None) == TORCH_2_9[fmt]


def test_a_torch_2_9_call_sequence_counts_as_torch_ran_it():
    """2.9 names no compile and logs no re-record: warm-up, then a recording, counted."""
    lines = ["recording cudagraph tree for graph without symints",
             "Running warmup of function 0", "Recording function 0 of graph recording id 0"]
    first = ev.call_value(1, 4, [e for e in map(ev.parse, lines[:2]) if e], 0)
    second = ev.call_value(2, 4, [e for e in map(ev.parse, lines[2:]) if e], 0)
    assert (first.warmups, [s.key for s in first.new_shapes]) == (1, ["static"])
    assert (second.recordings, second.rerecords) == (1, [])
    assert second.what == "recorded 1 graph (capture: a slow call)"
    # a later recording: a re-record or a new graph, torch 2.9 cannot say which
    again = ev.call_value(3, 5, [e for e in map(ev.parse, lines[2:]) if e], 0)
    said = ev.rerecords_unknown(again, recorded_before=True, version="2.9.1+cu128").what
    assert said.endswith("whether a graph was recorded again is not known on torch 2.9 (it "
                         "logs no Re-recording line)")
    for version, before in (("2.11.0", True), ("2.9.1", False)):
        fresh = ev.call_value(3, 5, [e for e in map(ev.parse, lines[2:]) if e], 0)
        assert "not known" not in ev.rerecords_unknown(fresh, before, version).what


def test_skip_messages_are_heard_where_each_torch_writes_them():
    """torch 2.11 on: ``cudagraph_utils``' ``cudagraphs`` artifact; 2.9: its
    ``perf_hints`` artifact (``perf_hint_log.warning``)."""
    heard: list[str] = []
    handler = CudagraphLog(lambda message, _key: heard.append(message))
    handler.install()
    try:
        for name in LOGGERS:
            logging.getLogger(name).warning("skipping cudagraphs due to mutated inputs (%d "
                                            "instances)", 1)
    finally:
        handler.uninstall()
    assert heard == ["skipping cudagraphs due to mutated inputs (1 instances)"] * len(LOGGERS)
    assert "torch._inductor.cudagraph_utils.__perf_hints" in LOGGERS


def test_a_quieter_set_logs_does_not_hide_skip_messages():
    """``torch._logging.set_logs(inductor=logging.ERROR)`` in a cell: torch's skip message
    (a WARNING) is still heard (it still bumps its skip counter: a skip with no reason
    would be untrue), and still not printed; the loggers' levels are back after."""
    from torch._logging import _internal as torch_logging

    heard: list[str] = []
    printed: list[str] = []

    class Printed(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            printed.append(record.getMessage())

    loggers = [logging.getLogger(name) for name in LOGGERS]
    levels = [logger.level for logger in loggers]
    handler = Printed(logging.DEBUG)
    for logger in loggers:
        logger.addHandler(handler)
    log = CudagraphLog(lambda message, _key: heard.append(message))
    log.install()
    try:
        torch_logging.set_logs(inductor=logging.ERROR)  # as a user's cell does
        for logger in loggers:
            logger.warning("skipping cudagraphs due to mutated inputs (%d instances)", 1)
    finally:
        log.uninstall()
        for logger in loggers:
            logger.removeHandler(handler)
        torch_logging.set_logs()
    assert heard == ["skipping cudagraphs due to mutated inputs (1 instances)"] * len(LOGGERS)
    assert printed == []
    assert [logger.level for logger in loggers] == levels


def _filled(node: ast.AST) -> str | None:
    """A string literal or f-string of torch's source with each field filled (``3``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str)
                       else "3" for v in node.values)
    return None


def _literals(module) -> list[str]:
    """Every whole string literal of ``module``'s source (an f-string's parts are not)."""
    tree = ast.parse(inspect.getsource(module))
    parts = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
             for v in node.values}
    return [text for node in ast.walk(tree)
            if id(node) not in parts and (text := _filled(node)) is not None]


def test_every_skip_the_installed_torch_words_reads_as_a_skip():
    """Each skip message the installed torch's Inductor writes (its ``skipping
    cudagraphs due to`` / ``disabling cudagraphs`` literals, wherever they are) is heard
    as a skip, and the tree manager's own (``skipping cudagraph due to function``: past a
    re-record limit, or torch 2.15's cudagraph-managed input threshold) as a fall-back."""
    from torch._inductor import cudagraph_utils, output_code

    from nbcompile.core.notebook.cudagraphs.outcome import is_skip

    skips = [t for m in (cudagraph_utils, output_code, cudagraph_trees)
             for t in _literals(m)
             if t.lstrip().startswith(("skipping cudagraph", "disabling cudagraph"))]
    assert skips
    for text in skips:
        assert is_skip(text), text
    fell = [t for t in _literals(cudagraph_trees)
            if t.startswith("skipping cudagraph due to function")]
    assert fell  # past cudagraph_unexpected_rerecord_limit, on every torch in range
    for text in fell:
        event = ev.parse(text)
        assert event is not None and event.kind == "fell_back", text


def test_skips_are_heard_on_the_logger_the_installed_torch_writes_them_to():
    """``log_cudagraph_skip_and_bump_counter`` writes through one of ``cudagraph_utils``'
    artifact loggers: that logger is one nbcompile listens on."""
    from torch._inductor import cudagraph_utils

    source = inspect.getsource(cudagraph_utils)
    fn = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef)
              and n.name == "log_cudagraph_skip_and_bump_counter")
    (writer,) = {n.func.value.id for n in ast.walk(fn) if isinstance(n, ast.Call)
                 and isinstance(n.func, ast.Attribute) and n.func.attr == "warning"
                 and isinstance(n.func.value, ast.Name)}
    artifact = re.search(rf"^{writer}\s*=\s*torch\._logging\.getArtifactLogger\(\s*__name__,"
                         r"\s*\"(?P<artifact>\w+)\"", source, re.M)
    assert artifact is not None, writer
    assert f"{cudagraph_utils.__name__}.__{artifact.group('artifact')}" in LOGGERS


#: torch 2.15.0's skip past the cudagraph-managed inputs' threshold (``_run``), quoted.
TORCH_2_15_THRESHOLD = ("skipping cudagraph due to function 0 reaching the "
                        "cudagraph-managed input re-recording threshold (=5) on cudagraph "
                        "node 2 for input indices [1, 3].")


def test_torch_2_15s_managed_input_threshold_reads_as_a_fall_back():
    event = ev.parse(TORCH_2_15_THRESHOLD)
    assert event is not None and event.kind == "fell_back"
    call = ev.call_value(9, 4, [event], 0)
    assert call.fell_back == TORCH_2_15_THRESHOLD
    assert call.what == ("fell back to eager: torch re-recorded past "
                         "cudagraph_managed_input_rerecord_limit (=5) for the "
                         "cudagraph-managed inputs [1, 3] "
                         "(cudagraph_managed_input_rerecord_action='skip')")


def torch_size_warning() -> tuple[str, int]:
    """torch's warning past its limit on one graph's sizes, made by torch's own
    ``cudagraph_utils.maybe_warning_due_to_dynamic_shape`` (a cache of ``limit`` sizes and
    a new one) and heard as nbcompile hears it (``CudagraphLog``); with the count torch
    gives (the limit, plus one)."""
    from torch._inductor import config as inductor_config
    from torch._inductor import cudagraph_utils

    limit = inductor_config.triton.cudagraph_dynamic_shape_warn_limit
    assert limit  # torch's default warns
    heard: list[str] = []
    log = CudagraphLog(lambda message, _key: heard.append(message))
    log.install()
    try:
        assert cudagraph_utils.maybe_warning_due_to_dynamic_shape(
            {(n,): print for n in range(limit)}, (limit,))
    finally:
        log.uninstall()
    (message,) = heard
    return message, limit + 1


def test_torchs_warning_past_its_size_limit_reads_as_one_graph_past_it():
    message, count = torch_size_warning()
    event = ev.parse(message)
    assert event is not None
    assert event == ev.TreeEvent("size_warning", reason=message, sizes=count)
    # it changes nothing of what the call did
    assert not ev.anything_done(ev.call_value(4, 5, [event], 0))


def test_torch_2_9s_sizes_of_several_graphs_are_said_as_known():
    """torch 2.9's size lines name no compile (``tests/fixtures/torch_text.py``): the
    sizes of a target's graphs cannot be told apart, so no merged count is taken for one
    graph; what is known is said, and "past torch's limit" where torch warned it."""
    from tests.fixtures.torch_text import TORCH_2_9_NEW_SIZE, TORCH_2_9_WARMUP

    def run(fmt_key: int, function: int) -> list[ev.TreeEvent]:
        lines = [TORCH_2_9_NEW_SIZE % (fmt_key,), TORCH_2_9_WARMUP % function]
        return [e for e in map(ev.parse, lines) if e is not None]

    # graph 1 at sizes 8 and 16, graph 2 (after a graph break) at its own size 3
    calls = [ev.call_value(n, 5, run(key, n), 0) for n, key in enumerate((8, 16, 3), 1)]
    shapes = [s for c in calls for s in c.new_shapes]
    assert [(s.compile_id, s.key) for s in shapes] == [("", "8"), ("", "16"), ("", "3")]
    config = "cudagraph_dynamic_shape_warn_limit"
    merged = ev.shapes_value(shapes, 2, config).remedy
    assert "past torch's limit" not in merged
    assert ("torch's size lines named no compile, so which of this target's graphs each of "
            "these 3 sizes is for is not known (torch counts sizes per graph); torch warned "
            "of no graph past its limit of 2") in merged
    within = ev.shapes_value(shapes, 8, config).remedy
    assert within.endswith("3 in all is within torch's limit of 8 per graph")
    # torch's own warning, heard in a call of this target: past its limit, in its count
    warned = ev.shapes_value(shapes, 2, config, torch_warned=3).remedy
    assert "past torch's limit of 2 (torch warned: 3 distinct sizes of one graph)" in warned
    assert "not known" not in warned
