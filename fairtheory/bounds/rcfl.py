r"""Constants and right-hand sides of the rFedFair convergence results (002 / 000 Sec. 5.1).

Notation (002 Sec. 5.1): ``theta = (w, eta)``; ``(w*, eta*) = argmin F^mu_alpha``;
``rho^2 = sum_i p_i ||grad_{w,eta} f^{mu,i}(w*, eta*)||^2``; ``tau_alpha = sum_i p_i/alpha_i``;
``D0 = ||w_0 - w*||^2 + (eta_0 - eta*)^2 = ||theta_0 - theta*||^2``.

* 002 Lemma C.1 / 000 Lemma C.1: ``L = (L1 + (L2^2 + 1)/mu) max_i 1/alpha_i``.
The step size is ``lr`` (``beta`` in 002 / 000 Thm. 1-2; the keyword ``beta=`` is refused with a
:class:`~fairtheory.errors.FairtheoryTypeError` naming ``lr=``, :func:`fairtheory.algorithms.names.refuses_old_names`).

* 002 Theorem 1 (full participation, output ``1/(T_N+1) sum_r w_{r kappa+1}``), if
  ``lr <= 1/(40 L)`` and ``6 L^2 lr^2 (kappa-1)^2 <= 1``:
  ``f_alpha(w_tilde) - f*_alpha <= 2 D0/(lr (T_N+1)) + 26 L lr^2 (kappa-1)^2 kappa rho^2 + mu tau_alpha``,
  ``T_N = (T-2)/kappa``.
* 000 Theorem 1 (same conditions, output ``1/T sum_t sum_i p_i w_t^i``):
  ``<= 2 D0/(lr T) + 26 L lr^2 (kappa-1)^2 rho^2 + mu tau_alpha``.
* 002 Theorem 2 (partial participation, ``K`` draws with replacement by ``p``), if
  ``L lr (3 kappa/K + 2) <= 1/20`` and ``6 L^2 lr^2 (kappa-1)^2 <= 1``: in expectation over the
  draws, the 002 Theorem 1 right-hand side ``+ (12/K) lr kappa^2 rho^2``.
* 000 Theorem 2: the 000 Theorem 1 right-hand side ``+ (12/K) lr kappa rho^2``.

The step-size conditions are checked with a relative slack of ``1e-12`` (float64 rounding at the
largest admissible ``lr``, which :func:`theorem1_lr_max` / :func:`theorem2_lr_max` return).
Products of constants are evaluated without intermediate overflow or underflow (e.g. ``L lr^2`` with
``L = 1e200``, ``lr = 1e-200``); a term whose value does not fit a float64 raises
:class:`~fairtheory.errors.FairtheoryValueError`.  ``alpha`` may be a list, array or torch tensor
(detached).
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from fairtheory._validation import (
    FairtheoryValueError,
    as_vector,
    check_in_range,
    check_integer,
    check_positive,
)
from fairtheory.algorithms.names import refuses_old_names
from fairtheory.backend import as_alpha

__all__ = [
    "lemma_c1_L",
    "theorem1_lr_max",
    "theorem1_step_ok",
    "theorem1_terms",
    "theorem1_bound",
    "theorem2_lr_max",
    "theorem2_step_ok",
    "theorem2_terms",
    "theorem2_bound",
    "heterogeneity_rho2",
]

Version = Literal["002", "000"]

#: relative slack for the step-size conditions (rounding at the boundary ``lr = lr_max``)
CONDITION_SLACK = 1e-12
#: the renamed keyword of the step size (002's ``beta``), refused by name (:func:`refuses_old_names`)
_OLD = {"beta": "lr"}
_TINY = float(np.finfo(np.float64).tiny)


def _product(what: str, direct: float, *factors: float) -> float:
    r"""``prod factors`` (each finite and ``>= 0``; a factor written ``(x, -1)`` is ``1/x``), given its
    direct evaluation ``direct``: kept when it is a normal float, else recomputed from exact
    power-of-two splits (no intermediate overflow or underflow); a product beyond the float64 range
    raises :class:`FairtheoryValueError` naming ``what``."""
    if math.isfinite(direct) and (direct >= _TINY or direct == 0.0 and _has_zero(factors)):
        return float(direct)
    mant, expo = 1.0, 0
    for fac in factors:
        x, y = fac if isinstance(fac, tuple) else (fac, 1)
        if x == 0.0:
            if y < 0:
                raise FairtheoryValueError(f"{what} is infinite (division by zero)")
            return 0.0
        m, e = math.frexp(float(x))
        if y < 0:
            m, e = 1.0 / m, -e
        mant, e2 = math.frexp(mant * m)
        expo += e + e2
    try:
        return math.ldexp(mant, expo)
    except OverflowError:
        raise FairtheoryValueError(f"{what} exceeds the float64 range (about 1.8e308): the true value does not fit "
                                   "a float64") from None


def _has_zero(factors: tuple[Any, ...]) -> bool:
    return any((f[0] if isinstance(f, tuple) else f) == 0.0 for f in factors)


def _version(v: Any) -> str:
    if v not in ("002", "000"):
        raise FairtheoryValueError(f"version must be '002' or '000', got {v!r}")
    return str(v)


def lemma_c1_L(L1: float, L2: float, mu: float, alpha: Any) -> float:
    r"""``L = (L1 + (L2^2 + 1)/mu) max_i 1/alpha_i`` (002 Lemma C.1).

    Parameters
    ----------
    L1 : smoothness constant of every ``f_i`` (``>= 0``).  L2 : Lipschitz constant (``>= 0``, finite).
    mu : smoothing parameter ``> 0``.  alpha : scalar or vector with entries in ``(0, 1]``.
    """
    L1_f = check_in_range(L1, "L1", low=0.0)
    L2_f = check_in_range(L2, "L2", low=0.0)
    mu_f = check_positive(mu, "mu")
    if np.ndim(alpha) == 0 and not hasattr(alpha, "detach"):
        a = np.array([check_in_range(alpha, "alpha", low=0.0, high=1.0, low_inclusive=False)])
    else:
        a = as_vector(alpha, "alpha")
    if np.any(a <= 0) or np.any(a > 1):
        bad = int(np.flatnonzero((a <= 0) | (a > 1))[0])
        raise FairtheoryValueError(f"alpha[{bad}] must lie in (0, 1], got {a[bad]!r}")
    with np.errstate(over="ignore", divide="ignore"):
        direct = float((np.float64(L1_f) + (np.float64(L2_f) ** 2 + 1.0) / mu_f) * np.max(1.0 / a))
    if math.isfinite(direct) and direct > 0.0:
        return direct
    # L1/a_min + L2^2/(mu a_min) + 1/(mu a_min), each without intermediate overflow
    a_min = float(a.min())
    terms = [_product("L", L1_f / a_min if L1_f else 0.0, L1_f, (a_min, -1)),
             _product("L", math.inf, L2_f, L2_f, (mu_f, -1), (a_min, -1)) if L2_f else 0.0,
             _product("L", math.inf, (mu_f, -1), (a_min, -1))]
    total = math.fsum(terms)
    if not math.isfinite(total):
        raise FairtheoryValueError("L exceeds the float64 range (about 1.8e308): the true value does not fit a float64")
    return total


def _pos_L_kappa(L: Any, kappa: Any) -> tuple[float, int]:
    return check_positive(L, "L"), check_integer(kappa, "kappa", low=1)


def theorem1_lr_max(L: float, kappa: int) -> float:
    r"""Largest step size ``lr`` (``beta`` in 002 Thm. 1) with ``lr <= 1/(40 L)`` and
    ``6 L^2 lr^2 (kappa-1)^2 <= 1`` (002 / 000 Thm. 1): ``min(1/(40 L), 1/(sqrt(6) L (kappa-1)))``."""
    L_f, k = _pos_L_kappa(L, kappa)
    b = _product("lr_max = 1/(40 L)", _safe_div(1.0, 40.0 * L_f), (40.0, -1), (L_f, -1))
    if k > 1:
        b = min(b, _product("lr_max", _safe_div(1.0, math.sqrt(6.0) * L_f * (k - 1)),
                            (math.sqrt(6.0), -1), (L_f, -1), (float(k - 1), -1)))
    return b


def _safe_div(a: float, b: float) -> float:
    """``a / b`` in float64, ``inf`` instead of an exception where it overflows."""
    with np.errstate(over="ignore", divide="ignore"):
        return float(np.float64(a) / np.float64(b))


@refuses_old_names(None, also=_OLD)
def theorem1_step_ok(L: float, lr: float, kappa: int) -> bool:
    """Whether the step size ``lr`` (``beta`` in 002 Thm. 1) satisfies ``lr <= 1/(40 L)`` and
    ``6 L^2 lr^2 (kappa-1)^2 <= 1`` (002 / 000 Thm. 1)."""
    L_f, k = _pos_L_kappa(L, kappa)
    b = check_positive(lr, "lr")
    s = 1.0 + CONDITION_SLACK
    return bool(40.0 * L_f * b <= s and 6.0 * L_f**2 * b**2 * (k - 1) ** 2 <= s)


def theorem2_lr_max(L: float, kappa: int, K: int) -> float:
    r"""Largest step size ``lr`` (``beta`` in 002 Thm. 2) with ``L lr (3 kappa/K + 2) <= 1/20`` and
    ``6 L^2 lr^2 (kappa-1)^2 <= 1`` (002 / 000 Thm. 2)."""
    L_f, k = _pos_L_kappa(L, kappa)
    K_i = check_integer(K, "K", low=1)
    c = 20.0 * (3.0 * k / K_i + 2.0)
    b = _product("lr_max", _safe_div(1.0, 20.0 * L_f * (3.0 * k / K_i + 2.0)), (c, -1), (L_f, -1))
    if k > 1:
        b = min(b, _product("lr_max", _safe_div(1.0, math.sqrt(6.0) * L_f * (k - 1)),
                            (math.sqrt(6.0), -1), (L_f, -1), (float(k - 1), -1)))
    return b


@refuses_old_names(None, also=_OLD)
def theorem2_step_ok(L: float, lr: float, kappa: int, K: int) -> bool:
    """Whether the step size ``lr`` (``beta`` in 002 Thm. 2) satisfies ``L lr (3 kappa/K + 2) <= 1/20`` and
    ``6 L^2 lr^2 (kappa-1)^2 <= 1`` (002 / 000 Thm. 2)."""
    L_f, k = _pos_L_kappa(L, kappa)
    K_i = check_integer(K, "K", low=1)
    b = check_positive(lr, "lr")
    s = 1.0 + CONDITION_SLACK
    return bool(20.0 * L_f * b * (3.0 * k / K_i + 2.0) <= s and 6.0 * L_f**2 * b**2 * (k - 1) ** 2 <= s)


@refuses_old_names(None, also=_OLD)
def theorem1_terms(*, dist0_sq: float, lr: float, T: int, kappa: int, L: float, rho2: float,
                   mu: float, tau_alpha: float, version: Version = "002") -> dict[str, float]:
    r"""The three terms of the Theorem 1 right-hand side at the step size ``lr`` (``beta`` in 002 Thm. 1).

    ``002``: ``init = 2 D0/(lr (T_N+1))`` with ``T_N = (T-2)/kappa`` (``T - 2`` must be divisible by
    ``kappa``), ``hetero = 26 L lr^2 (kappa-1)^2 kappa rho^2``.  ``000``: ``init = 2 D0/(lr T)``,
    ``hetero = 26 L lr^2 (kappa-1)^2 rho^2``.  Both: ``smooth = mu tau_alpha``.

    Returns ``{"init", "hetero", "smooth"}``.
    """
    v = _version(version)
    D0 = check_in_range(dist0_sq, "dist0_sq", low=0.0)
    b = check_positive(lr, "lr")
    L_f, k = _pos_L_kappa(L, kappa)
    r2 = check_in_range(rho2, "rho2", low=0.0)
    mu_f = check_positive(mu, "mu")
    tau = check_in_range(tau_alpha, "tau_alpha", low=1.0 - 1e-12)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        if v == "002":
            from fairtheory.algorithms.rfedfair import rounds_for

            T_N = rounds_for(T, k)
            init = _safe_div(2.0 * D0, float(np.float64(b) * (T_N + 1)))
            hetero = float(26.0 * L_f * np.float64(b) ** 2 * (k - 1) ** 2 * k * r2)
            init = _product("the init term 2 D0/(lr (T_N+1))", init, 2.0, D0, (b, -1), (float(T_N + 1), -1))
            hetero = _product("the heterogeneity term", hetero, 26.0, L_f, b, b, float((k - 1) ** 2), float(k), r2)
        else:
            T_i = check_integer(T, "T", low=1)
            init = _safe_div(2.0 * D0, float(np.float64(b) * T_i))
            hetero = float(26.0 * L_f * np.float64(b) ** 2 * (k - 1) ** 2 * r2)
            init = _product("the init term 2 D0/(lr T)", init, 2.0, D0, (b, -1), (float(T_i), -1))
            hetero = _product("the heterogeneity term", hetero, 26.0, L_f, b, b, float((k - 1) ** 2), r2)
        smooth = _product("the smoothing term mu tau_alpha", float(np.float64(mu_f) * tau), mu_f, tau)
    return {"init": init, "hetero": hetero, "smooth": smooth}


def _sum_terms(terms: dict[str, float]) -> float:
    with np.errstate(over="ignore"):
        total = float(sum(np.float64(t) for t in terms.values()))
    if not math.isfinite(total):
        raise FairtheoryValueError(f"the bound {terms} exceeds the float64 range (about 1.8e308)")
    return total


@refuses_old_names(None, also=_OLD)
def theorem1_bound(**kw: Any) -> float:
    """Sum of :func:`theorem1_terms` (002 Thm. 1 or, with ``version="000"``, 000 Thm. 1)."""
    return _sum_terms(theorem1_terms(**kw))


@refuses_old_names(None, also=_OLD)
def theorem2_terms(*, K: int, **kw: Any) -> dict[str, float]:
    r"""Theorem 2 terms: those of :func:`theorem1_terms` plus ``sampling`` =
    ``(12/K) lr kappa^2 rho^2`` (002 Thm. 2) or ``(12/K) lr kappa rho^2`` (000 Thm. 2), ``lr`` the step size
    (``beta`` in 002 Thm. 2)."""
    K_i = check_integer(K, "K", low=1)
    terms = theorem1_terms(**kw)
    v = _version(kw.get("version", "002"))
    k = int(kw["kappa"])
    b, r2 = float(kw["lr"]), float(kw["rho2"])
    kk = float(k**2 if v == "002" else k)
    with np.errstate(over="ignore", under="ignore"):
        direct = float(12.0 / K_i * np.float64(b) * kk * r2)
    terms["sampling"] = _product("the sampling term", direct, 12.0, (float(K_i), -1), b, kk, r2)
    return terms


@refuses_old_names(None, also=_OLD)
def theorem2_bound(**kw: Any) -> float:
    """Sum of :func:`theorem2_terms` (002 Thm. 2 or, with ``version="000"``, 000 Thm. 2)."""
    return _sum_terms(theorem2_terms(**kw))


def heterogeneity_rho2(problem: Any, w: Any, eta: float, alpha: Any, mu: float) -> float:
    r"""``rho^2 = sum_i p_i ||grad_{w,eta} f^{mu,i}(w, eta)||^2`` at ``(w, eta)`` (002 Sec. 5.1);
    evaluate it at ``(w*, eta*) = argmin F^mu_alpha`` from an exact solver.

    ``||grad f^{mu,i}||^2 = s_i^2 ||grad f_i(w)||^2 + (1 - s_i)^2`` with
    ``s_i = sigma((f_i(w) - eta)/mu)/alpha_i``.
    """
    from fairtheory.aggregators import SmoothedQalpha
    from fairtheory.algorithms.rfedfair import local_gradients

    w_arr = as_vector(w, "w")
    if w_arr.shape != (problem.d,):
        raise FairtheoryValueError(f"w must have shape ({problem.d},), got {w_arr.shape}")
    eta_f = check_in_range(eta, "eta")
    mu_f = check_positive(mu, "mu")
    a = as_alpha(alpha, problem.p, "alpha")
    W = np.broadcast_to(w_arr, (problem.n, problem.d))
    Gw, ge = local_gradients(problem, W, np.full(problem.n, eta_f), SmoothedQalpha(problem.p, a, mu_f))
    return float(problem.p @ (np.sum(np.asarray(Gw) ** 2, axis=1) + np.asarray(ge) ** 2))
