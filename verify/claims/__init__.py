"""Claim checks, one module per family; importing this package registers them all."""

from __future__ import annotations

import importlib
import pkgutil


def load_all() -> None:
    """Import every submodule so that its ``@claim`` decorators run."""
    for mod in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{mod.name}")
