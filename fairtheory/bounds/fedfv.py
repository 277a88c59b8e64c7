r"""Quantities and right-hand sides of 004 Theorems 1-2 (FedFV conflict bounds).

Setting (004 Thm. 1, App. A.1): ``G = {g_1, ..., g_m}`` (rows of ``U``); every ``g_i`` is projected
onto the normal planes of ``g_1, ..., g_m`` in that order, skipping itself:

.. math::
    g_i^{(0)} = g_i, \qquad
    g_i^{(k)} = g_i^{(k-1)} - \frac{g_i^{(k-1)}\cdot g_k}{\|g_k\|^2}\, g_k \ (k \ne i), \qquad
    g_i^{(i)} = g_i^{(i-1)},

FedFV (``conditional=True``) applies a step only when ``g_i^{(k-1)} . g_k < 0``; App. A.1's rule
(``conditional=False``) applies it always (the theorems assume every step is a conflict, when the
two coincide).  ``gbar' = (1/m) sum_i g_i^{(m)}``.

* Theorem 1 (App. A.1 eq. 5, one-sided as derived):
  ``g_k . gbar' >= -(eps^2/m) ||g_k|| sum_{j=k}^{m-1} sum_{i != j+1} ||g_i^{(j)}||``; the theorem
  text puts ``|e_k . gbar'|`` on the left (absolute version).
* Theorem 2: ``|g_k . gbar'| <= (m-1)/m (max_i ||g_i||)^2 f(m, k, eps1, eps2)`` with
  ``f = eps2^2 (1-eps1^2)^{1/2} (1 - (1-eps1^2)^{(m-k)/2}) / (1 - (1-eps1^2)^{1/2})``.

``eps``, ``eps1``, ``eps2`` are taken as the largest/smallest ``|cos|`` over the pairs the proof
uses: ``cos(g_i^{(j)}, g_{j+1})`` (``i != j+1``, ``j = 0..m-1``: every projection step) and
``cos(g_k, g_l)`` (``k < l``: the originals).  Pairs with a zero vector have no cosine and are
skipped.  Indices in these functions are 0-based arrays over ``k = 1..m``.

``U`` may be a list, a numpy array of any real dtype or a torch tensor (detached: not differentiable);
booleans, nan and inf are rejected naming ``U``.  Everything is computed on ``U`` divided by a power of
two (exact), so gradients anywhere in the float64 range work; a dot product or bound whose value does
not fit a float64 raises :class:`~fairtheory.errors.FairtheoryValueError`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fairtheory._validation import FairtheoryValueError, check_in_range, check_integer
from fairtheory.algorithms.fedfv_aggregate import projection_coefficients
from fairtheory.backend import as_array
from fairtheory.stable import pow2_exponent, times_pow2

__all__ = [
    "sequential_projections",
    "conflicts",
    "involved_cosines",
    "epsilons",
    "all_steps_conflict",
    "theorem1_bound",
    "theorem2_f",
    "theorem2_bound",
]


def _U(U: Any) -> np.ndarray:
    """``U`` as a finite float64 ``(m, d)`` array (lists, integer arrays, torch tensors - detached: these
    bounds are not differentiable); booleans, nan and inf are rejected naming ``U``."""
    A = as_array(U, "U")
    if A.ndim != 2 or A.shape[0] < 1 or A.shape[1] < 1:
        raise FairtheoryValueError(f"U must be a non-empty 2-D array (m gradients x d), got shape {A.shape}")
    return A


def _unit(A: np.ndarray) -> tuple[np.ndarray, int]:
    """``(A / 2^e, e)`` with ``max |A / 2^e|`` in ``[0.5, 1)``: every quantity here is homogeneous in ``U``
    (cosines of degree 0, projections 1, dot products and bounds 2), so it is computed on the scaled
    gradients and scaled back - exact, and free of overflow in the Gram matrix (as ``np.hypot``)."""
    top = float(np.max(np.abs(A)))
    e = pow2_exponent(top) if top > 0 else 0
    return np.ldexp(A, -e), e


def _rescale(x: np.ndarray, k: int, what: str) -> np.ndarray:
    with np.errstate(over="ignore"):
        out = times_pow2(x, k)
    if not np.all(np.isfinite(out)):
        raise FairtheoryValueError(f"{what} exceeds the float64 range (about 1.8e308) for this U: the true value "
                                   "does not fit a float64; rescale the gradients")
    return out


def _projections_unit(As: np.ndarray, conditional: bool) -> np.ndarray:
    m = As.shape[0]
    Cs = projection_coefficients(As @ As.T, np.arange(m), conditional=conditional, return_all=True)
    return np.einsum("jil,ld->jid", Cs, As)


def sequential_projections(U: Any, *, conditional: bool = True) -> np.ndarray:
    """``P[j, i] = g_i^{(j)}`` for ``j = 0..m`` (``(m + 1, m, d)``), index order, skipping itself.

    Computed on the Gram matrix (:func:`projection_coefficients` with ``return_all``)."""
    As, e = _unit(_U(U))
    return _rescale(_projections_unit(As, conditional), e, "a projected gradient")


def conflicts(U: Any, *, conditional: bool = True) -> np.ndarray:
    """``g_k . gbar'`` for ``k = 1..m`` with ``gbar' = (1/m) sum_i g_i^{(m)}``."""
    As, e = _unit(_U(U))
    P = _projections_unit(As, conditional)
    return _rescale(As @ P[-1].mean(axis=0), 2 * e, "g_k . gbar'")


def _cos(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    na, nb = np.linalg.norm(a, axis=-1), np.linalg.norm(b, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = np.sum(a * b, axis=-1) / (na * nb)
    return np.where((na > 0) & (nb > 0), np.clip(c, -1.0, 1.0), np.nan)


def _involved_unit(As: np.ndarray, conditional: bool) -> dict[str, np.ndarray]:
    m = As.shape[0]
    P = _projections_unit(As, conditional)
    steps = _cos(P[:m], As[:, None, :])  # [j, i]: P[j, i] against target j (0-based g_{j+1})
    steps[np.arange(m), np.arange(m)] = np.nan
    iu = np.triu_indices(m, 1)
    orig = _cos(As[iu[0]], As[iu[1]])
    return {"steps": steps, "originals": orig}


def involved_cosines(U: Any, *, conditional: bool = True) -> dict[str, np.ndarray]:
    """The cosines the proofs of 004 Thm. 1-2 bound by ``eps``.

    ``"steps"``: ``(m, m)`` array, entry ``[j, i] = cos(g_i^{(j)}, g_{j+1})`` (``nan`` for
    ``i = j+1`` and zero vectors); ``"originals"``: ``cos(g_k, g_l)`` for ``k < l``."""
    return _involved_unit(_unit(_U(U))[0], conditional)


def epsilons(U: Any, *, conditional: bool = True) -> tuple[float, float]:
    """``(eps1, eps2)``: smallest and largest ``|cos|`` over the involved pairs (``eps = eps2``)."""
    c = involved_cosines(U, conditional=conditional)
    vals = np.abs(np.concatenate([c["steps"].ravel(), c["originals"]]))
    vals = vals[np.isfinite(vals)]
    if vals.size == 0:
        return 0.0, 0.0
    return float(vals.min()), float(vals.max())


def all_steps_conflict(U: Any) -> bool:
    """The hypothesis of 004 Thm. 1-2: every projection step meets a conflict,
    ``g_i^{(j)} . g_{j+1} < 0`` for all ``j`` and ``i != j+1`` (then FedFV's conditional rule and
    App. A.1's unconditional rule coincide)."""
    As, _ = _unit(_U(U))
    m = As.shape[0]
    P = _projections_unit(As, True)
    dots = np.einsum("jid,jd->ji", P[:m], As)
    off = ~np.eye(m, dtype=bool)
    return bool(np.all(dots[off] < 0))


def _tail_norm_sums(P: np.ndarray) -> np.ndarray:
    """``S_k = sum_{j=k}^{m-1} sum_{i != j+1} ||g_i^{(j)}||`` for ``k = 1..m`` (0-based output)."""
    m = P.shape[1]
    norms = np.linalg.norm(P[:m], axis=2)  # [j, i], j = 0..m-1
    norms[np.arange(m), np.arange(m)] = 0.0  # i != j+1 (0-based target j)
    per_j = norms.sum(axis=1)  # sum over i for each j
    # S_k for k = 1..m uses j = k..m-1  -> suffix sums starting at index k
    suffix = np.concatenate([np.cumsum(per_j[::-1])[::-1], [0.0]])
    return suffix[1:]


def theorem1_bound(U: Any, eps: float | None = None, *, conditional: bool = True) -> np.ndarray:
    r"""004 Thm. 1 / App. A.1 eq. 5: ``(eps^2/m) ||g_k|| sum_{j=k}^{m-1} sum_{i != j+1} ||g_i^{(j)}||``
    for ``k = 1..m`` (the one-sided claim is ``g_k . gbar' >= -bound_k``; the printed one
    ``|g_k . gbar'| <= bound_k``).  ``eps`` defaults to :func:`epsilons`' ``eps2``."""
    As, e = _unit(_U(U))
    m = As.shape[0]
    if eps is None:
        eps = epsilons(As, conditional=conditional)[1]
    eps = check_in_range(eps, "eps", low=0.0, high=1.0)
    P = _projections_unit(As, conditional)
    return _rescale(eps ** 2 / m * np.linalg.norm(As, axis=1) * _tail_norm_sums(P), 2 * e, "the Thm. 1 bound")


def theorem2_f(m: int, k: int, eps1: float, eps2: float) -> float:
    r"""``f(m, k, eps1, eps2) = eps2^2 r (1 - r^{m-k}) / (1 - r)``, ``r = (1 - eps1^2)^{1/2}``
    (004 Thm. 2); the limit ``eps2^2 (m - k)`` at ``eps1 = 0``."""
    m = check_integer(m, "m", low=1)
    k = check_integer(k, "k", low=1, high=m)
    eps1 = check_in_range(eps1, "eps1", low=0.0, high=1.0)
    eps2 = check_in_range(eps2, "eps2", low=eps1, high=1.0)
    r = float(np.sqrt(1.0 - eps1 ** 2))
    if r == 1.0:
        return eps2 ** 2 * (m - k)
    return eps2 ** 2 * r * (1.0 - r ** (m - k)) / (1.0 - r)


def theorem2_bound(U: Any, eps1: float | None = None, eps2: float | None = None, *,
                   conditional: bool = True) -> np.ndarray:
    """004 Thm. 2: ``(m-1)/m (max_i ||g_i||)^2 f(m, k, eps1, eps2)`` for ``k = 1..m``."""
    As, e = _unit(_U(U))
    m = As.shape[0]
    if eps1 is None or eps2 is None:
        e1, e2 = epsilons(As, conditional=conditional)
        eps1 = e1 if eps1 is None else eps1
        eps2 = e2 if eps2 is None else eps2
    with np.errstate(under="ignore"):
        gmax2 = float(np.max(np.sum(As * As, axis=1)))
    f = np.array([theorem2_f(m, k, eps1, eps2) for k in range(1, m + 1)])
    return _rescale((m - 1) / m * gmax2 * f, 2 * e, "the Thm. 2 bound")

