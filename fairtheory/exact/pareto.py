r"""Pareto-stationarity measure: the min-norm point of the convex hull of gradients.

.. math:: \rho(g_1, \dots, g_m) = \min_{\lambda \in \Delta_m} \Big\| \sum_i \lambda_i g_i \Big\|

(004 Def. 4, after Desideri 2012: ``theta`` is Pareto-stationary iff ``rho = 0`` at its client
gradients.)  The solver is :func:`fairtheory.exact.min_norm.min_norm_point` (the exact QP
``min lam^T G lam`` on the ``m x m`` Gram matrix ``G = U U^T``, any weight box, certified by the
Frank-Wolfe gap ``||v||^2 - min_i g_i . v >= 0`` of the point ``v = U^T lam``, zero exactly at the
optimum); this module holds what is specific to Pareto stationarity and the solver's independent twins:

* :func:`pareto_stationarity` - ``rho`` at a model from its client gradients;
* :func:`min_norm_point_qp` - the same QP posed in ``R^d`` for cvxpy (Clarabel), an independent twin
  (and the route this project used before the Gram solver: 593x slower at ``m = 50``,
  ``d = 10,000`` in one run of ``benchmarks/bench_min_norm.py``);
* :func:`min_norm_point_2` - the closed form for two vectors,
  ``lam_1 = clip((g_2 - g_1) . g_2 / ||g_1 - g_2||^2, 0, 1)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fairtheory._validation import FairtheoryValueError
from fairtheory.backend import to_numpy
from fairtheory.exact.result import ExactResult, solve_checked

__all__ = ["min_norm_point_qp", "min_norm_point_2", "pareto_stationarity"]


def _as_matrix(U: Any, name: str = "U") -> np.ndarray:
    arr = np.asarray(to_numpy(U), dtype=np.float64)
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise FairtheoryValueError(
            f"{name} must be a non-empty 2-D array (m gradients x d), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise FairtheoryValueError(f"{name} must be finite")
    return arr


def _as_vector(g: Any, name: str) -> np.ndarray:
    arr = np.asarray(to_numpy(g), dtype=np.float64)
    if arr.ndim != 1 or arr.size == 0:
        raise FairtheoryValueError(f"{name} must be a non-empty 1-D array (a gradient), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise FairtheoryValueError(f"{name} must be finite")
    return arr


def _fw_gap(U: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, float]:
    v = lam @ U
    return v, float(v @ v - np.min(U @ v))


def min_norm_point_2(g1: Any, g2: Any) -> ExactResult:
    """Closed form for two gradients: ``value = min_{l in [0,1]} ||l g1 + (1-l) g2||``.

    ``weights = (l, 1 - l)``, ``argmin`` the min-norm point; ``g1 = g2`` gives ``l = 1/2``."""
    a1, a2 = _as_vector(g1, "g1"), _as_vector(g2, "g2")
    if a1.shape != a2.shape:
        raise FairtheoryValueError(f"g1 and g2 must have the same length, got {a1.size} and {a2.size}")
    U = np.stack([a1, a2])
    s = float(np.max(np.abs(U))) or 1.0  # scaled so that squared norms cannot overflow
    a, b = U / s
    diff = a - b
    dd = float(diff @ diff)
    lam1 = 0.5 if dd == 0.0 else float(np.clip(-(diff @ b) / dd, 0.0, 1.0))
    lam = np.array([lam1, 1.0 - lam1])
    vs, gap = _fw_gap(U / s, lam)
    with np.errstate(over="ignore"):
        fw_gap = gap * s * s
    return ExactResult(value=s * float(np.linalg.norm(vs)), argmin=s * vs, weights=lam, solver="closed form",
                       status="optimal", certificate={"fw_gap": fw_gap, "fw_gap_relative": gap})


def _polish(A: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Refine the interior-point weights on their support ``S``: the min-norm point of the affine
    hull of ``{g_i : i in S}`` solves ``[G_SS 1; 1^T 0] [lam; -mu] = [0; 1]`` (least squares when
    singular).  Kept only when feasible and not worse (the QP's ``||v||`` is accurate to about the
    square root of its tolerance near ``rho = 0``; the polish restores float precision)."""
    S = np.flatnonzero(w > 1e-7 * w.max())
    k = S.size
    K = np.zeros((k + 1, k + 1))
    K[:k, :k] = A[S] @ A[S].T
    K[:k, k] = K[k, :k] = 1.0
    rhs = np.zeros(k + 1)
    rhs[k] = 1.0
    sol = np.linalg.lstsq(K, rhs, rcond=None)[0][:k]
    if np.any(sol < -1e-12) or not np.all(np.isfinite(sol)):
        return w
    cand = np.zeros_like(w)
    cand[S] = np.clip(sol, 0.0, None)
    cand /= cand.sum()
    return cand if np.linalg.norm(cand @ A) <= np.linalg.norm(w @ A) else w


def min_norm_point_qp(U: Any, *, solver: str = "CLARABEL") -> ExactResult:
    r"""Exact ``min_{lam in simplex} ||sum_i lam_i g_i||`` for the rows ``g_i`` of ``U`` (m, d) as a QP in
    ``R^d`` (cvxpy): the independent twin of :func:`fairtheory.exact.min_norm.min_norm_point` (simplex only).

    Solved as the QP ``min ||U^T lam||^2`` (rows scaled by the largest norm; Clarabel, tolerances 1e-10).
    Returns ``ExactResult(value=rho, argmin=U^T lam, weights=lam, certificate={"fw_gap": ...,
    "closed_form": ... (m = 2 only)})``.
    """
    import cvxpy as cp

    A = _as_matrix(U)
    m = A.shape[0]
    if m == 1:
        v = A[0].copy()
        return ExactResult(value=float(np.linalg.norm(v)), argmin=v, weights=np.ones(1),
                           solver="trivial", certificate={"fw_gap": 0.0})
    scale = float(np.max(np.linalg.norm(A, axis=1)))
    if scale == 0.0:
        return ExactResult(value=0.0, argmin=np.zeros(A.shape[1]), weights=np.full(m, 1.0 / m),
                           solver="trivial", certificate={"fw_gap": 0.0})
    As = A / scale
    lam = cp.Variable(m, nonneg=True)
    prob = cp.Problem(cp.Minimize(cp.sum_squares(As.T @ lam)), [cp.sum(lam) == 1])
    kw = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10} if solver == "CLARABEL" else {}
    solve_checked(prob, "min-norm point of the gradient hull", solver, **kw)
    w = np.clip(np.asarray(lam.value, dtype=np.float64), 0.0, None)
    w = _polish(As, w / w.sum())
    v, gap = _fw_gap(A, w)
    cert = {"fw_gap": gap}
    if m == 2:
        cert["closed_form"] = min_norm_point_2(A[0], A[1]).value
    return ExactResult(value=float(np.linalg.norm(v)), argmin=v, weights=w, solver=solver,
                       status=str(prob.status), certificate=cert)


def pareto_stationarity(grads: Any) -> float:
    """``rho`` at a model: ``min_{lam in simplex} ||sum_i lam_i grad f_i||`` for the rows of ``grads``
    (closed form for two clients, :func:`fairtheory.exact.min_norm.min_norm_point` otherwise)."""
    from fairtheory.exact.min_norm import min_norm_point  # scipy's LAPACK: loaded on first use

    A = _as_matrix(grads, "grads")
    if A.shape[0] == 2:
        return min_norm_point_2(A[0], A[1]).value
    return min_norm_point(A).value
