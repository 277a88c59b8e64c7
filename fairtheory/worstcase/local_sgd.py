r"""Local SGD (FedAvg with ``kappa = 1``, 002's schedule) with stochastic gradients, and 002 Thms. 1-2 at ``kappa = 1``.

002 Thms. 1-2 assume exact local gradients.  :func:`sgd_worst_case` traces :mod:`fairtheory.algorithms.fedavg`
(one local step per round, the output the mean of the server models ``w_1..w_T``, 002's ``w_tilde``) with gradients
of variance ``sigma2`` (:func:`fairtheory.worstcase.traced.worst_case`, ``sigma2=``); :func:`theorem_rhs` is the
theorems' right-hand side at the same setting, to compare it with.
"""

from __future__ import annotations

from typing import Any

from fairtheory.algorithms import fedavg
from fairtheory.worstcase.ratio import theorem_coefficients
from fairtheory.worstcase.traced import worst_case

__all__ = ["theorem_rhs", "sgd_worst_case"]


def theorem_rhs(*, T: int, lr: float, L: float, D0: float, rho2: float, K: int | None) -> float:
    """002 Thm. 1 (``K=None``) / Thm. 2 right-hand side less ``mu tau_alpha`` for ``kappa = 1`` and ``T_N = T - 1``
    at step size ``lr`` (:func:`fairtheory.worstcase.ratio.theorem_coefficients`, from :mod:`fairtheory.bounds.rcfl`)."""
    a, b = theorem_coefficients(version="002", kappa=1, T_N=T - 1, lr=lr, L=L, K=K)
    return a * D0 + b * rho2


def sgd_worst_case(n: int, K: int | None, T: int, lr: float, D0: float, rho2: float, sigma2: float,
                   tol: float = 1e-8) -> Any:
    """Traced worst case of ``E[G(w_tilde)] - G*`` of FedAvg with ``kappa = 1`` (= 002's schedule at ``kappa = 1``),
    output the mean of the server models ``w_1..w_T`` (002's ``w_tilde``), gradients of variance ``sigma2``."""
    return worst_case(fedavg.make, T, n=n, L=1.0, D0=D0, rho2=rho2, sigma2=sigma2, output="average", lr=lr, kappa=1,
                      K=K, tol=tol)
