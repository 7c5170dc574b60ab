"""Every global setting a diagnosis could touch, saved at the start and put back after.

Each change a diagnosis makes is scoped already (``config.patch``, ``suppressed()``,
the bisector's own clean-up); this is the belt to those braces: Dynamo's, Inductor's and
AOTAutograd's settings, grad mode, the default dtype, the thread count and the
deterministic-algorithms flag are compared with what they were, and any that differ are
set back (and named in the diagnosis's notes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

from .torch_names import bisector, config_modules, same_value


@dataclass
class SavedSettings:
    configs: dict[str, dict[str, Any]] = field(default_factory=dict)
    grad: bool = True
    default_dtype: torch.dtype = torch.float32
    threads: int = 1
    deterministic: bool = False
    bisector: tuple[Any, ...] = ()

    @classmethod
    def save(cls) -> SavedSettings:
        saved = cls(
            configs={path: module.get_config_copy() for path, module in config_modules().items()},
            grad=torch.is_grad_enabled(),
            default_dtype=torch.get_default_dtype(),
            threads=torch.get_num_threads(),
            deterministic=torch.are_deterministic_algorithms_enabled(),
        )
        found = bisector()
        if found is not None:
            saved.bisector = (found.bisection_enabled, found.in_process_cache)
        return saved

    def restore(self) -> list[str]:
        """Put back whatever differs; the names of the settings that had to be."""
        changed: list[str] = []
        modules = config_modules()
        for path, values in self.configs.items():
            module = modules.get(path)
            if module is None:
                continue
            now = module.get_config_copy()
            for key, value in values.items():
                if key in now and not same_value(now[key], value):
                    try:
                        setattr(module, key, value)
                        changed.append(f"{path}.{key}")
                    except Exception:  # a read-only alias: its target is restored too
                        pass
        if torch.is_grad_enabled() != self.grad:
            torch.set_grad_enabled(self.grad)
            changed.append("grad mode")
        if torch.get_default_dtype() != self.default_dtype:
            torch.set_default_dtype(self.default_dtype)
            changed.append("default dtype")
        if torch.get_num_threads() != self.threads:
            torch.set_num_threads(self.threads)
            changed.append("thread count")
        if torch.are_deterministic_algorithms_enabled() != self.deterministic:
            torch.use_deterministic_algorithms(self.deterministic)
            changed.append("deterministic algorithms")
        found = bisector()
        if found is not None and self.bisector and (
                found.bisection_enabled, found.in_process_cache) != self.bisector:
            found.bisection_enabled, found.in_process_cache = self.bisector
            changed.append("CompilerBisector state")
        return changed
