"""Theory figures, regenerated from code: ``python -m figures --out DIR [--only NAME] [--pdf]``."""

from __future__ import annotations

import importlib
import pkgutil


def load_all() -> None:
    """Import every figure module so its ``@figure`` registration runs."""
    for mod in pkgutil.iter_modules(__path__):
        if mod.name not in ("registry", "runner", "checks", "docs", "__main__"):
            importlib.import_module(f"{__name__}.{mod.name}")
