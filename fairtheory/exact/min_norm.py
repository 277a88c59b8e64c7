r"""Certified min-norm point of a convex hull, solved on the ``m x m`` Gram matrix.

.. math:: \rho = \min_{\lambda \in S} \Big\| \sum_i \lambda_i g_i \Big\|, \qquad
          S = \{\lambda : \textstyle\sum_i \lambda_i = 1,\ lo_i \le \lambda_i \le hi_i\}

with ``lo = 0``, ``hi = 1`` the probability simplex (004 Def. 4, Pareto stationarity after Desideri
2012) and ``lo = max(0, lam0 - eps)``, ``hi = min(1, lam0 + eps)`` the box of FedMGDA+ (Hu et al.
2022, Alg. 1: the weights may move at most ``eps`` from the sample weights ``lam0``).

Only ``G = U U^T`` enters the problem ``min_{lam in S} lam^T G lam``, so the cost after the Gram
product (``O(m^2 d)``, one BLAS call) does not depend on the dimension ``d``.  Routes:

* ``"active-set"`` (default): a primal active-set method on ``G`` scaled by its largest diagonal.
  Each iteration solves the equality-constrained problem on the free weights (a ``(k+1) x (k+1)``
  KKT system, least squares when ``G`` is singular, which is consistent because ``G`` is a Gram
  matrix); it stops when the multipliers of the weights held at a bound have the right sign.  It
  starts from the vertex (or box corner) of smallest norm, so a sparse answer takes few iterations.
* ``"clarabel"``: Clarabel's interior-point QP in ``lam`` (tolerances ``1e-12``), then the
  active-set method warm-started from its active set (a polish to float precision).
* ``"auto"``: the active set; Clarabel plus polish if it does not converge or is not certified.

Certificate (any route): the Frank-Wolfe gap of the returned weights,

.. math:: \mathrm{fw\_gap} = \|v\|^2 - \min_{s \in S} s \cdot (U v), \qquad v = U^T \lambda,

which is ``>= 0`` and zero exactly at the optimum; by convexity ``||v||^2 - rho^2 <= 2 fw_gap``.
When ``U`` is given, ``v``, ``||v||`` and the gap are computed in ``R^d`` from ``U / max |U_ij|``
(float-accurate even when ``rho`` is near zero, and free of overflow up to the float range), scaled
back at the end; from ``G`` alone, ``value = sqrt(lam^T G lam)``.  A result whose gap
exceeds ``GAP_RTOL * max_i ||g_i||^2`` raises :class:`~fairtheory.errors.SolverError`.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from fairtheory.backend import to_numpy
from fairtheory.errors import FairtheoryValueError, SolverError
from fairtheory.exact.result import ExactResult

__all__ = ["min_norm_point", "min_norm_weights", "fedmgda_box", "box_lmo", "GAP_RTOL"]

#: largest accepted Frank-Wolfe gap, relative to the largest squared norm ``max_i ||g_i||^2``
GAP_RTOL = 1e-10

Method = Literal["auto", "active-set", "clarabel"]


# ------------------------------------------------------------------ inputs
def _as_matrix(X: Any, name: str) -> np.ndarray:
    arr = np.asarray(to_numpy(X), dtype=np.float64)
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise FairtheoryValueError(f"{name} must be a non-empty 2-D array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise FairtheoryValueError(f"{name} must be finite")
    return arr


def _bounds(m: int, lo: Any, hi: Any) -> tuple[np.ndarray, np.ndarray]:
    lo_a = np.zeros(m) if lo is None else np.broadcast_to(np.asarray(lo, dtype=np.float64), (m,)).copy()
    hi_a = np.ones(m) if hi is None else np.broadcast_to(np.asarray(hi, dtype=np.float64), (m,)).copy()
    if not (np.all(np.isfinite(lo_a)) and np.all(np.isfinite(hi_a))):
        raise FairtheoryValueError("lo and hi must be finite")
    if np.any(lo_a < 0) or np.any(hi_a > 1) or np.any(lo_a > hi_a):
        bad = int(np.flatnonzero((lo_a < 0) | (hi_a > 1) | (lo_a > hi_a))[0])
        raise FairtheoryValueError(
            f"bounds must satisfy 0 <= lo <= hi <= 1, got lo[{bad}] = {lo_a[bad]!r}, hi[{bad}] = {hi_a[bad]!r}")
    if lo_a.sum() > 1.0 + 1e-12 * m or hi_a.sum() < 1.0 - 1e-12 * m:
        raise FairtheoryValueError(
            f"the weight set is empty: need sum(lo) <= 1 <= sum(hi), got {lo_a.sum()!r} and {hi_a.sum()!r}")
    return lo_a, hi_a


def fedmgda_box(lam0: Any, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """FedMGDA+'s weight box ``max(0, lam0 - eps) <= lam <= min(1, lam0 + eps)`` around ``lam0``.

    ``lam0`` must be a probability vector (the sample weights); ``epsilon >= 0`` (``0`` pins the
    weights at ``lam0``; ``>= 1`` gives the whole simplex)."""
    lam = np.asarray(to_numpy(lam0), dtype=np.float64)
    if lam.ndim != 1 or lam.size == 0 or not np.all(np.isfinite(lam)) or np.any(lam < 0) \
            or abs(lam.sum() - 1.0) > 1e-9 * max(1.0, lam.size ** 0.5):
        raise FairtheoryValueError(f"lam0 must be a probability vector, got {lam!r}")
    eps = float(epsilon)
    if not np.isfinite(eps) or eps < 0:
        raise FairtheoryValueError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    return np.maximum(lam - eps, 0.0), np.minimum(lam + eps, 1.0)


# ------------------------------------------------------------------ linear minimisation over S
def box_lmo(c: Any, lo: Any = None, hi: Any = None) -> np.ndarray:
    """``argmin_{s in S} s . c``: ``lo`` everywhere, then the remaining mass to the smallest ``c`` first."""
    c = np.asarray(c, dtype=np.float64)
    lo_a, hi_a = _bounds(c.size, lo, hi)
    return _lmo(c, lo_a, hi_a)


def _lmo(c: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    s = lo.copy()
    left = 1.0 - lo.sum()
    for i in np.argsort(c, kind="stable"):
        if left <= 0.0:
            break
        add = min(hi[i] - lo[i], left)
        s[i] += add
        left -= add
    return s


# ------------------------------------------------------------------ active-set method
def _feasible_start(diag: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The box corner that puts the free mass on the smallest ``||g_i||`` first (a vertex on the simplex)."""
    return _lmo(diag, lo, hi)


