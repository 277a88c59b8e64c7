r"""Exact optimum of any monotone convex aggregator of the client losses: ``min_w A(f(w))``.

The model is the epigraph form

.. math:: \min_{w,\,t}\ A_{\mathrm{cvx}}(t) \quad\text{s.t.}\quad f_i(w) \le t_i ,

where ``A_cvx`` is a cvxpy expression of the loss vector ``t`` that is nondecreasing in ``t`` and has
``A``'s minimisers (the aggregator's ``cvxpy(t)`` method, or ``expr=`` given by the user; a monotone
transform of ``A`` is fine, e.g. the ``(q+1)``-norm for q-FFL).  It is solved by the same Clarabel
cascade as the RC-FL solvers, polished in float64 (damped Newton on ``A(f(w))``), and certified by
Fenchel duality (``docs/exact.md`` Sec. 2): for convex ``A`` and any ``lam >= 0``,
``A(f(w)) >= lam . f(w) - A*(lam)``, so ``min_w lam . f(w) - A*(lam)`` is a lower bound of the optimum.
Two choices of ``lam`` with a known conjugate are tried and the larger bound kept:

* ``lam = A.weights(f(w*))`` (a subgradient at ``f* = f(w*)``): ``A*(lam) = lam . f* - A(f*)``;
* for support functions of a set ``S`` (``aggregator.set``): the solver's multipliers projected onto
  ``S`` (``A* = 0`` on ``S``).

The result is returned only when ``A(f(w*))`` minus the bound is at most
``gap_tol max(|value|, min(1, unit))`` (``unit``: the loss scale, 1 for ordinary problems);
otherwise :class:`~fairtheory.errors.SolverError` (status ``uncertified``).  The certificate assumes
``A`` convex; check a new aggregator with :func:`fairtheory.testing.audit` first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from fairtheory._validation import check_in_range
from fairtheory.aggregators import as_aggregator
from fairtheory.errors import FairtheoryTypeError, SolverError
from fairtheory.exact.rcfl import (
    DEFAULT_GAP_TOL,
    _cert_scale,
    _check_problem,
    _dual_value,
    _loss_vector,
    _model_variable,
    _newton,
    _solve,
    _status,
    _unit,
)
from fairtheory.exact.result import ExactResult
from fairtheory.problems.base import FederatedProblem
from fairtheory.sets import CappedSimplex, IntegratedSet

__all__ = ["solve_aggregator"]


def solve_aggregator(problem: FederatedProblem, aggregator: Any, *, expr: Callable[[Any], Any] | None = None,
                     gap_tol: float = DEFAULT_GAP_TOL, polish: bool = True) -> ExactResult:
    r"""Certified ``min_w A(f(w))`` for a monotone convex aggregator ``A``.

    Parameters
    ----------
    problem : FederatedProblem with ``cvxpy_losses`` (convex client losses).
    aggregator : Aggregator (``value``, ``weights``; ``cvxpy(t)`` unless ``expr`` is given) or a set.
    expr : callable, optional
        ``expr(t)`` -> cvxpy expression of the loss vector variable ``t`` (shape ``(n,)``),
        nondecreasing in ``t``, with ``A``'s minimisers.  Default: ``aggregator.cvxpy``.
    gap_tol : relative duality-gap tolerance of the certificate (default ``1e-6``).
    polish : refine the solver's point by damped Newton on ``A(f(w))`` (kept only if it lowers ``A``).

    Returns
    -------
    ExactResult with ``value = A(f(w*))``, ``argmin = w*``, ``weights = lam`` (the certifying
    weights), ``certificate = {"solver_value", "lower_bound", "gap", "route", "newton_steps"}`` and
    ``extra = {"losses": f(w*)}``.
    """
    import cvxpy as cp

    _check_problem(problem)
    agg = as_aggregator(aggregator, problem.n)
    gap_tol = check_in_range(gap_tol, "gap_tol", low=0.0)
    build = expr if expr is not None else getattr(agg, "cvxpy", None)
    if not callable(build):
        raise FairtheoryTypeError(
            f"aggregator {agg!r} has no cvxpy(t) method: pass expr=lambda t: <cvxpy expression of t>")
    unit = _unit(problem)
    # support functions of sets are positively homogeneous: solve in units of the losses (f/unit has
    # the same minimisers); any other aggregator is solved as written, its certificate still scale-aware
    model_unit = unit if expr is None and isinstance(getattr(agg, "set", None), (CappedSimplex, IntegratedSet)) else 1.0
    if expr is None and model_unit == 1.0 and unit != 1.0 and callable(getattr(agg, "rescaled", None)):
        # the aggregator of f/unit (TERM: tilt t unit; smoothed Q_alpha: mu/unit; q-FFL: offset/unit) has the
        # same minimisers: losses of order 1e-12 or 1e12 are solved in units of the losses
        build, model_unit = agg.rescaled(unit).cvxpy, unit
    w, t = _model_variable(problem), cp.Variable(problem.n)
    fvec, shared = _loss_vector(problem, w, model_unit)
    cons = [fvec + shared <= t]
    what = "expr(t)" if expr is not None else f"{type(agg).__name__}.cvxpy(t)"
    try:
        objective = build(t)
        prob = cp.Problem(cp.Minimize(objective), cons)
    except (ValueError, TypeError, ArithmeticError, cp.error.DCPError) as exc:
        raise FairtheoryTypeError(f"{what} must build a scalar cvxpy expression of t (shape ({problem.n},)): "
                                  f"{type(exc).__name__}: {exc}") from exc
    if not prob.is_dcp():
        raise FairtheoryTypeError(f"{what}: the expression (expr or the aggregator's cvxpy) must be convex (DCP) in t")

    def value_at(x: np.ndarray) -> float:
        return agg.value(np.asarray(problem.losses(x), dtype=np.float64))

    solver_value, solver, status = _solve(prob, "solve_aggregator", lambda: value_at(np.asarray(w.value, np.float64)))
    solver_value *= model_unit
    w_star = np.asarray(w.value, dtype=np.float64)
    steps = 0
    if polish:
        with np.errstate(over="ignore", invalid="ignore"):  # gradient norms of losses ~1e100 overflow: Newton stops
            cand, steps = _newton(_objective(problem, agg), w_star, max_iter=60)
        if np.all(np.isfinite(cand)) and value_at(cand) <= value_at(w_star):
            w_star = cand
    f_star = np.asarray(problem.losses(w_star), dtype=np.float64)
    value = agg.value(f_star)
    bounds: list[tuple[float, str, np.ndarray]] = []
    lam = np.asarray(agg.weights(f_star), dtype=np.float64)
    if np.all(lam >= 0):
        dual, _ = _dual_value(problem, lam, w_star)
        bounds.append((value - (float(lam @ f_star) - dual), "weights", lam))
    S = getattr(agg, "set", None)
    mult = cons[0].dual_value
    if isinstance(S, CappedSimplex) and mult is not None:
        lam_s = S.project(np.asarray(mult, dtype=np.float64).reshape(-1))
        dual, _ = _dual_value(problem, lam_s, w_star)
        bounds.append((dual, "multipliers", lam_s))
    if not bounds:
        raise SolverError("solve_aggregator", solver, "uncertified: the aggregator's weights are negative at the "
                                                      "solution (not monotone), so no duality bound applies")
    lower, route, lam_c = max(bounds, key=lambda b: b[0])
    gap = value - lower
    scale = _cert_scale(value, unit)
    if not -gap_tol * scale <= gap <= gap_tol * scale:
        raise SolverError("solve_aggregator", solver,
                          f"uncertified: value {value!r} vs lower bound {lower!r} (gap {gap:.3g})")
    return ExactResult(value, w_star, lam_c, solver, _status(status),
                       {"solver_value": float(solver_value), "lower_bound": float(lower), "gap": float(gap),
                        "newton_steps": float(steps)},
                       {"losses": f_star, "certificate_route": route})


def _objective(problem: FederatedProblem, agg: Any) -> Callable[[np.ndarray], tuple[float, np.ndarray, np.ndarray]]:
    """``w -> (A(f(w)), grad, H)`` with ``H = sum_i lam_i Hess f_i + G' diag(A'') G`` (the second term only
    where the aggregator gives its ``curvature``; otherwise a positive semidefinite Gauss-Newton model)."""
    curv = getattr(agg, "curvature", None)

    def fgh(x: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        f = np.asarray(problem.losses(x), dtype=np.float64)
        try:
            val = agg.value(f)
            lam = np.asarray(agg.weights(f), dtype=np.float64)
        except ValueError:  # outside the aggregator's domain: reject the trial point
            return np.inf, np.zeros_like(x), np.eye(x.size)
        G = np.asarray(problem.grads(x), dtype=np.float64)
        H = np.einsum("n,nij->ij", lam, problem.hessians(x))
        if callable(curv):
            H += np.einsum("n,ni,nj->ij", np.asarray(curv(f), dtype=np.float64), G, G)
        return val, lam @ G, H

    return fgh
