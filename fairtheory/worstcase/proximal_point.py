r"""The proximal point method's worst case on ``L``-smooth convex functions: a closed form and its explicit instance.

One-client FedProx with the exact prox (Li et al. 2020, Alg. 2, ``gamma = 1/prox_mu``) is the proximal point method
``x_{k+1} = prox_{gamma f}(x_k)``.  On the Huber function of :class:`fairtheory.problems.huber.HuberProblem` with
``tau = sqrt(D0)/(1 + 2 gamma L N)`` it reaches ``L D0/(2 + 4 gamma L N)`` (:func:`ppm_huber_value`, the argument
of Drori & Teboulle 2014 for gradient descent), which the traced worst case of
:func:`fairtheory.worstcase.traced.worst_case` meets; :func:`ppm_huber_replay` runs
:mod:`fairtheory.algorithms.fedprox` on that instance with numpy.  At ``gamma L -> inf`` the value tends to
Taylor, Hendrickx & Glineur 2017's ``D0/(4 gamma N)``, their bound for all convex functions.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fairtheory._validation import check_integer, check_positive
from fairtheory.algorithms import fedprox
from fairtheory.algorithms.base import run
from fairtheory.problems.huber import HuberProblem

__all__ = ["ppm_huber_value", "ppm_huber_replay"]


def ppm_huber_value(*, L: float, D0: float, gamma: float, N: int) -> float:
    r"""``L D0 / (2 + 4 gamma L N)``: ``f(x_N) - f*`` of the proximal point method ``x_{k+1} = prox_{gamma f}(x_k)``
    from ``x_0 = sqrt(D0)`` on the Huber function with ``tau = sqrt(D0)/(1 + 2 gamma L N)``: every step stays on
    the linear part (``x_{k+1} = x_k - gamma L tau``), ``x_N = sqrt(D0)(1 + gamma L N)/(1 + 2 gamma L N) >= tau``
    and ``f(x_N) = L tau x_N - L tau^2/2``; maximising ``L tau sqrt(D0) - (gamma L N + 1/2) L tau^2`` over ``tau``
    gives the value (the argument of Drori & Teboulle 2014 for gradient descent, with the step ``gamma L`` of the
    prox).  At ``gamma L -> inf`` it tends to Taylor, Hendrickx & Glineur 2017's ``D0/(4 gamma N)``.  ``L``, ``D0``,
    ``gamma`` finite and ``> 0``, ``N`` an integer ``>= 1`` (refused by name otherwise)."""
    L, D0, gamma, N = _checked(L=L, D0=D0, gamma=gamma, N=N)
    return L * D0 / (2.0 + 4.0 * gamma * L * N)


def _checked(*, L: Any, D0: Any, gamma: Any, N: Any) -> tuple[float, float, float, int]:
    return (check_positive(L, "L"), check_positive(D0, "D0"), check_positive(gamma, "gamma"),
            check_integer(N, "N", low=1))


def ppm_huber_replay(*, L: float, D0: float, gamma: float, N: int) -> float:
    """``f(x_N) - f*`` reached by :mod:`fairtheory.algorithms.fedprox` (``solver="exact"``, one client, numeric
    :meth:`~fairtheory.problems.base.FederatedProblem.prox_each`) on the Huber instance of :func:`ppm_huber_value`."""
    L, D0, gamma, N = _checked(L=L, D0=D0, gamma=gamma, N=N)
    tau = math.sqrt(D0) / (1.0 + 2.0 * gamma * L * N)
    P = HuberProblem(L, tau)
    state, _ = run(fedprox.make(P, prox_mu=1.0 / gamma, solver="exact"), N, w0=np.array([math.sqrt(D0)]),
                   record_losses=False)
    return float(P.losses(state.w)[0])
