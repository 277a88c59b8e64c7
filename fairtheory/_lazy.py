"""Lazy exports for subpackage ``__init__`` modules (PEP 562 module ``__getattr__``).

A subpackage lists its public names in ``__all__`` and imports the submodule that defines one only
when the name is first read, so that ``import fairtheory.algorithms`` stays cheap (no scipy, cvxpy or
torch until an algorithm is used).  Each ``__init__`` repeats the same imports under
``typing.TYPE_CHECKING`` for type checkers and IDEs; ``tests/test_public_api.py`` checks that the two
lists agree.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, *, modules: Iterable[str] = (), names: Mapping[str, Iterable[str]] | None = None
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``(__getattr__, __dir__, exported)`` for ``package``.

    ``modules``: submodules exported as modules (``from package import fedavg``); ``names``: submodule ->
    the public names it defines, exported by name.  A name read once is cached in the package's namespace.
    ``exported`` lists ``modules`` then ``names`` in the given order (the package's ``__all__``, or its
    lazy part)."""
    where: dict[str, str | None] = {}
    for name, sub in [(m, None) for m in modules] + [(n, s) for s, ns in (names or {}).items() for n in ns]:
        if name in where:
            raise ValueError(f"{name!r} is exported twice by {package}")
        where[name] = sub

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        sub = where[name]
        if sub is None:
            value = importlib.import_module(f"{package}.{name}")
        else:
            value = getattr(importlib.import_module(f"{package}.{sub}"), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__, list(where)
