"""The trusted base of fairtheory's proofs: everything a certificate check executes, nothing else.

It imports only the standard library and python-flint, and nothing of the project (searches, fits, sympy helpers
and certificate makers live in ``fairtheory.proofs`` and are never imported here).  This file imports nothing:
modules load on first use.  Each rule's soundness argument is in the docstring beside its code.

Reading order (one sitting):

1. ``check`` - the entry point: admissibility (sizes, texts), dispatch on the certificate's kind, the time budget;
   statements (``statement_of``, ``implies``) and their words (``describe``);
2. ``bounded`` - the forked child with its wall-clock, CPU and memory limits;
3. ``symbolic`` - the ``"symbolic"`` kind: terms, statements, the rules of a derivation and why each is sound;
4. ``normal_form`` - its exact rational-function arithmetic, the atoms and their axioms, signs, and the domain
   (``Ctx.point``: the one door of every substitution);
5. ``linalg`` - the exact PSD test of the PEP kinds (one fraction-free elimination);
6. ``rows`` and ``classes`` - the symbols of a performance-estimation problem and the interpolation rows of each
   function class; ``pep`` (``"pep-dual"``), ``family`` (``"pep-family"``), ``potential_kernel``
   (``"pep-potential"``).

docs/proofs.md, "The trusted base", lists the files and their sizes (a test keeps that table current).
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: the kernel's modules (loaded on first attribute access)
__all__ = ["check", "bounded", "symbolic", "normal_form", "linalg", "rows", "classes", "pep", "family", "potential_kernel"]


def __getattr__(name: str) -> ModuleType:
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
