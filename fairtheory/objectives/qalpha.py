r"""RC-FL / FAFL: the ``Q_alpha``-weighted loss, HCVaR, its Lemma 1 dual and softplus smoothing.

Notation (labels of seed ``002`` unless marked ``000``).  ``n`` clients
with weights ``p`` (a probability vector), losses ``f = (f_1, ..., f_n)`` and per-client conservatism
``alpha_i in [p_i, 1]``.  Write ``c_i = p_i/alpha_i`` (the *caps*) and

.. math::

    \tau_\alpha = \sum_i p_i/\alpha_i \;(\ge 1), \qquad
    \pi_i = \frac{p_i}{\alpha_i \tau_\alpha}, \qquad \beta = 1 - 1/\tau_\alpha .

* Def. 1, eq. 1: ``f_alpha = sup_{q in Q_alpha} sum_i q_i p_i f_i = max {lam . f : lam in Delta_n,
  lam_i <= c_i}``, the support function of a capped simplex (:class:`fairtheory.sets.CappedSimplex`).
* Lemma 1: ``f_alpha = min_eta g(eta)``, ``g(eta) = eta + sum_i c_i (f_i - eta)_+`` (LP duality), and
  ``= HCVaR_{1-alpha}(f)``.  ``g`` is convex and piecewise linear with breakpoints at the ``f_i`` and
  slope ``1 - sum_{f_i > eta} c_i`` between them, so a minimiser is the smallest loss value ``t`` with
  ``sum_{f_i > t} c_i <= 1``: the lower ``beta``-quantile of ``f`` under ``pi``.  It is found exactly by
  one sort (no iteration, no tolerance).
* Def. 2 (HCVaR) read two ways (the seed leaves the atom at the quantile open):
  ``reading="ru"`` is the Rockafellar-Uryasev CVaR of ``f`` under ``pi`` at level ``beta``; and
  ``reading="conditional"`` is the literal ``E_pi[f | f > Q_beta(f)]``.  Only the first equals
  ``f_alpha`` in general (claim ``rcfl.lemma1.hcvar_conditional`` records the counterexample).
* Sec. 4, eqs. 4-5: ``F_alpha(eta) = sum_i p_i [(1/alpha_i)(f_i - eta)_+ + eta]`` and its smoothing
  ``F^mu_alpha(eta) = sum_i p_i [(1/alpha_i) softplus_mu(f_i - eta) + eta]`` with
  ``softplus_mu(x) = mu log(1 + e^{x/mu})``.  Prop. 1: ``(x)_+ <= softplus_mu(x) <= (x)_+ + mu``
  (tight constant ``mu log 2``); Lemma 2: ``F_alpha <= F^mu_alpha <= F_alpha + mu tau_alpha``
  (tight: ``mu tau_alpha log 2``).

The functions here take one loss vector (the losses ``f(w)`` at one model ``w``); models, gradients in
``w`` and algorithms live in :mod:`fairtheory.problems` and :mod:`fairtheory.algorithms`
(``grad_w f^{mu,i} = client_weights_mu_i * grad f_i(w)``).

Inputs: ``losses``, ``p`` and ``alpha`` may be lists, tuples, numpy arrays of any real dtype or torch
tensors; they are converted to float64 numpy (torch tensors are detached on purpose: these functions
return floats and are not differentiable - except :func:`client_weights_mu`, which keeps the tensor's
library and autograd graph).  Booleans, complex numbers, nan and infinities are rejected naming the
argument.  Values are computed without intermediate overflow for losses anywhere in the float64 range;
a result that does not fit a float64 raises :class:`~fairtheory.errors.FairtheoryValueError`.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from fairtheory._validation import (
    FairtheoryValueError,
    as_vector,
    check_in_range,
    check_positive,
    check_probability_vector,
)
from fairtheory.backend import as_alpha, as_array, as_float, is_torch, like
from fairtheory.sets import CappedSimplex
from fairtheory.stable import sigmoid, softplus

__all__ = [
    "tau_alpha",
    "hcvar_level",
    "qalpha_loss",
    "qalpha_dual",
    "hcvar",
    "deviation",
    "softplus",
    "sigmoid",
    "F_alpha",
    "F_mu",
    "F_mu_grad",
    "client_weights_mu",
]

Array = NDArray[np.float64]


# --------------------------------------------------------------------------- validation helpers
def _instance(losses: Any, p: Any, alpha: Any) -> tuple[Array, Array, Array]:
    """Validate ``(losses, p, alpha)``; returns float64 arrays (``alpha`` broadcast to a vector)."""
    p_arr = check_probability_vector(p, "p")
    a_arr = as_alpha(alpha, p_arr, "alpha")
    f = as_vector(losses, "losses")
    if f.shape != p_arr.shape:
        raise FairtheoryValueError(f"losses must have the same shape as p {p_arr.shape}, got {f.shape}")
    return f, p_arr, a_arr


def _eta(eta: Any) -> float:
    return check_in_range(eta, "eta")


def _fits(value: float, what: str) -> float:
    if not math.isfinite(value):
        raise FairtheoryValueError(f"{what} exceeds the float64 range (about 1.8e308) for these losses: the true "
                                   "value does not fit a float64; rescale the losses")
    return float(value)


def _hinge_sum(f: Array, c: Array, eta: float) -> float:
    r"""``sum_i c_i (f_i - eta)_+`` (``c >= 0``) where ``f_i - eta`` overflows: the masked form
    ``sum_{f_i > eta} c_i f_i - (sum_{f_i > eta} c_i) eta``, each part finite unless the value is not."""
    gt = f > eta
    with np.errstate(over="ignore", invalid="ignore"):
        return float(c[gt] @ f[gt] - float(c[gt].sum()) * eta)


def _g(f: Array, c: Array, eta: float, p_sum: float = 1.0) -> float:
    r"""``eta p_sum + sum_i c_i (f_i - eta)_+``, direct, or in the masked form where ``f_i - eta``
    overflows (values near the float range)."""
    with np.errstate(over="ignore", invalid="ignore"):
        val = float(c @ np.maximum(f - eta, 0.0) + eta * p_sum)
    if math.isfinite(val):
        return val
    gt = f > eta
    with np.errstate(over="ignore", invalid="ignore"):
        return float(c[gt] @ f[gt] + (p_sum - float(c[gt].sum())) * eta)


# --------------------------------------------------------------------------- objective and dual
def tau_alpha(p: Any, alpha: Any) -> float:
    r"""``tau_alpha = sum_i p_i / alpha_i`` (002 Def. 2; ``E[alpha_i^{-1}]`` under ``p``).

    Lies in ``[1, n]`` for ``alpha_i in [p_i, 1]``: it is ``1`` at ``alpha = 1`` (FedAvg) and the number
    of clients with ``p_i > 0`` at ``alpha = p`` (AFL).

    Parameters
    ----------
    p : array_like, shape (n,)
        Client weights, a probability vector.
    alpha : float or array_like, shape (n,)
        Conservatism, ``alpha_i in [p_i, 1]`` and ``> 0``; a scalar is broadcast.
    """
    p_arr = check_probability_vector(p, "p")
    a_arr = as_alpha(alpha, p_arr, "alpha")
    return float(np.sum(p_arr / a_arr))


def hcvar_level(p: Any, alpha: Any) -> tuple[Array, float]:
    r"""HCVaR's weights and level (002 Def. 2): ``pi_i = p_i/(alpha_i tau_alpha)`` and ``beta = 1 - 1/tau_alpha``.

    ``beta`` is computed as

    .. math:: \beta = \frac{\tau_\alpha - 1}{\tau_\alpha}
              = \frac{1}{\tau_\alpha} \sum_i p_i \frac{1 - \alpha_i}{\alpha_i}

    (``sum p = 1``; for a ``p`` that sums to one only up to rounding it is ``1 - 1/tau`` of the normalised
    ``p``, and ``pi`` is the same).  Every term is ``>= 0`` because ``alpha_i <= 1``, so ``beta >= 0`` holds in
    float64 too, and ``beta = 0`` exactly when ``alpha = 1`` on the support of ``p``; ``1 - 1/fl(tau_alpha)``
    can round to ``-2.2e-16`` instead (``tau_alpha = 1`` exactly, its float sum one ulp below, e.g.
    ``p = (10, 1, 10)/21``, ``alpha = 1``).  Each term is at most ``p_i/alpha_i`` after rounding, so
    ``beta <= 1 - sum_i p_i/tau_alpha < 1``.

    Returns
    -------
    pi : ndarray, shape (n,)
        ``c/tau_alpha`` with ``c_i = p_i/alpha_i``.
    beta : float
        The level in ``[0, 1)``.
    """
    p_arr = check_probability_vector(p, "p")
    a_arr = as_alpha(alpha, p_arr, "alpha")
    c = p_arr / a_arr
    tau = float(c.sum())
    return c / tau, float(np.sum(p_arr * (1.0 - a_arr) / a_arr)) / tau


def qalpha_loss(losses: Any, p: Any, alpha: Any) -> tuple[float, Array]:
    r"""The ``Q_alpha``-weighted loss and a worst-case weighting (002 Def. 1, eq. 1).

    .. math:: f_\alpha = \sup_{q \in Q_\alpha} \sum_i q_i p_i f_i
              = \max\{\lambda^\top f : \lambda \in \Delta_n,\ \lambda_i \le p_i/\alpha_i\},

    computed in closed form by :meth:`CappedSimplex.support` (greedy fill of the largest losses up to
    their caps).  Limits (002 Sec. 3.1): ``alpha = 1`` gives ``sum p_i f_i``; ``alpha = p`` gives
    ``max_i f_i``.

    Returns
    -------
    value : float
        ``f_alpha``.
    weights : ndarray, shape (n,)
        A maximising ``lam`` (``q_i = lam_i / p_i``); ties at the threshold share the remaining mass in
        proportion to their caps.
    """
    f, p_arr, a_arr = _instance(losses, p, alpha)
    S = CappedSimplex(p_arr / a_arr)
    return S.support(f), S.argmax(f)


def _breakpoint_min(f: Array, c: Array) -> float:
    """Smallest value ``t`` of ``f`` with ``sum_{f_i > t} c_i <= 1`` (exact; one sort)."""
    order = np.argsort(f, kind="stable")
    fs, cs = f[order], c[order]
    uniq, start = np.unique(fs, return_index=True)
    grp = np.add.reduceat(cs, start)
    # mass strictly above each distinct value, summed from the top (no cancellation)
    above = np.concatenate([np.cumsum(grp[::-1])[::-1][1:], [0.0]])
    k = int(np.argmax(above <= 1.0))  # the last entry is 0, so a True exists
    return float(uniq[k])


def qalpha_dual(losses: Any, p: Any, alpha: Any) -> tuple[float, float]:
    r"""Lemma 1 dual: ``min_eta g(eta)``, ``g(eta) = eta + sum_i (p_i/alpha_i)(f_i - eta)_+`` (002 Lemma 1).

    ``g`` is convex and piecewise linear; on ``(t, t')`` between consecutive distinct losses its slope
    is ``1 - sum_{f_i > t} p_i/alpha_i``.  Hence

    .. math:: \eta^\star = \min\{t \in \{f_i\} : \textstyle\sum_{f_i > t} p_i/\alpha_i \le 1\}

    is a minimiser (its left slope is ``< 0`` - or ``1 - tau_alpha <= 0`` at ``min f`` - and its right
    slope ``>= 0``).  Equivalently ``eta*`` is the lower ``beta``-quantile of ``f`` under ``pi``,
    ``beta = 1 - 1/tau_alpha``.  It lies in ``[min f, max f]`` (proof of Lemma 1; Remark 2).  When
    ``tau_alpha = 1`` every ``eta <= min f`` is optimal too; ``min f`` is returned.

    Computed independently of :func:`qalpha_loss` (no :class:`CappedSimplex`): one sort, group sums over
    tied values, a suffix sum and one evaluation of ``g`` - exact up to float rounding, no iteration.

    Returns
    -------
    value : float
        ``g(eta*)`` (equals ``f_alpha`` by LP duality).
    eta : float
        The minimiser ``eta*`` described above.
    """
    f, p_arr, a_arr = _instance(losses, p, alpha)
    c = p_arr / a_arr
    eta = _breakpoint_min(f, c)
    with np.errstate(over="ignore", invalid="ignore"):
        val = float(eta + np.sum(c * np.maximum(f - eta, 0.0)))
    if not math.isfinite(val):  # f_i - eta overflowed (values near the float range); g(eta*) = f_alpha fits
        val = _g(f, c, eta)
    return val, eta


def _lower_quantile(f: Array, w: Array, beta: float) -> float:
    """``inf{t : sum_{f_i <= t} w_i >= beta}`` for a probability vector ``w`` and ``beta in (0, 1]``."""
    order = np.argsort(f, kind="stable")
    fs, ws = f[order], w[order]
    uniq, start = np.unique(fs, return_index=True)
    cdf = np.cumsum(np.add.reduceat(ws, start))
    hit = cdf >= beta
    k = int(np.argmax(hit)) if hit.any() else uniq.size - 1  # cdf[-1] = 1 up to rounding
    return float(uniq[k])


def hcvar(losses: Any, p: Any, alpha: Any, reading: Literal["ru", "conditional"] = "ru") -> float:
    r"""Heterogeneous CVaR ``HCVaR_{1-alpha}(f)`` (002 Def. 2), in one of two readings.

    With ``pi_i = p_i/(alpha_i tau_alpha)`` and ``beta = 1 - 1/tau_alpha``:

    ``reading="ru"`` (Rockafellar-Uryasev CVaR of ``f`` under ``pi`` at level ``beta``)
        .. math:: \min_\eta\ \eta + \frac{1}{1-\beta}\,\mathbb{E}_\pi[(f - \eta)_+],

        evaluated exactly at the RU minimiser ``eta = Q_beta`` (lower quantile, below).  This splits an
        atom at the quantile correctly and equals ``f_alpha`` (002 Lemma 1, second equality).

    ``reading="conditional"`` (the literal text of Def. 2)
        .. math:: \mathbb{E}_\pi[f \mid f > Q_\beta(f)].

        *Quantile convention*: ``Q_beta = inf{t in R : P_pi(f <= t) >= beta}`` (the lower quantile,
        Rockafellar-Uryasev's ``VaR_beta``).  For ``beta = 0`` (``tau_alpha = 1``, i.e. ``alpha = 1`` on
        the support of ``p``) this is ``-inf`` and the value is ``E_pi[f]``.  *Empty tail*: when no
        ``pi``-mass lies strictly above ``Q_beta`` (then ``Q_beta = max`` of ``f`` over the support of
        ``pi``) the conditional expectation is undefined; ``Q_beta`` itself is returned (the limit
        ``E_pi[f | f >= Q_beta]`` of the top atom).  With discrete clients the tail mass
        ``P_pi(f > Q_beta)`` generally differs from ``1 - beta`` (mass sits at the quantile), and then
        this reading differs from ``f_alpha``: a finding recorded as claim
        ``rcfl.lemma1.hcvar_conditional`` (e.g. ``p = (1/2, 1/2)``, ``alpha = 3/4``, ``f = (0, 1)``:
        conditional ``1``, ``f_alpha = 2/3``).

    Remark 1: with ``alpha_i = chi`` for all ``i``, ``pi = p`` and ``beta = 1 - chi``: ``CVaR_{1-chi}``.

    Comparisons ``P_pi(f <= t) >= beta`` are done in float64; an atom whose cumulative mass equals
    ``beta`` only up to rounding may be placed on either side (in the RU reading both choices are
    minimisers, so the value is unaffected).
    """
    f, p_arr, a_arr = _instance(losses, p, alpha)
    if reading not in ("ru", "conditional"):
        raise FairtheoryValueError(f"reading must be 'ru' or 'conditional', got {reading!r}")
    c = p_arr / a_arr
    pi, beta = hcvar_level(p_arr, a_arr)  # beta >= 0 in float64 too (not 1 - 1/tau: -2.2e-16 at tau = 1)
    if reading == "ru":
        if beta <= 0.0:
            return float(pi @ f)
        eta = _lower_quantile(f, pi, beta)
        with np.errstate(over="ignore", invalid="ignore"):
            val = float(eta + np.sum(pi * np.maximum(f - eta, 0.0)) / (1.0 - beta))
        if not math.isfinite(val):  # f_i - eta overflowed; pi/(1 - beta) = c, and the value (f_alpha) fits
            val = _g(f, c, eta)
        return val
    if beta <= 0.0:
        return float(pi @ f)
    q = _lower_quantile(f, pi, beta)
    tail = (f > q) & (pi > 0)
    mass = float(pi[tail].sum())
    if mass <= 0.0:
        return q
    return float(pi[tail] @ f[tail] / mass)


def deviation(losses: Any, p: Any, alpha: Any, version: Literal["000", "002"] = "002") -> float:
    r"""Deviation ``D_alpha(f)`` so that ``f_alpha = E_alpha[f] + D_alpha(f)`` (``E_alpha`` under ``pi``).

    ``version="000"`` (seed 000): ``D = HCVaR_{1-alpha}(f) - E_pi[f]``.
    ``version="002"`` (002 Sec. 3.2): ``D = HCVaR_{1-alpha}(f - E_pi[f])``.
    Both use the RU reading of HCVaR (:func:`hcvar`), which is translation equivariant, so the two agree;
    ``D >= 0`` and ``D = 0`` for constant ``f`` (claim ``rcfl.deviation``).
    """
    f, p_arr, a_arr = _instance(losses, p, alpha)
    if version not in ("000", "002"):
        raise FairtheoryValueError(f"version must be '000' or '002', got {version!r}")
    c = p_arr / a_arr
    mean = float((c / c.sum()) @ f)
    with np.errstate(over="ignore", invalid="ignore"):
        if version == "000":
            return _fits(hcvar(f, p_arr, a_arr, "ru") - mean, "the deviation")
        shifted = f - mean
    if not np.all(np.isfinite(shifted)):  # f - E f overflowed: HCVaR is translation equivariant
        with np.errstate(over="ignore", invalid="ignore"):
            return _fits(hcvar(f, p_arr, a_arr, "ru") - mean, "the deviation")
    return hcvar(shifted, p_arr, a_arr, "ru")


# --------------------------------------------------------------------------- smoothing
def F_alpha(losses: Any, eta: Any, p: Any, alpha: Any) -> float:
    r"""Non-smooth joint objective (002 eq. 4) at one loss vector:

    .. math:: F_\alpha(\eta) = \sum_i p_i\Big[\frac{1}{\alpha_i}(f_i - \eta)_+ + \eta\Big].

    ``min_eta F_alpha = f_alpha`` (002 Lemma 1); see :func:`qalpha_dual` for the exact minimiser.
    """
    f, p_arr, a_arr = _instance(losses, p, alpha)
    e = _eta(eta)
    # sum_i c_i (f_i - eta)_+ + eta sum_i p_i with c_i = p_i/alpha_i <= 1: a client with p_i = 0 and a
    # tiny alpha_i contributes 0 (never 0 * inf)
    with np.errstate(over="ignore", invalid="ignore"):
        val = float((p_arr / a_arr) @ np.maximum(f - e, 0.0) + e * p_arr.sum())
    if not math.isfinite(val):
        val = _g(f, p_arr / a_arr, e, float(p_arr.sum()))
    return _fits(val, "F_alpha(eta)")


def F_mu(losses: Any, eta: Any, p: Any, alpha: Any, mu: float) -> float:
    r"""Smoothed joint objective (002 eq. 5): ``F^mu_alpha = sum_i p_i f^{mu,i}`` with

    .. math:: f^{\mu,i}(\eta) = \frac{1}{\alpha_i}\,\mathrm{softplus}_\mu(f_i - \eta) + \eta .

    002 Lemma 2: ``F_alpha <= F^mu_alpha <= F_alpha + mu tau_alpha`` (tight with ``mu tau_alpha log 2``).
    """
    f, p_arr, a_arr = _instance(losses, p, alpha)
    e = _eta(eta)
    mu = check_positive(mu, "mu")
    c = p_arr / a_arr
    with np.errstate(over="ignore", invalid="ignore"):
        x = f - e
        val = float(c @ softplus(x, mu) + e * p_arr.sum())
        if not math.isfinite(val):  # f - eta overflowed: (x)_+ in the masked form, plus mu log1p(e^{-|x|/mu})
            val = _g(f, c, e, float(p_arr.sum())) + float(c @ (mu * np.log1p(np.exp(-np.abs(x) / mu))))
    return _fits(val, "F_mu(eta)")


def F_mu_grad(losses: Any, eta: Any, p: Any, alpha: Any, mu: float) -> tuple[Array, float]:
    r"""Gradients of :func:`F_mu` in the loss vector and in ``eta`` (002 Sec. 4, Algorithm 1):

    .. math:: \frac{\partial F^\mu_\alpha}{\partial f_i} = \frac{p_i}{\alpha_i}\,s_i, \qquad
              \frac{\partial F^\mu_\alpha}{\partial \eta} = \sum_i p_i\Big(1 - \frac{s_i}{\alpha_i}\Big),
              \qquad s_i = \sigma\Big(\frac{f_i-\eta}{\mu}\Big).

    The gradient in a model ``w`` follows by the chain rule: ``sum_i g_losses_i grad f_i(w)``.
    """
    f, p_arr, a_arr = _instance(losses, p, alpha)
    e = _eta(eta)
    mu = check_positive(mu, "mu")
    with np.errstate(over="ignore", invalid="ignore"):  # (f - eta)/mu = +-inf: sigma = 1, 0 exactly
        s = sigmoid((f - e) / mu)
    g_f = p_arr / a_arr * s
    g_eta = float(p_arr.sum() - g_f.sum())
    return g_f, g_eta


def client_weights_mu(losses: Any, eta: Any, alpha: Any, mu: float) -> Any:
    r"""Per-client factors ``(1/alpha_i) sigma((f_i - eta)/mu)`` of the smoothed objective (002 Sec. 4).

    ``grad_w f^{mu,i} = client_weights_mu_i * grad f_i(w)`` and
    ``d f^{mu,i}/d eta = 1 - client_weights_mu_i``.  Generic: ``losses`` may be a numpy array (any real
    dtype), a list or a torch tensor, ``eta`` a float or a 0-d tensor; the result has the library,
    dtype and device of ``losses`` (integer tensors give float64) and is differentiable: a torch
    ``losses`` (or ``eta``) with ``requires_grad`` keeps its autograd graph.

    Parameters
    ----------
    losses : array_like or torch.Tensor, shape (n,)
        Client losses (finite, non-empty).
    eta : float or 0-d tensor
        Finite threshold.
    alpha : float or array_like, shape (n,)
        Conservatism in ``(0, 1]`` (this function does not see ``p``; ``alpha_i >= p_i`` is the caller's
        responsibility - :func:`F_mu_grad` checks it).
    mu : float
        Smoothing parameter ``> 0``.
    """
    mu = check_positive(mu, "mu")
    f = as_float(losses, "losses", ndim=1)
    if is_torch(eta):
        if eta.ndim != 0 or str(eta.dtype) == "torch.bool" or eta.is_complex() or not bool(eta.detach().isfinite()):
            raise FairtheoryValueError(f"eta must be a finite real scalar, got {eta!r}")
        if not is_torch(f):  # numpy losses: the result is numpy, eta a plain float
            eta = float(eta.detach())
        elif not eta.is_floating_point():
            eta = eta.to(f.dtype)
    else:
        eta = _eta(eta)
    if np.ndim(alpha) == 0 and not is_torch(alpha):
        a_np = np.asarray(check_in_range(alpha, "alpha", low=0.0, high=1.0 + 1e-12, low_inclusive=False))
    else:
        a_np = as_array(alpha, "alpha", ndim=(0, 1))
        if a_np.ndim == 1 and a_np.shape != (f.shape[0],):
            raise FairtheoryValueError(f"alpha must be a scalar or have shape ({f.shape[0]},), got {a_np.shape}")
        if not (np.all(a_np > 0) and np.all(a_np <= 1.0 + 1e-12)):
            raise FairtheoryValueError(f"alpha must lie in (0, 1], got {a_np!r}")
    if is_torch(f):
        a = like(np.minimum(a_np, 1.0), f)
    else:
        a = np.minimum(a_np, 1.0).astype(f.dtype)
    with np.errstate(over="ignore", invalid="ignore"):  # (f - eta)/mu = +-inf is fine: sigma(+-inf) = 1, 0
        return sigmoid((f - eta) / mu) / a
