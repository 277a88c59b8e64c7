r"""Certified min-norm point of a convex hull, solved on the ``m x m`` Gram matrix.

.. math:: \rho = \min_{\lambda \in S} \Big\| \sum_i \lambda_i g_i \Big\|, \qquad
          S = \{\lambda : \textstyle\sum_i \lambda_i = 1,\ lo_i \le \lambda_i \le hi_i\}

with ``lo = 0``, ``hi = 1`` the probability simplex (004 Def. 4, Pareto stationarity after Desideri
2012) and ``lo = max(0, lam0 - eps)``, ``hi = min(1, lam0 + eps)`` the box of FedMGDA+ (Hu et al.
2022, Alg. 1: the weights may move at most ``eps`` from the sample weights ``lam0``).

Only ``G = U U^T`` enters the problem ``min_{lam in S} lam^T G lam``, so the cost after the Gram
product (``O(m^2 d)``, one BLAS call) does not depend on the dimension ``d``.  Routes:

* ``"active-set"`` (default), in this order: (1) the smallest-norm vertex (box corner) when it is
  already optimal (an exact check; e.g. a zero update gives ``rho = 0`` exactly); (2) the minimiser
  over the hyperplane ``sum lam = 1`` (one LAPACK solve; on the simplex ``G^{-1} 1 / 1^T G^{-1} 1``)
  when it lies in the box and is stationary - then every weight is free and the KKT conditions hold
  (the usual case of many gradients in high dimension); (3) a primal-dual active set
  (Hintermueller, Ito, Kunisch 2002) on ``G`` scaled by its largest diagonal: guess the weights held
  at a bound, solve the face's KKT system, re-guess from ``lam - (G lam + nu)``, stop when the guess
  repeats (exact termination; the KKT conditions are re-checked); (4) when a face system is singular
  (duplicate or affinely dependent gradients) or the guesses do not settle, a primal active-set
  method from the vertex of smallest norm (least squares on singular faces, consistent because ``G``
  is a Gram matrix), which stops when the multipliers of the held weights have the right sign.
* ``"clarabel"``: Clarabel's interior-point QP in ``lam`` (tolerances ``1e-12``), then the
  active-set method warm-started from its active set (a polish to float precision).
* ``"auto"``: the active set; Clarabel plus polish if it does not converge or is not certified.

``U`` is read twice: the Gram product (finiteness and scale read off its diagonal) and the point
``v = U^T lam``.

Certificate (any route): the Frank-Wolfe gap of the returned weights,

.. math:: \mathrm{fw\_gap} = \|v\|^2 - \min_{s \in S} s \cdot (U v), \qquad v = U^T \lambda,

which is ``>= 0`` and zero exactly at the optimum; by convexity ``||v||^2 - rho^2 <= 2 fw_gap``.
When ``U`` is given, ``v`` and ``||v||`` are computed in ``R^d`` (float-accurate even when ``rho`` is
near zero) and ``U v = G lam``; a Gram product that would overflow or underflow is formed from
``U / max |U_ij|`` and scaled back at the end; from ``G`` alone, ``value = sqrt(lam^T G lam)``.
A result whose gap exceeds ``GAP_RTOL * max_i ||g_i||^2`` raises :class:`~fairtheory.errors.SolverError`.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from scipy.linalg.lapack import dgesv as _gesv

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


def _is_simplex(lo: np.ndarray, hi: np.ndarray) -> bool:
    return not lo.any() and bool((hi == 1.0).all())


def _bounds(m: int, lo: Any, hi: Any) -> tuple[np.ndarray, np.ndarray]:
    if lo is None and hi is None:
        return np.zeros(m), np.ones(m)
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
    order = np.argsort(c, kind="stable")
    caps = (hi - lo)[order]
    before = np.cumsum(caps) - caps  # capacity of the cheaper coordinates
    s = lo.copy()
    s[order] += np.clip((1.0 - lo.sum()) - before, 0.0, caps)
    return s


# ------------------------------------------------------------------ primal-dual active set (fast route)
def _face_solve(G: np.ndarray, held: np.ndarray, free: np.ndarray) -> tuple[np.ndarray, float] | None:
    """Minimiser of ``lam^T G lam`` over ``sum lam = 1`` with the weights off ``free`` held at ``held``
    (zero on ``free``): the KKT system ``[G_FF 1; 1^T 0] [x; nu] = [-G_FH lam_H; 1 - sum lam_H]``
    (LAPACK ``gesv``).  ``None`` when it is singular (affinely dependent free points) or not finite."""
    m = G.shape[0]
    F = np.flatnonzero(free)
    k = F.size
    K = np.empty((k + 1, k + 1), order="F")
    rhs = np.empty(k + 1)
    if k == m:
        K[:k, :k] = G
        rhs[:k] = 0.0
        rhs[k] = 1.0
    else:
        GF = G[F]
        K[:k, :k] = GF[:, F]
        rhs[:k] = -(GF @ held)
        rhs[k] = 1.0 - held.sum()
    K[:k, k] = 1.0
    K[k, :k] = 1.0
    K[k, k] = 0.0
    _, _, x, info = _gesv(K, rhs, overwrite_a=1, overwrite_b=1)
    if info != 0 or not np.isfinite(x).all():
        return None
    return x[:k], float(x[k])


def _all_free(G: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray | None:
    """The minimiser over the hyperplane ``sum lam = 1`` when it lies in the box: then it is optimal
    (no weight is held, so the KKT conditions are stationarity, checked to ``1e-13`` on the scaled
    ``G``, and the bounds).  The common case of many gradients in high dimension (every weight active);
    one LAPACK solve and a handful of vector operations."""
    m = G.shape[0]
    K = np.empty((m + 1, m + 1), order="F")
    K[:m, :m] = G
    K[m, :] = 1.0
    K[:m, m] = 1.0
    K[m, m] = 0.0
    rhs = np.zeros(m + 1)
    rhs[m] = 1.0
    _, _, x, info = _gesv(K, rhs, overwrite_a=1, overwrite_b=1)
    lam = x[:m]
    if info != 0 or not ((lam >= lo).all() and (lam <= hi).all()):  # NaN fails the comparisons
        return None
    g = G @ lam
    g += x[m]
    return lam if np.abs(g).max() <= 1e-13 else None


def _pdas(G: np.ndarray, lo: np.ndarray, hi: np.ndarray, max_iter: int) -> tuple[np.ndarray, int] | None:
    r"""Primal-dual active set (Hintermueller, Ito, Kunisch 2002) for ``min 0.5 lam^T G lam`` over ``S``.

    Guess the weights held at ``lo`` / ``hi`` (first guess: none), solve the face's KKT system, and
    re-guess from ``y = lam - (G lam + nu)``: ``y_i < lo_i`` holds ``i`` at ``lo``, ``y_i > hi_i`` at
    ``hi``.  When the guess repeats, the KKT conditions hold (checked, tolerance ``1e-13`` on the
    scaled ``G``): stationarity on the free weights, bounds, and multipliers of the right sign on the
    held ones (exact termination; one solve when every weight is free).  ``None`` when a face system
    is singular or the guesses do not settle within ``max_iter`` (then the primal active set decides).
    Upper bounds that cannot bind (``hi_i >= 1 - sum_{j != i} lo_j``, e.g. the simplex) are skipped."""
    m = G.shape[0]
    pinned = hi <= lo
    any_pinned = bool(pinned.any())
    uppers = bool((hi < 1.0 - (lo.sum() - lo)).any())
    tol = 1e-13
    lo_t, hi_t = lo - tol, hi + tol
    at_lo = pinned.copy()
    at_hi = np.zeros(m, dtype=bool)
    for it in range(1, max_iter + 1):
        free = ~(at_lo | at_hi) if uppers else ~at_lo
        nfree = int(np.count_nonzero(free))
        if nfree == 0:
            return None
        if nfree == m:
            lam = np.empty(m)
            sol = _face_solve(G, lam, free)
        else:
            lam = np.where(at_lo, lo, np.where(at_hi, hi, 0.0)) if uppers else np.where(at_lo, lo, 0.0)
            sol = _face_solve(G, lam, free)
        if sol is None:
            return None
        lam[free] = sol[0]
        g = G @ lam
        g += sol[1]
        if (np.abs(g).max() if nfree == m else np.abs(g[free]).max()) > tol:
            return None  # inaccurate face solve (nearly singular): not a KKT point
        y = lam - g
        new_lo = y < lo_t
        if any_pinned:
            new_lo |= pinned
        if uppers:
            new_hi = (y > hi_t) & ~new_lo
            settled = (new_lo == at_lo).all() and (new_hi == at_hi).all()
        else:
            new_hi = at_hi
            settled = (new_lo == at_lo).all()
        if settled:
            if nfree < m or (lam < lo).any() or (lam > hi).any():
                lam = np.clip(lam, lo, hi)
                r = 1.0 - lam.sum()
                if r != 0.0:
                    inner = free & (lam > lo) & (lam < hi)
                    if inner.any():
                        lam[inner] += r / inner.sum()
                        lam = np.clip(lam, lo, hi)
            return lam, it
        at_lo, at_hi = new_lo, new_hi
    return None


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


def _vertex_optimal(G: np.ndarray, lo: np.ndarray, hi: np.ndarray, simplex: bool) -> np.ndarray | None:
    """The start corner (smallest ``||g_i||`` first) when it is already optimal, exactly: Frank-Wolfe
    gap ``s . G s - min_{t in S} t . G s <= 0`` (e.g. a zero update puts the origin at a vertex)."""
    if simplex:  # the vertex e_k, k = argmin ||g_i||: optimal iff G_kk <= G_kj for every j
        k = int(np.argmin(np.diagonal(G)))
        if G[k, k] <= G[k].min():
            s = np.zeros(G.shape[0])
            s[k] = 1.0
            return s
        return None
    s = _feasible_start(np.diag(G), lo, hi)
    c = G @ s
    return s if float(s @ c) <= float(_lmo(c, lo, hi) @ c) else None


def _weights(Gm: np.ndarray, lo_a: np.ndarray, hi_a: np.ndarray, method: str,
             max_iter: int | None) -> tuple[np.ndarray, dict[str, Any]]:
    """:func:`min_norm_weights` on validated inputs (``Gm`` finite, square; bounds checked)."""
    m = Gm.shape[0]
    diag = np.diagonal(Gm)
    scale = float(diag.max())
    if m == 1 or scale <= 0.0:
        lam = _lmo(np.zeros(m), lo_a, hi_a) if m > 1 else np.ones(1)
        return lam, {"solver": "trivial", "iterations": 0, "converged": True}
    Gs = Gm * (0.5 / scale)
    Gs = Gs + Gs.T
    iters = max_iter if max_iter is not None else 20 * m + 100
    if method in ("auto", "active-set"):
        lam = _vertex_optimal(Gs, lo_a, hi_a, _is_simplex(lo_a, hi_a))
        if lam is not None:
            return lam, {"solver": "active-set", "iterations": 0, "converged": True}
        lam = _all_free(Gs, lo_a, hi_a)
        if lam is not None:
            return lam, {"solver": "active-set", "iterations": 1, "converged": True}
        fast = _pdas(Gs, lo_a, hi_a, min(iters, 25))
        if fast is not None:
            return fast[0], {"solver": "active-set", "iterations": fast[1], "converged": True}
        lam, it, ok = _active_set(Gs, lo_a, hi_a, _feasible_start(np.diag(Gs), lo_a, hi_a), iters)
        if ok or method == "active-set":
            return lam, {"solver": "active-set", "iterations": it, "converged": ok}
    x = _clarabel(Gs, lo_a, hi_a)
    lam, it, ok = _active_set(Gs, lo_a, hi_a, _warm_start(x, lo_a, hi_a), iters)
    if not ok:
        lam = _warm_start(x, lo_a, hi_a)
    return lam, {"solver": "clarabel+active-set" if ok else "clarabel", "iterations": it, "converged": ok}


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
    if max_iter is not None and (isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1):
        raise FairtheoryValueError(f"max_iter must be an integer >= 1 or None, got {max_iter!r}")
    lo_a, hi_a = _bounds(m, lo, hi)
    return _weights(Gm, lo_a, hi_a, method, max_iter)


def _gram(U: Any) -> tuple[np.ndarray, np.ndarray, float]:
    """``(A, G, s)``: ``A = U / s`` and its Gram matrix ``G = A A^T``, one pass over ``U`` when it can.

    ``s = 1`` unless ``U U^T`` leaves the range where it is float-accurate (an overflow, or a largest
    squared norm below ``2^-500`` where products of entries underflow): then ``s = max |U_ij|``
    (``U = 0`` keeps ``s = 1``).  A
    non-finite ``U`` shows as a non-finite diagonal (``nan^2``, ``inf^2``); only then is ``U`` scanned."""
    A = U if type(U) is np.ndarray and U.dtype == np.float64 else np.asarray(to_numpy(U), dtype=np.float64)
    if A.ndim != 2 or A.shape[0] == 0 or A.shape[1] == 0:
        raise FairtheoryValueError(f"U must be a non-empty 2-D array (m updates x d), got shape {A.shape}")
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        G = A @ A.T
        top = float(G.diagonal().max())  # NaN when U has a NaN, inf on an inf or an overflow
        if _TINY2 <= top <= _HUGE2:  # then |G_ij| <= sqrt(G_ii G_jj) is finite too
            return A, G, 1.0
    if not np.isfinite(A).all():
        raise FairtheoryValueError("U must be finite")
    s = float(np.max(np.abs(A)))
    if s == 0.0:
        return A, G, 1.0
    A = A / s
    return A, A @ A.T, s


_FLOAT_TINY = float(np.finfo(np.float64).tiny)

#: outside ``[_TINY2, _HUGE2]`` (largest squared norm) the Gram product is formed from ``U / max |U_ij|``
_TINY2, _HUGE2 = 2.0 ** -500, 2.0 ** 1000


def _simplex_fast(G: np.ndarray) -> tuple[np.ndarray, int] | None:
    """Simplex only, ``G`` a Gram matrix: the vertex ``e_k`` (``k = argmin G_kk``) when
    ``G_kk <= min_j G_kj`` (exactly optimal), else ``lam = G^{-1} 1 / (1^T G^{-1} 1)`` (the minimiser
    over the hyperplane ``sum lam = 1``) when it is ``>= 0`` and stationary,
    ``|G lam - 1/(1^T G^{-1} 1)| <= 1e-13 max_i G_ii``; ``None`` otherwise (singular ``G``, a negative
    weight: the general route decides).  Returns ``(lam, iterations)``."""
    m = G.shape[0]
    diag = G.diagonal()
    k = int(diag.argmin())
    if G[k, k] <= G[k].min():
        lam = np.zeros(m)
        lam[k] = 1.0
        return lam, 0
    _, _, y, info = _gesv(G.T, np.ones(m), overwrite_b=1)  # G.T: the Fortran-ordered view of the same matrix
    t = y.sum()
    if info != 0 or not (t > 0.0 and y.min() >= 0.0):  # NaN fails
        return None
    y /= t
    g = G @ y
    g -= 1.0 / t
    return (y, 1) if np.abs(g).max() <= 1e-13 * diag.max() else None


def min_norm_point(U: Any = None, *, G: Any = None, lo: Any = None, hi: Any = None,
                   method: Method = "auto", check: bool = True) -> ExactResult:
    r"""Exact ``min_{lam in S} ||sum_i lam_i g_i||`` for the rows ``g_i`` of ``U`` (``m x d``), or for a
    Gram matrix ``G = U U^T`` alone.

    ``lo``/``hi`` (scalars or ``(m,)``; default ``0``/``1``: the simplex) bound the weights, e.g.
    :func:`fedmgda_box`.  Returns ``ExactResult(value=rho, argmin=v (None from G alone), weights=lam,
    certificate={"fw_gap": ..., "gap_bound": 2 fw_gap})``; ``rho^2 >= value^2 - gap_bound``.  With
    ``check`` (default) a gap above ``GAP_RTOL max_i ||g_i||^2`` raises ``SolverError``.

    ``U`` is read twice: the Gram product and ``v = U^T lam`` (``value = ||v||``, accurate near
    ``rho = 0``); the Frank-Wolfe gap uses ``U v = G lam``."""
    if (U is None) == (G is None):
        raise FairtheoryValueError("give exactly one of U (m x d updates) and G (their m x m Gram matrix)")
    if method not in ("auto", "active-set", "clarabel"):
        raise FairtheoryValueError(f"method must be 'auto', 'active-set' or 'clarabel', got {method!r}")
    if U is not None:
        As, Gm, s = _gram(U)
    else:
        As, s = None, 1.0
        Gm = _as_matrix(G, "G")
        if Gm.shape != (Gm.shape[0], Gm.shape[0]):
            raise FairtheoryValueError(f"G must be square (m x m), got shape {Gm.shape}")
    m = Gm.shape[0]
    simplex = lo is None and hi is None
    fast = _simplex_fast(Gm) if simplex and As is not None and m > 1 and method == "auto" else None
    if fast is not None:
        lam, info = fast[0], {"solver": "active-set", "iterations": fast[1], "converged": True}
    else:
        lo_a, hi_a = _bounds(m, lo, hi)
        simplex = simplex or _is_simplex(lo_a, hi_a)
        lam, info = _weights(Gm, lo_a, hi_a, method, None)
    c = Gm @ lam
    if As is not None:
        vs = lam @ As
        vv = float(vs @ vs)
        value = s * float(np.sqrt(vv))
        v = s * vs if s != 1.0 else vs
    else:
        v = None
        vv = max(float(lam @ c), 0.0)
        value = float(np.sqrt(vv))
    gap = float(vv - (c.min() if simplex else _lmo(c, lo_a, hi_a) @ c))
    scale2 = float(Gm.diagonal().max())
    if check and gap > GAP_RTOL * max(scale2, _FLOAT_TINY):
        raise SolverError("min-norm point of the hull (Gram QP)", info["solver"],
                          f"Frank-Wolfe gap {gap:.3e} above {GAP_RTOL:g} max ||g_i||^2 = {GAP_RTOL * scale2:.3e}")
    with np.errstate(over="ignore"):  # s^2 may leave the float range; the relative gap is what is checked
        fw_gap = gap * s * s
    return ExactResult(value=value, argmin=v, weights=lam, solver=info["solver"], status="optimal",
                       certificate={"fw_gap": fw_gap, "gap_bound": 2.0 * max(fw_gap, 0.0),
                                    "fw_gap_relative": gap / max(scale2, _FLOAT_TINY)},
                       extra={"iterations": info["iterations"], "converged": info["converged"]})
