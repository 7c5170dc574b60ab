"""The tour: the README's first program, then every command on it, in one notebook.

It is the program of the documentation's screenshots (``tests/browser/test_screenshots.py``
shoots it in a live JupyterLab) and of ``tests/browser/test_report_views.py`` (run by
nbclient in ``make test``, then opened in Lab from its saved outputs), which compares each
view's text with the text its picture was shot with (``tests/support/view_text.py``): one
program, so a picture that no longer shows what the product shows fails ``make test``.
Its first two cells are the README's (``tests/project/test_docs.py`` checks the README's
blocks). Each command is sized for both uses: enough to show its view, cheap enough for CI.
"""

from __future__ import annotations

from dataclasses import dataclass

COMPILE_CELL = '''%%compile
import torch
def gelu_chain(x):
    y = torch.sin(x) * 2
    print("debug")          # a graph break
    return torch.relu(y) + 1
def wave(x):
    return torch.sin(x) * torch.cos(x) + torch.tanh(x) * 0.5
def scaled(x, scale):
    y = torch.sin(x) * scale
    s = y.sum().item()          # a graph break: Tensor.item()
    return torch.relu(y) + s
model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU())'''
CALL_CELL = '''import nbcompile
x, big = torch.randn(8, 64), torch.randn(256, 256)
y, z, w = gelu_chain(x), model(x), wave(big)   # the first calls compile
s = scaled(big, 2.0)'''
SQUASH_CELL = '''def squash(x):                 # bfloat16 math: compiled keeps float32 inside
    y = x * 1.7 + 0.3
    y = torch.sin(y) * y
    y = torch.exp(y) / (1 + torch.exp(y))
    return torch.tanh(y * 3.1 - 0.2)
xb = torch.randn(4096, dtype=torch.bfloat16)
fast = torch.compile(squash)'''
# Two small blocks: each fresh process %compile_time starts compiles them from an empty
# cache (the picture's three rounds take 8 processes).
BLOCKS_CELL = '''class Block(torch.nn.Module):  # identical blocks: regional compilation's case
    def __init__(self):
        super().__init__()
        self.norm, self.up, self.down = (torch.nn.LayerNorm(16), torch.nn.Linear(16, 32),
                                         torch.nn.Linear(32, 16))
    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))
blocks = torch.nn.Sequential(*[Block() for _ in range(2)]).requires_grad_(False)
x16 = torch.randn(4, 16)'''
ACT_CELL = '''%%compile --backend eager
def act(x):
    return x.relu() if MODE == "relu" else x.tanh()'''
TRACE_DIR = "job_trace"  # a real two-rank torchrun job whose rank 1 recompiled
#: %compile_time's alternated rounds: three for the picture's verdict; one in ``make test``
#: (``ci_cells``), where they change only what the view's text leaves out (the measured
#: verdict and its note, the count of fresh processes) and save four of eight processes.
ROUNDS, CI_ROUNDS = 3, 1


@dataclass(frozen=True)
class Shot:
    """One picture of the tour: its file, the first cell it shows (an index into
    ``CELLS``), and the element whose text is the view's (one per cell shown)."""

    name: str
    first: int
    view: str = ".jp-Cell-outputWrapper"


#: (source, the picture of that cell with its output, or None)
CELLS: list[tuple[str, Shot | None]] = [
    ("%load_ext nbcompile", None),
    (COMPILE_CELL, None),
    (CALL_CELL, Shot("compile-summary.png", 1)),  # the %%compile cell and this one
    ("nbcompile.report(gelu_chain)", Shot("report.png", 3)),
    ("%compare wave(big) --modes default,max-autotune-no-cudagraphs --budget 5",
     Shot("compare.png", 4)),
    ("%kprun scaled(big, 2.0) --repeat 10", Shot("kprun.png", 5)),
    ("%suggest gelu_chain(x) --budget 60", Shot("suggest.png", 6)),
    (SQUASH_CELL, None),
    ("%diagnose fast(xb) --budget 40", Shot("diagnose.png", 7)),
    (BLOCKS_CELL, None),
    (f"%compile_time blocks(x16) --remedies regional --rounds {ROUNDS}",
     Shot("compile-time.png", 9)),
    (ACT_CELL, None),
    ('MODE = "relu"\nact(x);', None),
    ('MODE = "tanh"', None),
    ("%%stance fail_on_recompile\nact(x)", Shot("stance.png", 11)),  # refused: guard, cell
    (f"%nbcompile open {TRACE_DIR}", Shot("open-trace.png", 15)),
    ("%nbcompile cache --info", Shot("cache.png", 16)),
    ("%nbcompile config", Shot("config.png", 17)),
]
#: The cell whose error is the point of its picture (torch's refusal, in words).
REFUSED = 14

#: Pictures of the inspector beside the notebook, and of the source <-> kernels tab, with
#: the element whose text is theirs: the selected target's sections, the tab.
INSPECTOR = Shot("inspector.png", 1, "#nbcompile-inspector .nbc-target")
SOURCE_KERNELS = Shot("source-kernels.png", 1, ".nbc-tabview")
#: The command line's self-contained page (``python -m nbcompile open --html``).
CLI_HTML = Shot("cli-html.png", 0, "body")
#: The target the inspector and the tab show.
INSPECTED = "gelu_chain"


def ci_cells() -> list[str]:
    """The tour's sources as ``make test`` runs them (``ROUNDS`` -> ``CI_ROUNDS``)."""
    return [src.replace(f"--rounds {ROUNDS}", f"--rounds {CI_ROUNDS}") for src, _ in CELLS]


def shots() -> list[Shot]:
    """Every picture, in the order the tour takes them."""
    cells = [shot for _, shot in CELLS if shot]
    return [cells[0], INSPECTOR, SOURCE_KERNELS, *cells[1:], CLI_HTML]
