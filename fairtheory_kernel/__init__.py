"""The trusted base of fairtheory's proofs: everything :func:`fairtheory.proofs.check_proof` executes, nothing else.

Modules (imported on first use; this file imports nothing): ``check`` (dispatch on the certificate kind, limits,
statements), ``pep`` (``"pep-dual"``), ``family`` (``"pep-family"``), ``rows`` (the interpolation rows and the
methods on symbols, shared by both, generic in the number ring), ``linalg`` (exact PSD test), ``words`` (the
checked statement in words) and ``symbolic`` (``"symbolic"``).  Proposers - searches, fits, sympy helpers - live
outside this package and are never imported by it.  docs/proofs.md, "The trusted base", lists the files and their
sizes.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: the kernel's modules (loaded on first attribute access)
__all__ = ["check", "pep", "family", "rows", "linalg", "words", "symbolic", "normal_form", "potential_kernel"]


def __getattr__(name: str) -> ModuleType:
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
