"""Where a measurement ran: device of the inputs, synchronising it, and the machine."""

from __future__ import annotations

import os
import platform

import torch

from .numerics import leaves


def device_of(args: tuple, kwargs: dict) -> torch.device:
    for leaf in leaves((args, kwargs)):
        if isinstance(leaf, torch.Tensor):
            return leaf.device
    return torch.device("cpu")


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def environment(device: torch.device) -> dict[str, str]:
    env = {
        "torch": torch.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu_count": str(os.cpu_count() or ""),
        "processor": cpu_name(),
    }
    if device.type == "cuda":
        env["gpu"] = torch.cuda.get_device_name(device)
    return env


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()

