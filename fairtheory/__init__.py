"""fairtheory: theory verification and exact numerics for fairness-aware federated learning.

Subpackages: :mod:`fairtheory.sets`, :mod:`fairtheory.aggregators`, :mod:`fairtheory.objectives`,
:mod:`fairtheory.problems`, :mod:`fairtheory.exact`, :mod:`fairtheory.algorithms`,
:mod:`fairtheory.instances`, :mod:`fairtheory.bounds`, :mod:`fairtheory.metrics`,
:mod:`fairtheory.testing`, :mod:`fairtheory.worstcase`, :mod:`fairtheory.proofs`.  Each subpackage lists
its public API in ``__all__`` (``tests/test_public_api.py`` checks every name); the algorithms, bounds,
objectives, exact solvers and instances load on first use.  Every error raised on purpose derives from
:class:`FairtheoryError`.
"""

from fairtheory.errors import (
    DivergenceError,
    FairtheoryError,
    FairtheoryTypeError,
    FairtheoryValueError,
    NonFiniteError,
    SolverError,
)

__version__ = "0.2.0"

__all__ = ["__version__", "FairtheoryError", "FairtheoryValueError", "FairtheoryTypeError", "SolverError",
           "DivergenceError", "NonFiniteError"]
