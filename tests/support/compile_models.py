"""Small models for compile-time tests, importable so a fresh process can rebuild them."""

from __future__ import annotations

import torch


class Block(torch.nn.Module):
    """One residual block; a model repeats it."""

    def __init__(self, width: int = 8) -> None:
        super().__init__()
        self.norm = torch.nn.LayerNorm(width)
        self.up = torch.nn.Linear(width, 2 * width)
        self.down = torch.nn.Linear(2 * width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.up(self.norm(x))
        y = torch.nn.functional.gelu(y) * torch.sigmoid(y)
        return x + self.down(y)


class Stack(torch.nn.Module):
    """``depth`` identical blocks in an ``nn.ModuleList`` (regional compilation's case)."""

    def __init__(self, depth: int = 4, width: int = 8) -> None:
        super().__init__()
        self.blocks = torch.nn.ModuleList(Block(width) for _ in range(depth))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return x


class Plain(torch.nn.Module):
    """No repeated blocks: two layers of different shapes."""

    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Linear(8, 16)
        self.b = torch.nn.Linear(16, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.b(torch.relu(self.a(x)))


def stack(depth: int = 4) -> Stack:
    """A ``Stack`` without gradients (an inference compile: no backward graph)."""
    torch.manual_seed(0)
    return Stack(depth).requires_grad_(False)


def wave(x: torch.Tensor) -> torch.Tensor:
    """A pointwise function: called with two sizes it recompiles (shape-driven)."""
    return torch.sin(x) * 2 + torch.cos(x)
