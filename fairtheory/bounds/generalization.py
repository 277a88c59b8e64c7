r"""Generalisation bounds of RC-FL / FAFL (002 Sec. 5.2, App. E-G).

Notation: ``n`` clients with weights ``p``, conservatism ``alpha_i in [p_i, 1]``, caps
``u_i = p_i/alpha_i``, ``tau_alpha = sum_i u_i``; client ``i`` holds ``m_i`` i.i.d. points from
``P_i`` (``m = sum_i m_i``); the loss class ``H = {(x, y) -> l(h_w(x), y) : w in W}`` has
``0 <= l <= B``.  Population risks ``f_i(w)``, empirical ``fhat_i(w)``, and
``f_alpha = sup_{lam in S(u)} lam . f`` (the capped-simplex support, 002 Def. 1), ``fhat_alpha``
likewise.

* Weighted Rademacher complexity (002 Sec. 5.2):
  ``R_m(H) = E_{sigma,S} sup_w sum_i sum_j p_i/(alpha_i m_i) sigma_ij l(h_w(x_ij), y_ij)``;
  per client ``R^i_{m_i}(H) = E sup_w (1/m_i) sum_j sigma_j l(h_w(x^i_j), y^i_j)``.
* 002 Thm. 3 (eq. 6): w.p. ``>= 1 - delta``, for all ``w``,
  ``f_alpha(w) <= tau_alpha fhat_alpha(w) + 2 R_m(H) + B sqrt(sum_i p_i^2 log(1/delta)/(2 alpha_i^2 m_i))``.
  (Proof, App. E: ``f_alpha <= sum_i u_i f_i`` by ``eta = 0`` in Lemma 1, which needs ``l >= 0``;
  ``sum_i u_i fhat_i <= tau_alpha fhat_alpha`` since ``u/tau_alpha`` lies in ``S(u)``; McDiarmid with
  differences ``B u_i/m_i``; symmetrisation.)
* 002 Remark 3 (App. F): for a ``{-1,+1}``-valued loss class of VC dimension ``d``,
  ``R_m(H) <= sqrt(sum_i 2 d p_i^2 log(e m/d) / (alpha_i^2 m_i))`` (Massart + Sauer).
* 002 Thm. G.1 (eq. G.1): w.p. ``>= 1 - delta``, for all ``w``,
  ``f_alpha(w) <= fhat_alpha(w) + 2 sum_i u_i R^i_{m_i}(H) + sum_i u_i B sqrt(log(2n/delta)/(2 m_i))``.

For the 0-1 loss ``l`` and its signed twin ``l' = 1 - 2 l`` (values ``+-1``) the Rademacher
complexities satisfy ``R(l') = 2 R(l)`` exactly (``E sigma = 0``), so the VC route for a 0-1 class is
``R_m(l) <= remark3_vc_bound(...)/2``.

Rademacher complexities are estimated by plain Monte Carlo over independent pairs ``(S, sigma)``
(:func:`weighted_rademacher`): the replicates ``sup_w sum c_ij sigma_ij l_ij(w)`` are i.i.d. and
bounded, so their mean has the usual standard error (:class:`RademacherEstimate`).

Array inputs (``F``, ``fhat_alpha``, ``p``, ``alpha``, ``rademacher_each``) may be lists, numpy arrays
of any real dtype or torch tensors (detached: the bounds are not differentiable); booleans, nan and inf
are rejected naming the argument; sample sizes ``m`` must be integers.  A right-hand side beyond the
float64 range raises :class:`~fairtheory.errors.FairtheoryValueError`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray
from scipy.stats import beta as beta_dist

from fairtheory._validation import (
    FairtheoryTypeError,
    FairtheoryValueError,
    as_vector,
    check_in_range,
    check_integer,
    check_positive,
    check_probability_vector,
)
from fairtheory.backend import as_alpha, as_array

__all__ = [
    "qalpha_values",
    "rademacher_coefficients",
    "theorem3_concentration",
    "theorem3_bound",
    "remark3_vc_bound",
    "theorem4_concentration",
    "theorem4_bound",
    "RademacherEstimate",
    "weighted_rademacher",
    "clopper_pearson",
]

Array = NDArray[np.float64]


# --------------------------------------------------------------------------- validation
def _p_alpha(p: Any, alpha: Any) -> tuple[Array, Array]:
    p_arr = check_probability_vector(p, "p")
    return p_arr, as_alpha(alpha, p_arr, "alpha")


def _log_ratio(num: float, d: float) -> float:
    """``log(num/d)``, without overflow of ``num/d`` for a tiny ``d``."""
    with np.errstate(over="ignore", divide="ignore"):
        r = float(np.float64(num) / d)
    return math.log(r) if math.isfinite(r) else math.log(num) - math.log(d)


def _fhat(fhat_alpha: Any) -> Array:
    return as_array(fhat_alpha, "fhat_alpha")


def _bound_fits(out: Array, what: str) -> Array:
    if not np.all(np.isfinite(out)):
        raise FairtheoryValueError(f"the {what} right-hand side exceeds the float64 range (about 1.8e308) for these "
                                   "inputs: the true value does not fit a float64")
    return out


def _m(m: Any, n: int) -> Array:
    if hasattr(m, "detach"):  # a torch tensor of sizes
        m = m.detach().cpu().numpy()
    arr = np.asarray(m)
    if arr.shape != (n,) or not np.issubdtype(arr.dtype, np.integer):
        raise FairtheoryTypeError(f"m must be an integer array of shape ({n},) (one size per client), "
                                  f"got {m!r}")
    if np.any(arr < 1):
        bad = int(np.argmin(arr))
        raise FairtheoryValueError(f"m must have entries >= 1, got {arr[bad]} at index {bad}")
    return arr.astype(np.float64)


def _delta(delta: Any) -> float:
    return check_in_range(delta, "delta", low=0.0, high=1.0, low_inclusive=False)


# --------------------------------------------------------------------------- batched objective
def qalpha_values(F: Any, p: Any, alpha: Any) -> Array:
    r"""``f_alpha`` of many loss vectors at once: the capped-simplex support along the last axis.

    Thin wrapper of :meth:`fairtheory.sets.CappedSimplex.support_many` (the batched twin of
    :meth:`~fairtheory.sets.CappedSimplex.support`) for ``CappedSimplex.qalpha(p,
    alpha)`` (002 Def. 1): sort each vector in decreasing order and give each client its cap
    ``p_i/alpha_i`` until the mass reaches one,

    .. math:: f_\alpha = \sum_{(k)} \min\Bigl(u_{(k)}, \bigl(1 - \sum_{l<k} u_{(l)}\bigr)_+\Bigr) f_{(k)} ,

    exact, and independent of the order of ties.  Tests and the claim checks compare it with
    ``CappedSimplex.support`` entry by entry.

    Parameters
    ----------
    F : array_like, shape (..., n)
        Loss vectors (finite).
    p, alpha : client weights and conservatism (``alpha_i in [p_i, 1]``; scalar broadcast).

    Returns
    -------
    ndarray, shape (...)
    """
    from fairtheory.sets import CappedSimplex

    p_arr, a_arr = _p_alpha(p, alpha)
    arr = as_array(F, "F")
    if arr.ndim < 1 or arr.shape[-1] != p_arr.size:
        raise FairtheoryValueError(f"F must have last axis of length n = {p_arr.size}, got shape {arr.shape}")
    return CappedSimplex(p_arr / a_arr).support_many(arr)


def rademacher_coefficients(p: Any, alpha: Any, m: Any) -> Array:
    """The weights ``p_i/(alpha_i m_i)`` of the weighted Rademacher complexity (002 Sec. 5.2)."""
    p_arr, a_arr = _p_alpha(p, alpha)
    return p_arr / (a_arr * _m(m, p_arr.size))


# --------------------------------------------------------------------------- Theorem 3 / Remark 3
def theorem3_concentration(p: Any, alpha: Any, m: Any, delta: float, B: float = 1.0) -> float:
    r"""McDiarmid term of 002 Thm. 3: ``B sqrt(sum_i p_i^2 log(1/delta) / (2 alpha_i^2 m_i))``."""
    p_arr, a_arr = _p_alpha(p, alpha)
    m_arr = _m(m, p_arr.size)
    d = _delta(delta)
    B = check_positive(B, "B")
    return float(B * math.sqrt(np.sum(p_arr**2 / (2.0 * a_arr**2 * m_arr)) * _log_ratio(1.0, d)))


def theorem3_bound(fhat_alpha: Any, p: Any, alpha: Any, m: Any, delta: float, rademacher: float,
                   B: float = 1.0) -> Array:
    r"""Right-hand side of 002 Thm. 3 (eq. 6) at every given ``fhat_alpha(w)``.

    ``tau_alpha fhat_alpha(w) + 2 R_m(H) + B sqrt(sum_i p_i^2 log(1/delta)/(2 alpha_i^2 m_i))``.

    Parameters
    ----------
    fhat_alpha : array_like (any shape)
        Empirical ``Q_alpha``-weighted losses (e.g. one per hypothesis).
    rademacher : float
        The weighted Rademacher complexity ``R_m(H) >= 0`` (or an upper bound on it).
    """
    p_arr, a_arr = _p_alpha(p, alpha)
    tau = float(np.sum(p_arr / a_arr))
    conc = theorem3_concentration(p_arr, a_arr, m, delta, B)
    R = check_in_range(rademacher, "rademacher", low=0.0)
    fh = _fhat(fhat_alpha)
    with np.errstate(over="ignore", invalid="ignore"):
        return _bound_fits(tau * fh + 2.0 * R + conc, "Thm. 3")


def remark3_vc_bound(p: Any, alpha: Any, m: Any, d: int) -> float:
    r"""002 Remark 3: ``sqrt(sum_i 2 d p_i^2 log(e m/d) / (alpha_i^2 m_i))`` with ``m = sum_i m_i``.

    Bounds the weighted Rademacher complexity of a ``{-1,+1}``-valued loss class of VC dimension ``d``
    (Massart's lemma with vector norm ``sqrt(sum_i p_i^2/(alpha_i^2 m_i))`` and Sauer's lemma
    ``Pi(m) <= (e m/d)^d``, valid for ``m >= d``).  With ``n = 1``, ``p = alpha = 1`` it is the
    classical per-client bound ``sqrt(2 d log(e m_1/d)/m_1)``.
    """
    p_arr, a_arr = _p_alpha(p, alpha)
    m_arr = _m(m, p_arr.size)
    d = check_integer(d, "d", low=1)
    total = float(m_arr.sum())
    if total < d:
        raise FairtheoryValueError(f"the total sample size m = {int(total)} must be >= d = {d} "
                                   "(Sauer's lemma)")
    return float(math.sqrt(np.sum(2.0 * d * p_arr**2 / (a_arr**2 * m_arr)) * math.log(math.e * total / d)))


# --------------------------------------------------------------------------- Theorem G.1
def theorem4_concentration(p: Any, alpha: Any, m: Any, delta: float, B: float = 1.0) -> float:
    r"""Last term of 002 Thm. G.1: ``sum_i (p_i/alpha_i) B sqrt(log(2n/delta) / (2 m_i))``."""
    p_arr, a_arr = _p_alpha(p, alpha)
    m_arr = _m(m, p_arr.size)
    d = _delta(delta)
    B = check_positive(B, "B")
    return float(np.sum(p_arr / a_arr * B * np.sqrt(_log_ratio(2.0 * p_arr.size, d) / (2.0 * m_arr))))


def theorem4_bound(fhat_alpha: Any, p: Any, alpha: Any, m: Any, delta: float, rademacher_each: Any,
                   B: float = 1.0) -> Array:
    r"""Right-hand side of 002 Thm. G.1 (eq. G.1) at every given ``fhat_alpha(w)``.

    ``fhat_alpha(w) + 2 sum_i (p_i/alpha_i) R^i_{m_i}(H)
    + sum_i (p_i/alpha_i) B sqrt(log(2n/delta)/(2 m_i))``.

    Parameters
    ----------
    rademacher_each : array_like, shape (n,)
        Per-client (unweighted) Rademacher complexities ``R^i_{m_i}(H) >= 0`` or upper bounds.
    """
    p_arr, a_arr = _p_alpha(p, alpha)
    conc = theorem4_concentration(p_arr, a_arr, m, delta, B)
    R = as_vector(rademacher_each, "rademacher_each")
    if R.shape != p_arr.shape or np.any(R < 0):
        raise FairtheoryValueError(f"rademacher_each must be >= 0 with shape {p_arr.shape}, got {R!r}")
    fh = _fhat(fhat_alpha)
    with np.errstate(over="ignore", invalid="ignore"):
        return _bound_fits(fh + 2.0 * float(np.sum(p_arr / a_arr * R)) + conc, "Thm. G.1")


# --------------------------------------------------------------------------- Monte Carlo
class FinitePopulation(Protocol):
    """What :func:`weighted_rademacher` needs.

    E.g. :class:`~fairtheory.problems.threshold_population.ThresholdPopulation`."""

    n: int

    def sample(self, m: Any, rng: np.random.Generator, size: int = 1) -> Any: ...

    def loss_sums(self, sample: Any, weights: Any, groups: Any = None, n_groups: int = 1,
                  signed: bool = False) -> Array: ...


@dataclass(frozen=True)
class RademacherEstimate:
    """Monte Carlo estimate of a Rademacher complexity with its standard error.

    ``mean`` and ``stderr`` are scalars (weighted complexity) or shape ``(n,)`` (per client)."""

    mean: Any
    stderr: Any
    replicates: int

    def upper(self, z: float = 3.0) -> Any:
        """``mean + z stderr`` (one-sided normal confidence end; ``z = 3``: about 99.87 %)."""
        return self.mean + check_in_range(z, "z", low=0.0) * self.stderr

    def lower(self, z: float = 3.0) -> Any:
        """``mean - z stderr``."""
        return self.mean - check_in_range(z, "z", low=0.0) * self.stderr


def weighted_rademacher(population: FinitePopulation, m: Any, coef: Any, rng: np.random.Generator,
                        replicates: int = 2000, *, signed: bool = False, per_client: bool = False,
                        chunk: int = 2048) -> RademacherEstimate:
    r"""Monte Carlo ``E_{sigma,S} sup_w sum_i sum_j c_i sigma_ij l(h_w(x_ij), y_ij)`` (002 Sec. 5.2).

    Each replicate draws a fresh federated sample ``S`` (``m_i`` points per client) and fresh
    Rademacher signs, and takes the exact supremum over the (finite) class; the estimate is the
    replicate mean with standard error ``std/sqrt(replicates)``.

    Parameters
    ----------
    population : object with ``sample`` and ``loss_sums`` (see :class:`FinitePopulation`)
    m : array_like of int, shape (n,)
        Sample sizes.
    coef : array_like, shape (n,)
        Per-client coefficients ``c_i``: ``p_i/(alpha_i m_i)`` for ``R_m(H)``
        (:func:`rademacher_coefficients`), ``1/m_i`` with ``per_client=True`` for ``R^i_{m_i}(H)``.
    rng : numpy Generator
    replicates : int
        Number of ``(S, sigma)`` draws (``>= 2``).
    signed : bool
        Use the ``{-1,+1}`` loss ``1 - 2 l`` (002 Remark 3) instead of the 0-1 loss.
    per_client : bool
        Take the supremum separately per client (returns shape ``(n,)``).
    chunk : int
        Replicates per vectorised batch (memory ``O(chunk (m + n K))``).
    """
    if not isinstance(rng, np.random.Generator):
        raise FairtheoryTypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    if not (callable(getattr(population, "sample", None)) and callable(getattr(population, "loss_sums", None))
            and isinstance(getattr(population, "n", None), (int, np.integer))):
        raise FairtheoryTypeError("population must have an integer n and sample(m, rng, size) and loss_sums(...) "
                                  f"methods (e.g. a ThresholdPopulation), got {type(population).__name__}")
    n = int(population.n)
    m_arr = _m(m, n).astype(np.int64)
    c = as_vector(coef, "coef")
    if c.shape != (n,):
        raise FairtheoryValueError(f"coef must have shape ({n},), got {c.shape}")
    replicates = check_integer(replicates, "replicates", low=2)
    chunk = check_integer(chunk, "chunk", low=1)
    client = np.repeat(np.arange(n), m_arr)
    vals: list[Array] = []
    done = 0
    while done < replicates:
        R = min(chunk, replicates - done)
        S = population.sample(m_arr, rng, size=R)
        sigma = rng.integers(0, 2, size=(R, client.size)) * 2.0 - 1.0
        w = c[client][None, :] * sigma
        if per_client:
            sums = population.loss_sums(S, w, groups=client, n_groups=n, signed=signed)  # (R, n, K)
            vals.append(sums.max(axis=-1))
        else:
            sums = population.loss_sums(S, w, signed=signed)  # (R, 1, K)
            vals.append(sums[:, 0, :].max(axis=-1))
        done += R
    allv = np.concatenate(vals, axis=0)
    mean = allv.mean(axis=0)
    se = allv.std(axis=0, ddof=1) / math.sqrt(replicates)
    if not per_client:
        mean, se = float(mean), float(se)
    return RademacherEstimate(mean=mean, stderr=se, replicates=replicates)


# --------------------------------------------------------------------------- binomial interval
def clopper_pearson(k: int, N: int, confidence: float = 0.95) -> tuple[float, float]:
    r"""Exact (Clopper-Pearson) two-sided interval for a binomial proportion ``k/N``.

    ``[Beta_{a/2}(k, N-k+1), Beta_{1-a/2}(k+1, N-k)]`` with ``a = 1 - confidence``; the ends are ``0``
    at ``k = 0`` and ``1`` at ``k = N``."""
    N = check_integer(N, "N", low=1)
    k = check_integer(k, "k", low=0, high=N)
    conf = check_in_range(confidence, "confidence", low=0.0, high=1.0, low_inclusive=False,
                          high_inclusive=False)
    a = 1.0 - conf
    lo = 0.0 if k == 0 else float(beta_dist.ppf(a / 2, k, N - k + 1))
    hi = 1.0 if k == N else float(beta_dist.ppf(1 - a / 2, k + 1, N - k))
    return lo, hi
