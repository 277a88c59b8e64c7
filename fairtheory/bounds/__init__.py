"""Theorem right-hand sides and constants as plain functions named after the result.

One module per seed family, exported as modules because the results share names across seeds
(``rcfl.theorem1_bound`` is 002/000 Theorem 1, ``fedfv.theorem1_bound`` is 004 Theorem 1)::

    from fairtheory.bounds import rcfl
    rcfl.theorem1_bound(...)

* :mod:`~fairtheory.bounds.rcfl`: RC-FL / rFedFair convergence (002, 000);
* :mod:`~fairtheory.bounds.fedfv`: FedFV's projections and Theorems 1-2 (004);
* :mod:`~fairtheory.bounds.generalization`: Q_alpha generalisation bounds (002 Theorems 3-4).

The modules are imported on first use (``import fairtheory.bounds`` loads no scipy).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairtheory._lazy import lazy_exports

if TYPE_CHECKING:  # the same names, for type checkers (tests/test_public_api.py checks they match)
    from fairtheory.bounds import fedfv as fedfv
    from fairtheory.bounds import generalization as generalization
    from fairtheory.bounds import rcfl as rcfl

__getattr__, __dir__, __all__ = lazy_exports(__name__, modules=["rcfl", "fedfv", "generalization"])
