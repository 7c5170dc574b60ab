"""The text of a view, as a picture shows it: kept beside each screenshot, compared in CI.

``make screenshots`` writes, beside each PNG of ``docs/_static/screenshots/``, the text
of the view it shot (``kprun.txt`` beside ``kprun.png``): the view element's ``innerText``
(``read`` runs in the page), normalised (``normalise``) so that what legitimately changes
from run to run does not count: the digits of timings, sizes and counts (and their units),
process ids and hashes in temporary paths, the checkout's path, the verdicts and notes of
measurements (``VARIABLE``: a timing verdict on a busy machine, a cache found warm or
cold), and the order of rows and of comma-separated lists that measurements sort. Words,
names, and cells named as ``cell [N], line L`` do count.

``tests/browser/test_report_views.py`` runs the same program (``tests/support/tour.py``)
and reads the same views' text in ``make test``; ``differences`` says what changed, and a
picture whose view now reads differently fails the suite until it is re-shot.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from pathlib import Path

from tests.fixtures.traces import record_runs
from tests.support import ROOT

SHOTS = ROOT / "docs" / "_static" / "screenshots"
RESHOOT = "re-shoot the pictures with `make screenshots` on a quiet machine"

#: Parts of a view whose text is a measurement's outcome, not the product's words: each is
#: read as "~". (CodeMirror shows only the lines in view: how many depends on the pane.)
VARIABLE = ", ".join([
    ".nbc-badge-saved",  # a record read from saved outputs rather than a live kernel
    ".cm-editor",  # a code view's lines in view
    ".nbc-status",  # a remedy's measured verdict (a badge)
    ".nbc-compile-time-remedies small",  # its rounds, in words
    ".nbc-timing .nbc-note",  # a comparison's notes: its verdicts and caches, in words
    ".nbc-timing .nbc-meta",  # the timed repeats and budget
    ".nbc-chart",  # bars drawn to measured lengths
])

#: Run in the page on the view element: its innerText with each ``VARIABLE`` part read as
#: "~" (the parts are put back as they were).
READ_JS = """(el, variable) => {
  const swaps = [];
  for (const node of el.querySelectorAll(variable)) {
    const mark = document.createElement('span');
    mark.textContent = '~';
    node.replaceWith(mark);
    swaps.push([mark, node]);
  }
  try {
    return el.innerText;
  } finally {
    for (const [mark, node] of swaps.reverse()) {
      mark.replaceWith(node);
    }
  }
}"""

_PARTS = re.compile(r", |; |: ")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
#: Numbers that are names, kept: a cell and a line as the product names them.
_KEEP = re.compile(r"cell \[\d+\]|\bline \d+\b")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*(?:e[-+]?\d+)?")
_TIME = re.compile(r"#\s?(?:ns|us|µs|ms|s|min)\b")
_SIZE = re.compile(r"#\s?(?:B|KiB|MiB|GiB|TiB|kB|MB|GB)\b")
#: Words that measured outcomes choose (timing verdicts, cache states), each as one mark,
#: and names made at random (a trace log's suffix).
_WORDS = [
    # a compile time's title names the remedies its rounds verified
    (re.compile(r", (?:verified|<verdict>): [\w.-]+(?:, [\w.-]+)*"), ""),  # (idempotent)
    # a test's folder (under pytest-xdist, inside its worker's: ``popen-gw1/``)
    (re.compile(r"/tmp/pytest-of-[^/\s]+/pytest-#/(?:popen-gw[^/\s]*/)?[^/\s]+/"), "<tmp>/"),
    (re.compile(r"(dedicated_log_torch_trace(?:_rank_#)?)_[^/\s:]+\.log"), r"\1_<random>.log"),
    (re.compile(r"\b(?:partly warm|warm|cold)\b(?= \()"), "<cache>"),
    (re.compile(r"#\s?(?:hits?|miss(?:es)?)\b"), "# <lookups>"),
    (re.compile(r"\b(?:inconclusive on this machine now|no significant difference|"
                r"significantly faster|significantly slower|no faster|faster|slower)\b"),
     "<verdict>"),
    (re.compile(r"\b(?:verified|did not help|inconclusive)(?=: )"), "<verdict>"),
    # a suggestion's timing, shown only when its trial was timed within the budget
    (re.compile(r"; <verdict>: #s vs #s per pass"), ""),
]


def read(view) -> str:
    """The innerText of a view element (a Playwright locator), its ``VARIABLE`` parts read
    as "~"."""
    return view.first.evaluate(READ_JS, VARIABLE)


#: Lines that a measurement writes only when it finds something (a profile's eager lines
#: adding up to less than its wall time; its line tracer costing more than half the call
#: again, which depends on the machine's load; a compile phase whose exclusive time is a
#: difference of torch's nested timers, shown only when it comes out above zero, as
#: Inductor's lowering less its graph passes on a busy machine may not): a line that
#: starts so, once normalised, is left out.
_MEASURED_LINES = re.compile(r"eager: the target's lines add up to |"
                             r"eager line times come from a line tracer and include its own|"
                             r"(?:Inductor lowering|Inductor passes|gc) #s$")


def cells_text(cells, shot, last: int) -> str:
    """The text of a picture of notebook cells: the view of each cell it shows (``shot``:
    a ``tour.Shot``; ``cells``: the notebook's cells as a locator), scrolled into view
    first (Lab may leave a cell out of view unrendered)."""
    parts = []
    for index in range(shot.first, last + 1):
        cell = cells.nth(index)
        cell.scroll_into_view_if_needed()
        parts.append(read(cell.locator(shot.view)))
    return "\n".join(parts)


@functools.cache
def _roots() -> tuple[str, ...]:
    """This checkout, and the one the committed trace runs were recorded in (their logs
    name the programs there), read as ``<root>``."""
    recorded = record_runs.recorded_root()
    return (str(ROOT),) + ((recorded,) if recorded and recorded != str(ROOT) else ())


def normalise(text: str) -> str:
    """``text`` as it is kept and compared: one line per visible line, spaces collapsed,
    the run-to-run noise marked (digits ``#``, units, temporary paths, measured words)."""
    text = _ANSI.sub("", text).replace("\u00a0", " ")
    for root in _roots():
        text = text.replace(root, "<root>")
    kept: list[str] = []

    def keep(m: re.Match[str]) -> str:
        kept.append(m.group(0))
        return chr(0xE000 + len(kept) - 1)  # a private-use character: no digit in it

    lines = []
    for line in text.splitlines():
        line = re.sub(r"~(?:\s*~)+", "~", " ".join(line.split()))  # measured parts side by side
        if not line or line == "~":
            continue
        line = _NUMBER.sub("#", _KEEP.sub(keep, line))
        line = _SIZE.sub("#B", _TIME.sub("#s", line))
        for pattern, mark in _WORDS:
            line = pattern.sub(mark, line)
        line = re.sub("[\ue000-\uf8ff]", lambda m: kept[ord(m.group(0)) - 0xE000], line)
        if not _MEASURED_LINES.match(line):
            lines.append(line)
    return "\n".join(lines) + "\n"


def _key(line: str) -> str:
    """A line as compared: its parts (between ``, ``, ``; `` and ``: ``) sorted, so rows
    and lists that a measurement orders (slowest kernel first, phases by time) compare
    equal."""
    return " | ".join(sorted(_PARTS.split(line)))


def differences(picture: str, today: str) -> str:
    """What the picture's text has that today's view has not, and the reverse ("" when
    they read alike): the lines compared as a multiset, each by its ``_key``."""
    old = Counter(_key(line) for line in picture.splitlines()
                  if line and not _MEASURED_LINES.match(line))
    new = Counter(_key(line) for line in today.splitlines()
                  if line and not _MEASURED_LINES.match(line))
    shown = {_key(line): line for line in (*picture.splitlines(), *today.splitlines())}
    gone, came = sorted((old - new).elements()), sorted((new - old).elements())
    return "\n".join([*(f"  picture only: {shown[k]}" for k in gone),
                      *(f"  today only:   {shown[k]}" for k in came)])


def path(shot: str, folder: Path = SHOTS) -> Path:
    """The text file beside a picture: ``kprun.txt`` for ``kprun.png``."""
    return folder / (Path(shot).stem + ".txt")


def save(shot: str, text: str, folder: Path) -> None:
    """Keep a shot view's text beside its picture (normalised)."""
    path(shot, folder).write_text(normalise(text))


def stale(shot: str, today: str, folder: Path = SHOTS) -> str:
    """Why the picture ``shot`` no longer shows today's view ("" when it does)."""
    kept = path(shot, folder)
    if not kept.exists():
        return f"{shot}: no text kept beside the picture ({kept.name})"
    diff = differences(kept.read_text(), normalise(today))
    return f"{shot} shows a view that now reads differently:\n{diff}" if diff else ""
