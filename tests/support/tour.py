"""The README's first program, which is also the program of the documentation's
screenshots (``tests/browser/test_screenshots.py``): one source, so the picture shows the
program the README prints (``tests/project/test_docs.py`` checks the README's blocks)."""

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
