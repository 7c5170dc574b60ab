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


class TransformerBlock(torch.nn.Module):
    """A pre-norm transformer block (self-attention and an MLP), as GPT-2's."""

    def __init__(self, width: int = 64, heads: int = 4) -> None:
        super().__init__()
        self.heads = heads
        self.norm1 = torch.nn.LayerNorm(width)
        self.qkv = torch.nn.Linear(width, 3 * width)
        self.proj = torch.nn.Linear(width, width)
        self.norm2 = torch.nn.LayerNorm(width)
        self.up = torch.nn.Linear(width, 4 * width)
        self.down = torch.nn.Linear(4 * width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(c, dim=-1)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (c // self.heads) ** -0.5
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        att = att.masked_fill(~mask, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, c)
        x = x + self.proj(y)
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm2(x))))


class Transformer(torch.nn.Module):
    """``depth`` identical transformer blocks in an ``nn.ModuleList`` and a final norm."""

    def __init__(self, depth: int = 12, width: int = 64) -> None:
        super().__init__()
        self.blocks = torch.nn.ModuleList(TransformerBlock(width) for _ in range(depth))
        self.norm = torch.nn.LayerNorm(width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return self.norm(x)


def transformer(depth: int = 12) -> Transformer:
    """A ``Transformer`` without gradients; its input is ``(batch, tokens, 64)``."""
    torch.manual_seed(0)
    return Transformer(depth).requires_grad_(False)


def stack(depth: int = 4) -> Stack:
    """A ``Stack`` without gradients (an inference compile: no backward graph)."""
    torch.manual_seed(0)
    return Stack(depth).requires_grad_(False)


def wave(x: torch.Tensor) -> torch.Tensor:
    """A pointwise function: called with two sizes it recompiles (shape-driven)."""
    return torch.sin(x) * 2 + torch.cos(x)
