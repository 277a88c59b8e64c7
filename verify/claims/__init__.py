"""Claim checks, one module per family (a family may be a subpackage, e.g. :mod:`verify.claims.peers` with
one module per peer library); importing a module registers its claims."""

from __future__ import annotations

import importlib
import pkgutil
import traceback
from collections.abc import Iterable

#: modules whose import failed in the last :func:`load_all` (name -> traceback)
LOAD_ERRORS: dict[str, str] = {}


def _load(path: Iterable[str], prefix: str) -> None:
    for mod in pkgutil.iter_modules(path):
        name = f"{prefix}.{mod.name}"
        try:
            module = importlib.import_module(name)
        except Exception:  # reported by the runner, never swallowed
            LOAD_ERRORS[name] = traceback.format_exc(limit=6)
            continue
        if mod.ispkg:  # a family split into modules: each one loads (and fails) on its own
            _load(module.__path__, name)


def load_all() -> dict[str, str]:
    """Import every submodule, subpackages included, so that its ``@claim`` decorators run.

    A module that fails to import does not stop the others; its traceback is kept in
    :data:`LOAD_ERRORS` (and returned) so the runner can report it and fail."""
    _load(__path__, __name__)
    return dict(LOAD_ERRORS)
