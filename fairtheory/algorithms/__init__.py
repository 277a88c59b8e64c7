"""Federated algorithms, one module each: ``make(problem, **hyper) -> Algorithm`` binds and validates the
hyper-parameters once and returns pure ``init``/``step`` functions over a frozen ``State``
(:mod:`fairtheory.algorithms.base`); :func:`run` iterates any of them::

    from fairtheory.algorithms import fedavg, run

Every algorithm module defines its own ``make`` and ``State``, so the algorithms are exported as
modules (``fedavg.make(problem, lr=0.1)``); :class:`Algorithm`, :class:`History` and :func:`run` are
exported by name.  :mod:`~fairtheory.algorithms.names` holds the shared hyper-parameter vocabulary.
Everything here is imported on first use: ``import fairtheory.algorithms`` loads no algorithm, scipy
or torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairtheory._lazy import lazy_exports

if TYPE_CHECKING:  # the same names, for type checkers (tests/test_public_api.py checks they match)
    from fairtheory.algorithms import afl as afl
    from fairtheory.algorithms import base as base
    from fairtheory.algorithms import ditto as ditto
    from fairtheory.algorithms import drfa as drfa
    from fairtheory.algorithms import fedavg as fedavg
    from fairtheory.algorithms import fedfa as fedfa
    from fairtheory.algorithms import fedfv as fedfv
    from fairtheory.algorithms import fedfv_aggregate as fedfv_aggregate
    from fairtheory.algorithms import fedmgda as fedmgda
    from fairtheory.algorithms import fedprox as fedprox
    from fairtheory.algorithms import names as names
    from fairtheory.algorithms import power_of_choice as power_of_choice
    from fairtheory.algorithms import qfedavg as qfedavg
    from fairtheory.algorithms import qfedsgd as qfedsgd
    from fairtheory.algorithms import rfedfair as rfedfair
    from fairtheory.algorithms import scaffold as scaffold
    from fairtheory.algorithms import scaffpd as scaffpd
    from fairtheory.algorithms.base import Algorithm as Algorithm
    from fairtheory.algorithms.base import History as History
    from fairtheory.algorithms.base import run as run

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    modules=["afl", "ditto", "drfa", "fedavg", "fedfa", "fedfv", "fedmgda", "fedprox", "power_of_choice",
             "qfedavg", "qfedsgd", "rfedfair", "scaffold", "scaffpd", "fedfv_aggregate", "base", "names"],
    names={"base": ["Algorithm", "History", "run"]},
)
