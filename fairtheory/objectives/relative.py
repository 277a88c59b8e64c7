r"""Relative fairness: unfairness index, discrepancy, Prop. 9 bounds, convex regime, skewness.

All definitions are reconstructions of 001 (its formulas were lost in extraction; every label is
cited as "001 ... (reconstructed)").  With ``A``, ``B`` capped simplices (:class:`fairtheory.sets.CappedSimplex`)
and a loss vector ``f``:

.. math::

    U = \max_{\lambda\in A} \lambda\cdot f,\qquad V = \min_{\lambda\in B}\lambda\cdot f,\qquad
    I(f; A, B) = U / V \quad(\text{001 Def. 1, eq. 5}),\qquad
    D_\phi = U - \phi V \quad(\text{001 Def. 2, eq. 6}).

The integrated set ``Lambda_phi(A, B) = {(a - phi b)/(1 - phi)}`` (001 eqs. 7-8) is
:class:`fairtheory.sets.IntegratedSet`; ``max_{lam in Lambda_phi} lam . f = D_phi/(1 - phi)``.

Loss vectors may be lists, numpy arrays of any real dtype or torch tensors (converted to float64 numpy,
detached: not differentiable); booleans, nan and inf are rejected naming ``losses``.  An index or
discrepancy beyond the float64 range raises :class:`~fairtheory.errors.FairtheoryValueError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fairtheory._validation import (
    FairtheoryTypeError,
    FairtheoryValueError,
    as_vector,
    check_in_range,
)
from fairtheory.backend import as_array, to_numpy
from fairtheory.sets import CappedSimplex, IntegratedSet

__all__ = [
    "unfairness_parts",
    "relative_index",
    "relative_index_at",
    "discrepancy",
    "discrepancy_at",
    "prop9_bounds",
    "lemma8_bound",
    "ConvexRegime",
    "convex_regime",
    "skewness",
]

Array = NDArray[np.float64]

#: largest number of (vertex of A, vertex of B) pairs enumerated by :func:`convex_regime`/:func:`skewness`
MAX_PAIRS = 2_000_000
#: largest ``n`` for which the vertices of a capped simplex are enumerated (``2^n`` subsets)
MAX_VERTEX_N = 14


def _check_set(S: Any, name: str) -> CappedSimplex:
    if not isinstance(S, CappedSimplex):
        raise FairtheoryTypeError(f"{name} must be a CappedSimplex, got {type(S).__name__}")
    return S


def _check_losses(losses: Any, A: CappedSimplex, name: str = "losses") -> Array:
    f = as_vector(losses, name)
    if f.shape != (A.n,):
        raise FairtheoryValueError(f"{name} must have shape ({A.n},) to match the sets, got {f.shape}")
    return f


def _finite(value: float, what: str) -> float:
    """``value``, or raise when it left the float64 range (the inputs were finite)."""
    if not np.isfinite(value):
        raise FairtheoryValueError(f"{what} exceeds the float64 range (about 1.8e308) for these losses: the true "
                                   "value does not fit a float64; rescale the losses")
    return float(value)


def _losses_at(problem: Any, w: Any) -> Array:
    """``problem.losses(w)`` (the problem applies its own input policy to ``w``) as float64 numpy."""
    losses = getattr(problem, "losses", None)
    if not callable(losses):
        raise FairtheoryTypeError(f"problem must be a federated problem with a losses(w) method, got "
                                  f"{type(problem).__name__}")
    return np.asarray(to_numpy(losses(w)), dtype=np.float64)


def unfairness_parts(losses: Any, A: CappedSimplex, B: CappedSimplex) -> tuple[float, float]:
    r"""``(U, V) = (max_{lam in A} lam . f, min_{lam in B} lam . f)`` (001 Sec. 3.1, reconstructed).

    Parameters
    ----------
    losses : array_like, shape (n,)
    A, B : CappedSimplex
        Sets of the same size ``n``.
    """
    A, B = _check_set(A, "A"), _check_set(B, "B")
    if A.n != B.n:
        raise FairtheoryValueError(f"A and B must have the same n, got {A.n} and {B.n}")
    f = _check_losses(losses, A)
    return A.support(f), B.lower(f)


def relative_index(losses: Any, A: CappedSimplex, B: CappedSimplex) -> float:
    r"""Relative unfairness index ``I(f; A, B) = max_A lam . f / min_B lam . f`` (001 Def. 1, eq. 5,
    reconstructed).

    Special cases (001 Sec. 3.1, App. B): ``A = B = C(0.2)`` is the 20:20 ratio, ``A = C(0.1)``,
    ``B = C(0.4)`` the Palma ratio, ``A = {uniform}``, ``B = Delta_n`` the Atkinson-type mean/min;
    ``A = B = C(k/n)`` is top-k mean / bottom-k mean (001 Ex. 2).  ``I >= 1`` when ``A = B``.

    Raises
    ------
    FairtheoryValueError
        If the denominator ``V = min_B lam . f`` is not ``> 0`` (001 Assumption 1).
    """
    U, V = unfairness_parts(losses, A, B)
    if not V > 0:
        raise FairtheoryValueError(
            f"the index needs min_(lam in B) lam . losses > 0 (001 Assumption 1), got {V!r}")
    with np.errstate(over="ignore"):
        return _finite(U / V, f"the relative unfairness index U/V = {U!r}/{V!r}")


def relative_index_at(problem: Any, w: Any, A: CappedSimplex, B: CappedSimplex) -> float:
    """``I(w; A, B) = relative_index(problem.losses(w), A, B)`` for a federated problem and model ``w``
    (``w`` goes through the problem's input policy: array-likes and torch tensors of any real dtype)."""
    return relative_index(_losses_at(problem, w), A, B)


def discrepancy(losses: Any, A: CappedSimplex, B: CappedSimplex, phi: float) -> float:
    r"""Relative fairness discrepancy ``D_phi = U - phi V``, ``phi in [0, 1)`` (001 Def. 2, eq. 6,
    reconstructed).  ``D_phi/(1 - phi) = IntegratedSet(A, B, phi).support(f)``."""
    phi = check_in_range(phi, "phi", low=0.0, high=1.0, high_inclusive=False)
    U, V = unfairness_parts(losses, A, B)
    with np.errstate(over="ignore"):
        return _finite(U - phi * V, "the discrepancy U - phi V")


def discrepancy_at(problem: Any, w: Any, A: CappedSimplex, B: CappedSimplex, phi: float) -> float:
    """``D_phi(w; A, B)`` evaluated at ``problem.losses(w)``."""
    return discrepancy(_losses_at(problem, w), A, B, phi)


def prop9_bounds(U: float, V: float, phi: Any, c: float, C: float) -> tuple[Any, Any]:
    r"""Majorisation bounds of 001 Prop. 9 (reconstructed):

    .. math:: \phi + \frac{U - \phi V}{C} \;\le\; \frac{U}{V} \;\le\; \phi + \frac{U - \phi V}{c}

    for ``0 < c <= V <= C`` and ``U - phi V >= 0``, ``phi in [0, 1)``.  (``U/V = phi + (U - phi V)/V``.)
    The lower bound is non-decreasing in ``phi`` and the upper one non-increasing when
    ``c <= V <= C``.

    Parameters
    ----------
    U, V : float
        Numerator and denominator of the index.
    phi : float or array_like
        Coefficient(s) in ``[0, 1)``; an array gives arrays.
    c, C : float
        Bounds ``0 < c <= V <= C``.

    Returns
    -------
    (lower, upper)
    """
    U = check_in_range(U, "U")
    V = check_in_range(V, "V", low=0.0, low_inclusive=False)
    c = check_in_range(c, "c", low=0.0, low_inclusive=False)
    C = check_in_range(C, "C", low=c)
    if not c <= V <= C:
        raise FairtheoryValueError(f"V must lie in [c, C] = [{c}, {C}], got {V!r}")
    if np.ndim(phi) == 0 and not hasattr(phi, "detach"):
        ph = np.asarray(check_in_range(phi, "phi", low=0.0, high=1.0, high_inclusive=False))
    else:
        ph = as_array(phi, "phi")
        if np.any(ph < 0) or np.any(ph >= 1):
            raise FairtheoryValueError(f"phi must lie in [0, 1), got {phi!r}")
    with np.errstate(over="ignore", invalid="ignore"):
        gap = U - ph * V
    if np.any(gap < 0):
        raise FairtheoryValueError(f"Prop. 9 needs U - phi V >= 0, got U={U!r}, V={V!r}, phi={phi!r}")
    with np.errstate(over="ignore"):
        lo = ph + gap / C
        hi = ph + gap / c
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        raise FairtheoryValueError(f"the Prop. 9 bounds exceed the float64 range for U={U!r}, V={V!r}, c={c!r}: "
                                   "the true values do not fit a float64")
    if ph.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def lemma8_bound(mu: float, L: float, phi: float) -> float:
    r"""``(mu - phi L)/(1 - phi)``: lower bound on the Hessian of ``sum_i lam_i f_i`` for every
    ``lam in Lambda_phi`` when each ``f_i`` is ``mu``-strongly convex and ``L``-smooth
    (001 Lemma 8 / Prop. 10, reconstructed)."""
    mu = check_in_range(mu, "mu", low=0.0)
    L = check_in_range(L, "L", low=mu)
    phi = check_in_range(phi, "phi", low=0.0, high=1.0, high_inclusive=False)
    with np.errstate(over="ignore"):
        return _finite((mu - phi * L) / (1.0 - phi), "the Lemma 8 bound (mu - phi L)/(1 - phi)")


# ------------------------------------------------------------------------------------ convex regime
@dataclass(frozen=True)
class ConvexRegime:
    """Result of :func:`convex_regime`.

    ``min_eig``: the minimum (exact methods) or a lower bound (``"eigen-bound"``) of
    ``lambda_min(H(lam))`` over ``Lambda_phi``; ``convex``: ``True``/``False`` when decided,
    ``None`` when the sufficient test was inconclusive; ``method``: ``"vertices"``,
    ``"common-hessian"`` or ``"eigen-bound"``; ``lam``: a minimising member (vertex methods).
    """

    min_eig: float
    convex: bool | None
    method: str
    lam: Array | None = None


def _pair_candidates(iset: IntegratedSet) -> tuple[Array, Array] | None:
    """Vertices of ``A`` and ``B`` when their pairs can be enumerated, else ``None``."""
    if iset.n > MAX_VERTEX_N:
        return None
    va = iset.A.vertices(MAX_VERTEX_N)
    vb = iset.B.vertices(MAX_VERTEX_N) if iset.phi > 0 else iset.B.vertices(MAX_VERTEX_N)[:1]
    if va.shape[0] * vb.shape[0] > MAX_PAIRS:
        return None
    return va, vb


def convex_regime(problem: Any, iset: IntegratedSet, *, tol: float = 0.0) -> ConvexRegime:
    r"""Convex-regime test of problem (8) (001 Lemma 8 / Prop. 10, reconstructed) for quadratic clients.

    Problem (8) is convex (strongly) iff ``H(lam) = sum_i lam_i H_i`` is positive definite for every
    ``lam in Lambda_phi(A, B)``.  ``lam -> lambda_min(H(lam))`` is concave, so its minimum over the
    polytope is attained at a vertex.  The vertices of ``Lambda_phi`` are among the candidates
    ``(a - phi b)/(1 - phi)`` over vertex pairs (``IntegratedSet.vertices()`` is the extreme subset
    of these candidates); every candidate lies in the set, so the minimum over the candidates equals
    the minimum over the set.  Methods:

    * ``"common-hessian"``: all ``H_i`` equal, ``H(lam) = H`` (exact, any ``n``);
    * ``"vertices"``: enumeration (exact; ``n <= 14`` and at most :data:`MAX_PAIRS` pairs);
    * ``"eigen-bound"``: otherwise the sufficient bound
      ``lambda_min(H(lam)) >= (min_{a in A} a . mu_vec - phi max_{b in B} b . L_vec)/(1 - phi)``
      with per-client extreme eigenvalues (it implies 001 Lemma 8's ``(mu - phi L)/(1 - phi)``);
      ``convex`` is ``None`` when the bound is not positive (undecided).

    ``convex`` is ``min_eig > tol``.
    """
    H = getattr(problem, "H", None)
    if H is None or np.ndim(H) != 3:
        raise FairtheoryTypeError(
            "convex_regime needs a QuadraticProblem (Hessians H of shape (n, d, d)), "
            f"got {type(problem).__name__}")
    if not isinstance(iset, IntegratedSet):
        raise FairtheoryTypeError(f"iset must be an IntegratedSet, got {type(iset).__name__}")
    if iset.n != H.shape[0]:
        raise FairtheoryValueError(f"iset has n={iset.n} but the problem has {H.shape[0]} clients")
    tol = check_in_range(tol, "tol", low=0.0)
    H = np.asarray(H, dtype=np.float64)
    if np.allclose(H, H[:1], rtol=0.0, atol=1e-14 * max(1.0, float(np.abs(H).max()))):
        m = float(np.linalg.eigvalsh(H[0])[0])
        return ConvexRegime(m, m > tol, "common-hessian", None)
    cand = _pair_candidates(iset)
    if cand is not None:
        va, vb = cand
        Ha = np.einsum("vi,ijk->vjk", va, H)
        Hb = np.einsum("vi,ijk->vjk", vb, H)
        best, best_lam = np.inf, None
        chunk = max(1, 200_000 // max(1, vb.shape[0]))
        for s in range(0, va.shape[0], chunk):  # loop over chunks of vertices, not clients
            M = (Ha[s:s + chunk, None] - iset.phi * Hb[None]) / (1.0 - iset.phi)
            ev = np.linalg.eigvalsh(M.reshape(-1, *H.shape[1:]))[:, 0]
            j = int(np.argmin(ev))
            if ev[j] < best:
                ia, ib = divmod(j, vb.shape[0])
                best = float(ev[j])
                best_lam = (va[s + ia] - iset.phi * vb[ib]) / (1.0 - iset.phi)
        return ConvexRegime(best, best > tol, "vertices", best_lam)
    eig = np.linalg.eigvalsh(H)
    bound = (iset.A.lower(eig[:, 0]) - iset.phi * iset.B.support(eig[:, -1])) / (1.0 - iset.phi)
    return ConvexRegime(float(bound), True if bound > tol else None, "eigen-bound", None)


# ------------------------------------------------------------------------------------ skewness
def skewness(S: CappedSimplex | IntegratedSet) -> float:
    r"""Skewness ``s(Lambda) = max_{lam in Lambda} n sum_i lam_i^2`` (001 Sec. 6, reconstructed;
    Mohri et al. 2019 with equal sample sizes).

    The maximum of the convex function ``||lam||^2`` over a polytope is at a vertex; the candidates
    are the vertices of a capped simplex, or the vertex pairs ``(a - phi b)/(1 - phi)`` of an
    integrated set (a superset of its vertices, all inside the set).  Exact; ``n <= 14``.
    """
    if isinstance(S, CappedSimplex):
        v = S.vertices(MAX_VERTEX_N)
        return float(S.n * np.max(np.einsum("vi,vi->v", v, v)))
    if not isinstance(S, IntegratedSet):
        raise FairtheoryTypeError(f"S must be a CappedSimplex or IntegratedSet, got {type(S).__name__}")
    cand = _pair_candidates(S)
    if cand is None:
        raise FairtheoryValueError(
            f"skewness enumerates vertices: n must be <= {MAX_VERTEX_N} with at most {MAX_PAIRS} "
            "vertex pairs")
    va, vb = cand
    # ||a - phi b||^2 = ||a||^2 - 2 phi a.b + phi^2 ||b||^2
    sq = (np.einsum("vi,vi->v", va, va)[:, None] - 2 * S.phi * va @ vb.T
          + S.phi ** 2 * np.einsum("vi,vi->v", vb, vb)[None, :])
    return float(S.n * sq.max() / (1.0 - S.phi) ** 2)
