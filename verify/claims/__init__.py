"""Claim checks, one module per family; importing a module registers its claims."""

from __future__ import annotations

import importlib
import pkgutil
import traceback

#: modules whose import failed in the last :func:`load_all` (name -> traceback)
LOAD_ERRORS: dict[str, str] = {}


def load_all() -> dict[str, str]:
    """Import every submodule so that its ``@claim`` decorators run.

    A module that fails to import does not stop the others; its traceback is kept in
    :data:`LOAD_ERRORS` (and returned) so the runner can report it and fail."""
    for mod in pkgutil.iter_modules(__path__):
        name = f"{__name__}.{mod.name}"
        try:
            importlib.import_module(name)
        except Exception:  # reported by the runner, never swallowed
            LOAD_ERRORS[name] = traceback.format_exc(limit=6)
    return dict(LOAD_ERRORS)
