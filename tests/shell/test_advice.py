"""Advice names the real cause, on evidence only.

Each advice pattern has its evidence (the guard that failed, the tensor it names, the flag
the target was compiled with) and a near miss that must not trigger it (or not its words).
"""

from __future__ import annotations

import nbcompile
from tests.support.shell import run_cell

# A GPT-2-like forward: a Hugging Face model class (its module is under transformers),
# called over growing input lengths, no generate() anywhere.
GPT_LIKE = '''import torch
class TinyGPT(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(50, 8)
        self.head = torch.nn.Linear(8, 50)
    def forward(self, input_ids):
        return self.head(self.emb(input_ids).cumsum(1))
TinyGPT.__module__ = "transformers.models.gpt2.modeling_gpt2"
tiny_gpt = TinyGPT()
'''


def test_no_dynamic_over_changing_lengths_names_the_flag_not_generate(ip):
    ip.run_cell_magic("compile", "--no-dynamic --backend eager", GPT_LIKE)
    run_cell(ip, "with torch.no_grad():\n"
                 "    for n in range(4, 9):\n"
                 "        tiny_gpt(torch.randint(0, 50, (1, n)))\n")
    report = nbcompile.report(ip.user_ns["tiny_gpt"])
    [storm] = [a for a in report.advice if a.kind == "recompile-storm"]
    assert "generate()" not in storm.message and "KV cache" not in storm.message, storm
    assert "cache_implementation" not in storm.fix, storm
    assert "input_ids at dim 1: 4 -> 5 -> 6 -> 7 -> 8" in storm.message, storm
    assert "--no-dynamic" in storm.message and "Drop --no-dynamic" in storm.fix, storm
