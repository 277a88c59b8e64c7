"""Exact ground truth from cvxpy; solvers raise :class:`SolverError` unless optimal or certified.

Routes, certificates and solver choices: ``docs/exact.md``.

Capped simplices and ``Q_alpha`` (:mod:`fairtheory.exact.capped`, HiGHS LPs / Clarabel QP):
:func:`support_lp`, :func:`lower_lp`, :func:`argmax_lp`, :func:`project_qp`, :func:`qalpha_sup_lp`,
:func:`qalpha_dual_lp`, :func:`integrated_support_lp`.  Model-level solvers live in their own
submodules (``fairtheory.exact.rcfl``, ``fairtheory.exact.relative``, ``fairtheory.exact.aggregate``
for any monotone convex aggregator, ...); import them from there.
"""

from fairtheory.exact.capped import (
    argmax_lp,
    integrated_support_lp,
    lower_lp,
    project_qp,
    qalpha_dual_lp,
    qalpha_sup_lp,
    support_lp,
)
from fairtheory.exact.result import ExactResult, SolverError, solve_checked

__all__ = [
    "ExactResult",
    "SolverError",
    "solve_checked",
    "support_lp",
    "lower_lp",
    "argmax_lp",
    "project_qp",
    "qalpha_sup_lp",
    "qalpha_dual_lp",
    "integrated_support_lp",
]
