"""Exact ground truth from cvxpy; solvers raise :class:`SolverError` unless optimal or certified.

Routes, certificates and solver choices: ``docs/exact.md``.  Every solver returns an
:class:`ExactResult` (value, argmin, weights, solver, status, certificate).

* Capped simplices and ``Q_alpha`` (:mod:`~fairtheory.exact.capped`, HiGHS LPs / Clarabel QP):
  :func:`support_lp`, :func:`lower_lp`, :func:`argmax_lp`, :func:`project_qp`, :func:`qalpha_sup_lp`,
  :func:`qalpha_dual_lp`, :func:`integrated_support_lp`.
* Models (:mod:`~fairtheory.exact.rcfl`): :func:`solve_fedavg`, :func:`solve_rcfl` (002 Def. 1),
  :func:`solve_smoothed_rcfl` (002 Lemma 2), :func:`solve_afl`, :func:`maxmin_quadratic`;
  q-FFL (:mod:`~fairtheory.exact.qffl`): :func:`solve_qffl`; any monotone convex aggregator
  (:mod:`~fairtheory.exact.aggregate`): :func:`solve_aggregator`; relative fairness
  (:mod:`~fairtheory.exact.relative`, 001): :func:`solve_integrated_minimax`, :func:`select_phi`, ...
* Min-norm point of a convex hull (:mod:`~fairtheory.exact.min_norm`, on the Gram matrix, any weight
  box): :func:`min_norm_point`, :func:`min_norm_weights`; Pareto stationarity and the solver's
  independent twins (:mod:`~fairtheory.exact.pareto`): :func:`pareto_stationarity`,
  :func:`min_norm_point_2` (closed form, two gradients), :func:`min_norm_point_qp` (cvxpy in ``R^d``).

Solver constants (tolerances, solver names) stay in their modules.  Everything but the capped-simplex
LPs and the result type is imported on first use (``import fairtheory.exact`` loads no scipy, cvxpy
or problem classes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairtheory._lazy import lazy_exports
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

if TYPE_CHECKING:  # the same names, for type checkers (tests/test_public_api.py checks they match)
    from fairtheory.exact.aggregate import solve_aggregator as solve_aggregator
    from fairtheory.exact.min_norm import box_lmo as box_lmo
    from fairtheory.exact.min_norm import fedmgda_box as fedmgda_box
    from fairtheory.exact.min_norm import min_norm_point as min_norm_point
    from fairtheory.exact.min_norm import min_norm_weights as min_norm_weights
    from fairtheory.exact.pareto import min_norm_point_2 as min_norm_point_2
    from fairtheory.exact.pareto import min_norm_point_qp as min_norm_point_qp
    from fairtheory.exact.pareto import pareto_stationarity as pareto_stationarity
    from fairtheory.exact.qffl import newton_polish as newton_polish
    from fairtheory.exact.qffl import solve_qffl as solve_qffl
    from fairtheory.exact.rcfl import maxmin_quadratic as maxmin_quadratic
    from fairtheory.exact.rcfl import smoothed_objective as smoothed_objective
    from fairtheory.exact.rcfl import solve_afl as solve_afl
    from fairtheory.exact.rcfl import solve_fedavg as solve_fedavg
    from fairtheory.exact.rcfl import solve_rcfl as solve_rcfl
    from fairtheory.exact.rcfl import solve_smoothed_rcfl as solve_smoothed_rcfl
    from fairtheory.exact.relative import NotConvexRegimeError as NotConvexRegimeError
    from fairtheory.exact.relative import PhiSelection as PhiSelection
    from fairtheory.exact.relative import global_search_minimax as global_search_minimax
    from fairtheory.exact.relative import index_curve as index_curve
    from fairtheory.exact.relative import select_phi as select_phi
    from fairtheory.exact.relative import solve_integrated_minimax as solve_integrated_minimax

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

__getattr__, __dir__, _lazy_names = lazy_exports(
    __name__,
    names={
        "rcfl": ["solve_fedavg", "solve_rcfl", "solve_smoothed_rcfl", "solve_afl", "maxmin_quadratic", "smoothed_objective"],
        "qffl": ["solve_qffl", "newton_polish"],
        "aggregate": ["solve_aggregator"],
        "relative": ["solve_integrated_minimax", "global_search_minimax", "select_phi", "index_curve", "PhiSelection",
                     "NotConvexRegimeError"],
        "min_norm": ["min_norm_point", "min_norm_weights", "fedmgda_box", "box_lmo"],
        "pareto": ["pareto_stationarity", "min_norm_point_2", "min_norm_point_qp"],
    },
)
__all__ += _lazy_names