def _active_set(G: np.ndarray, lo: np.ndarray, hi: np.ndarray, lam: np.ndarray,
                max_iter: int) -> tuple[np.ndarray, int, bool]:
    """Primal active-set method for ``min 0.5 lam^T G lam`` over ``S`` from the feasible ``lam``.

    ``G`` is scaled (largest diagonal 1).  Working set: weights within ``1e-15`` of a bound are held
    there; the rest are free.  Returns ``(lam, iterations, converged)``."""
    span = hi - lo
    at_lo = (lam - lo) <= 1e-15 * np.maximum(1.0, span)
    at_hi = ~at_lo & ((hi - lam) <= 1e-15 * np.maximum(1.0, span))
    fixed_pt = span <= 0.0  # lo == hi: never free
    at_lo |= fixed_pt
    lam = np.where(at_lo, lo, np.where(at_hi, hi, lam))
    ptol = 1e-14
    for it in range(1, max_iter + 1):
        g = G @ lam
        free = ~(at_lo | at_hi)
        F = np.flatnonzero(free)
        k = F.size
        if k:
            K = np.empty((k + 1, k + 1))
            K[:k, :k] = G[np.ix_(F, F)]
            K[:k, k] = K[k, :k] = 1.0
            K[k, k] = 0.0
            rhs = np.zeros(k + 1)
            rhs[:k] = -g[F]
            try:
                sol = np.linalg.solve(K, rhs)
                if not np.all(np.isfinite(sol)):
                    raise np.linalg.LinAlgError
            except np.linalg.LinAlgError:
                sol = np.linalg.lstsq(K, rhs, rcond=None)[0]
            p, nu = sol[:k], sol[k]
            p -= p.sum() / k  # keep sum(p) = 0 exactly (rounding)
        else:
            p, nu = np.zeros(0), None
        if k == 0 or np.max(np.abs(p)) <= ptol:
            # stationary on the face: check the multipliers of the held weights
            if nu is None:  # every weight at a bound: the smallest multiplier of the sum that suits the lower ones
                lo_idx, hi_idx = np.flatnonzero(at_lo & ~fixed_pt), np.flatnonzero(at_hi)
                nu = float(np.max(-g[lo_idx])) if lo_idx.size else (float(np.min(-g[hi_idx])) if hi_idx.size else 0.0)
            mult = np.where(at_lo, g + nu, np.where(at_hi, -(g + nu), 0.0))
            mult[fixed_pt] = 0.0
            mtol = 1e-13 * max(1.0, float(np.max(np.abs(g))))
            worst = int(np.argmin(mult))
            if mult[worst] >= -mtol:
                return lam, it, True
            at_lo[worst] = at_hi[worst] = False
            continue
        # step towards the face minimiser, stopping at the first bound met
        step = 1.0
        block, block_hi = -1, False
        for j, pj in zip(F, p, strict=True):
            if pj < 0:
                t = (lam[j] - lo[j]) / -pj
                if t < step:
                    step, block, block_hi = t, j, False
            elif pj > 0:
                t = (hi[j] - lam[j]) / pj
                if t < step:
                    step, block, block_hi = t, j, True
        lam = lam.copy()
        lam[F] += step * p
        if block >= 0:
            if block_hi:
                at_hi[block], lam[block] = True, hi[block]
            else:
                at_lo[block], lam[block] = True, lo[block]
        lam = np.clip(lam, lo, hi)
    return lam, max_iter, False


