r"""Constants and right-hand sides of the rFedFair convergence results (002 / 000 Sec. 5.1).

Notation (002 Sec. 5.1): ``theta = (w, eta)``; ``(w*, eta*) = argmin F^mu_alpha``;
``rho^2 = sum_i p_i ||grad_{w,eta} f^{mu,i}(w*, eta*)||^2``; ``tau_alpha = sum_i p_i/alpha_i``;
``D0 = ||w_0 - w*||^2 + (eta_0 - eta*)^2 = ||theta_0 - theta*||^2``.

* 002 Lemma C.1 / 000 Lemma C.1: ``L = (L1 + (L2^2 + 1)/mu) max_i 1/alpha_i``.
* 002 Theorem 1 (full participation, output ``1/(T_N+1) sum_r w_{r kappa+1}``), if
  ``beta <= 1/(40 L)`` and ``6 L^2 beta^2 (kappa-1)^2 <= 1``:
  ``f_alpha(w_tilde) - f*_alpha <= 2 D0/(beta (T_N+1)) + 26 L beta^2 (kappa-1)^2 kappa rho^2 + mu tau_alpha``,
  ``T_N = (T-2)/kappa``.
* 000 Theorem 1 (same conditions, output ``1/T sum_t sum_i p_i w_t^i``):
  ``<= 2 D0/(beta T) + 26 L beta^2 (kappa-1)^2 rho^2 + mu tau_alpha``.
* 002 Theorem 2 (partial participation, ``K`` draws with replacement by ``p``), if
  ``L beta (3 kappa/K + 2) <= 1/20`` and ``6 L^2 beta^2 (kappa-1)^2 <= 1``: in expectation over the
  draws, the 002 Theorem 1 right-hand side ``+ (12/K) beta kappa^2 rho^2``.
* 000 Theorem 2: the 000 Theorem 1 right-hand side ``+ (12/K) beta kappa rho^2``.

The step-size conditions are checked with a relative slack of ``1e-12`` (float64 rounding at the
largest admissible ``beta``, which :func:`theorem1_beta_max` / :func:`theorem2_beta_max` return).
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from fairtheory._validation import (
    FairtheoryValueError,
    as_vector,
    check_alpha,
    check_in_range,
    check_integer,
    check_positive,
)

__all__ = [
    "lemma_c1_L",
    "theorem1_beta_max",
    "theorem1_step_ok",
    "theorem1_terms",
    "theorem1_bound",
    "theorem2_beta_max",
    "theorem2_step_ok",
    "theorem2_terms",
    "theorem2_bound",
    "heterogeneity_rho2",
]

Version = Literal["002", "000"]

#: relative slack for the step-size conditions (rounding at the boundary ``beta = beta_max``)
CONDITION_SLACK = 1e-12


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
    a = np.atleast_1d(as_vector(np.atleast_1d(alpha), "alpha"))
    if np.any(a <= 0) or np.any(a > 1):
        bad = int(np.flatnonzero((a <= 0) | (a > 1))[0])
        raise FairtheoryValueError(f"alpha[{bad}] must lie in (0, 1], got {a[bad]!r}")
    return float((L1_f + (L2_f**2 + 1.0) / mu_f) * np.max(1.0 / a))


def _pos_L_kappa(L: Any, kappa: Any) -> tuple[float, int]:
    return check_positive(L, "L"), check_integer(kappa, "kappa", low=1)


def theorem1_beta_max(L: float, kappa: int) -> float:
    r"""Largest ``beta`` with ``beta <= 1/(40 L)`` and ``6 L^2 beta^2 (kappa-1)^2 <= 1``
    (002 / 000 Thm. 1): ``min(1/(40 L), 1/(sqrt(6) L (kappa-1)))``."""
    L_f, k = _pos_L_kappa(L, kappa)
    b = 1.0 / (40.0 * L_f)
    if k > 1:
        b = min(b, 1.0 / (math.sqrt(6.0) * L_f * (k - 1)))
    return b


def theorem1_step_ok(L: float, beta: float, kappa: int) -> bool:
    """Whether ``beta <= 1/(40 L)`` and ``6 L^2 beta^2 (kappa-1)^2 <= 1`` (002 / 000 Thm. 1)."""
    L_f, k = _pos_L_kappa(L, kappa)
    b = check_positive(beta, "beta")
    s = 1.0 + CONDITION_SLACK
    return bool(40.0 * L_f * b <= s and 6.0 * L_f**2 * b**2 * (k - 1) ** 2 <= s)


def theorem2_beta_max(L: float, kappa: int, K: int) -> float:
    r"""Largest ``beta`` with ``L beta (3 kappa/K + 2) <= 1/20`` and ``6 L^2 beta^2 (kappa-1)^2 <= 1``
    (002 / 000 Thm. 2)."""
    L_f, k = _pos_L_kappa(L, kappa)
    K_i = check_integer(K, "K", low=1)
    b = 1.0 / (20.0 * L_f * (3.0 * k / K_i + 2.0))
    if k > 1:
        b = min(b, 1.0 / (math.sqrt(6.0) * L_f * (k - 1)))
    return b


def theorem2_step_ok(L: float, beta: float, kappa: int, K: int) -> bool:
    """Whether ``L beta (3 kappa/K + 2) <= 1/20`` and ``6 L^2 beta^2 (kappa-1)^2 <= 1`` (002 / 000 Thm. 2)."""
    L_f, k = _pos_L_kappa(L, kappa)
    K_i = check_integer(K, "K", low=1)
    b = check_positive(beta, "beta")
    s = 1.0 + CONDITION_SLACK
    return bool(20.0 * L_f * b * (3.0 * k / K_i + 2.0) <= s and 6.0 * L_f**2 * b**2 * (k - 1) ** 2 <= s)


def theorem1_terms(*, dist0_sq: float, beta: float, T: int, kappa: int, L: float, rho2: float,
                   mu: float, tau_alpha: float, version: Version = "002") -> dict[str, float]:
    r"""The three terms of the Theorem 1 right-hand side.

    ``002``: ``init = 2 D0/(beta (T_N+1))`` with ``T_N = (T-2)/kappa`` (``T - 2`` must be divisible by
    ``kappa``), ``hetero = 26 L beta^2 (kappa-1)^2 kappa rho^2``.  ``000``: ``init = 2 D0/(beta T)``,
    ``hetero = 26 L beta^2 (kappa-1)^2 rho^2``.  Both: ``smooth = mu tau_alpha``.

    Returns ``{"init", "hetero", "smooth"}``.
    """
    v = _version(version)
    D0 = check_in_range(dist0_sq, "dist0_sq", low=0.0)
    b = check_positive(beta, "beta")
    L_f, k = _pos_L_kappa(L, kappa)
    r2 = check_in_range(rho2, "rho2", low=0.0)
    mu_f = check_positive(mu, "mu")
    tau = check_in_range(tau_alpha, "tau_alpha", low=1.0 - 1e-12)
    if v == "002":
        from fairtheory.algorithms.rfedfair import rounds_for

        T_N = rounds_for(T, k)
        init = 2.0 * D0 / (b * (T_N + 1))
        hetero = 26.0 * L_f * b**2 * (k - 1) ** 2 * k * r2
    else:
        T_i = check_integer(T, "T", low=1)
        init = 2.0 * D0 / (b * T_i)
        hetero = 26.0 * L_f * b**2 * (k - 1) ** 2 * r2
    return {"init": init, "hetero": hetero, "smooth": mu_f * tau}


def theorem1_bound(**kw: Any) -> float:
    """Sum of :func:`theorem1_terms` (002 Thm. 1 or, with ``version="000"``, 000 Thm. 1)."""
    return float(sum(theorem1_terms(**kw).values()))


def theorem2_terms(*, K: int, **kw: Any) -> dict[str, float]:
    r"""Theorem 2 terms: those of :func:`theorem1_terms` plus ``sampling`` =
    ``(12/K) beta kappa^2 rho^2`` (002 Thm. 2) or ``(12/K) beta kappa rho^2`` (000 Thm. 2)."""
    K_i = check_integer(K, "K", low=1)
    terms = theorem1_terms(**kw)
    v = _version(kw.get("version", "002"))
    k = int(kw["kappa"])
    b, r2 = float(kw["beta"]), float(kw["rho2"])
    terms["sampling"] = 12.0 / K_i * b * (k**2 if v == "002" else k) * r2
    return terms


def theorem2_bound(**kw: Any) -> float:
    """Sum of :func:`theorem2_terms` (002 Thm. 2 or, with ``version="000"``, 000 Thm. 2)."""
    return float(sum(theorem2_terms(**kw).values()))


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
    a = check_alpha(alpha, problem.p, "alpha")
    W = np.broadcast_to(w_arr, (problem.n, problem.d))
    Gw, ge = local_gradients(problem, W, np.full(problem.n, eta_f), SmoothedQalpha(problem.p, a, mu_f))
    return float(problem.p @ (np.sum(np.asarray(Gw) ** 2, axis=1) + np.asarray(ge) ** 2))