def _warm_start(lam: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """A feasible point near ``lam`` (e.g. an interior-point answer): weights within ``1e-9`` of a
    bound snap to it, and the sum is restored on the free weights (``lmo`` start if that fails)."""
    tol = 1e-9
    x = np.clip(lam, lo, hi)
    x = np.where(x - lo <= tol, lo, np.where(hi - x <= tol, hi, x))
    free = (x > lo) & (x < hi)
    r = 1.0 - x.sum()
    if free.any():
        x[free] += r / free.sum()
    if np.all(x >= lo) and np.all(x <= hi) and abs(x.sum() - 1.0) <= 1e-12:
        return x
    return _lmo(np.zeros_like(lam), lo, hi)


def _clarabel(G: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    import clarabel
    from scipy import sparse

    m = G.shape[0]
    P = sparse.csc_matrix(np.triu(G))
    q = np.zeros(m)
    A = sparse.vstack([sparse.csc_matrix(np.ones((1, m))), -sparse.eye(m), sparse.eye(m)], format="csc")
    b = np.concatenate([[1.0], -lo, hi])
    cones = [clarabel.ZeroConeT(1), clarabel.NonnegativeConeT(2 * m)]
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = 1e-12
    settings.max_iter = 200
    sol = clarabel.DefaultSolver(P, q, A, b, cones, settings).solve()
    x = np.asarray(sol.x, dtype=np.float64)
    if x.shape != (m,) or not np.all(np.isfinite(x)):
        raise SolverError("min-norm point of the hull (Gram QP)", "CLARABEL", str(sol.status))
    return x


def min_norm_weights(G: Any, *, lo: Any = None, hi: Any = None, method: Method = "auto",
                     max_iter: int | None = None) -> tuple[np.ndarray, dict[str, Any]]:
    """Optimal weights ``argmin_{lam in S} lam^T G lam`` for a Gram matrix ``G`` (``m x m``, PSD).

    Returns ``(lam, info)`` with ``info = {"solver", "iterations", "converged"}``; no certificate
    (see :func:`min_norm_point`)."""
    Gm = _as_matrix(G, "G")
    m = Gm.shape[0]
    if Gm.shape != (m, m):
        raise FairtheoryValueError(f"G must be square (m x m), got shape {Gm.shape}")
    if method not in ("auto", "active-set", "clarabel"):
        raise FairtheoryValueError(f"method must be 'auto', 'active-set' or 'clarabel', got {method!r}")
    lo_a, hi_a = _bounds(m, lo, hi)
    diag = np.diag(Gm).copy()
    scale = float(diag.max())
    if m == 1 or scale <= 0.0:
        lam = _lmo(np.zeros(m), lo_a, hi_a) if m > 1 else np.ones(1)
        return lam, {"solver": "trivial", "iterations": 0, "converged": True}
    Gs = (Gm + Gm.T) / (2.0 * scale)
    iters = max_iter if max_iter is not None else 20 * m + 100
    if method in ("auto", "active-set"):
        lam, it, ok = _active_set(Gs, lo_a, hi_a, _feasible_start(np.diag(Gs), lo_a, hi_a), iters)
        if ok or method == "active-set":
            return lam, {"solver": "active-set", "iterations": it, "converged": ok}
    x = _clarabel(Gs, lo_a, hi_a)
    lam, it, ok = _active_set(Gs, lo_a, hi_a, _warm_start(x, lo_a, hi_a), iters)
    if not ok:
        lam = _warm_start(x, lo_a, hi_a)
    return lam, {"solver": "clarabel+active-set" if ok else "clarabel", "iterations": it, "converged": ok}


def min_norm_point(U: Any = None, *, G: Any = None, lo: Any = None, hi: Any = None,
                   method: Method = "auto", check: bool = True) -> ExactResult:
    r"""Exact ``min_{lam in S} ||sum_i lam_i g_i||`` for the rows ``g_i`` of ``U`` (``m x d``), or for a
    Gram matrix ``G = U U^T`` alone.

    ``lo``/``hi`` (scalars or ``(m,)``; default ``0``/``1``: the simplex) bound the weights, e.g.
    :func:`fedmgda_box`.  Returns ``ExactResult(value=rho, argmin=v (None from G alone), weights=lam,
    certificate={"fw_gap": ..., "gap_bound": 2 fw_gap})``; ``rho^2 >= value^2 - gap_bound``.  With
    ``check`` (default) a gap above ``GAP_RTOL max_i ||g_i||^2`` raises ``SolverError``."""
    if (U is None) == (G is None):
        raise FairtheoryValueError("give exactly one of U (m x d updates) and G (their m x m Gram matrix)")
    A = None if U is None else _as_matrix(U, "U")
    # work with U / s (s = max |U_ij|): the Gram product and the squared norms cannot overflow, and
    # a hull of vectors with entries up to the float range keeps its exact answer (scaled back by s)
    s = 1.0 if A is None else float(np.max(np.abs(A)))
    if A is not None and s == 0.0:
        s = 1.0
    As = None if A is None else A / s
    Gm = As @ As.T if As is not None else _as_matrix(G, "G")
    m = Gm.shape[0]
    lam, info = min_norm_weights(Gm, lo=lo, hi=hi, method=method)
    lo_a, hi_a = _bounds(m, lo, hi)
    if As is not None:
        vs = lam @ As
        c = As @ vs
        vv = float(vs @ vs)
        value = s * float(np.linalg.norm(vs))
        v = s * vs
    else:
        v = None
        c = Gm @ lam
        vv = max(float(lam @ c), 0.0)
        value = float(np.sqrt(vv))
    gap = float(vv - _lmo(c, lo_a, hi_a) @ c)
    scale2 = float(np.max(np.diag(Gm)))
    if check and gap > GAP_RTOL * max(scale2, np.finfo(float).tiny):
        raise SolverError("min-norm point of the hull (Gram QP)", info["solver"],
                          f"Frank-Wolfe gap {gap:.3e} above {GAP_RTOL:g} max ||g_i||^2 = {GAP_RTOL * scale2:.3e}")
    with np.errstate(over="ignore"):  # s^2 may leave the float range; the relative gap is what is checked
        fw_gap = gap * s * s
    return ExactResult(value=value, argmin=v, weights=lam, solver=info["solver"], status="optimal",
                       certificate={"fw_gap": fw_gap, "gap_bound": 2.0 * max(fw_gap, 0.0),
                                    "fw_gap_relative": gap / max(scale2, np.finfo(float).tiny)},
                       extra={"iterations": info["iterations"], "converged": info["converged"]})
