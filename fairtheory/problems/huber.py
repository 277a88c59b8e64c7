r"""The one-client Huber problem: the function on which the proximal point method meets its smooth convex worst case.

``f(x) = L/2 x^2`` for ``|x| <= tau`` and ``L tau |x| - L tau^2/2`` beyond (``d = 1``): convex, ``L``-smooth,
``f* = 0`` at ``x* = 0``.  With ``tau = sqrt(D0)/(1 + 2 gamma L N)`` every proximal step from ``x_0 = sqrt(D0)``
stays on the linear part (Drori & Teboulle 2014's argument for gradient descent, with the step ``gamma L`` of the
prox), which makes it an explicit worst instance of FedProx with one client
(:func:`fairtheory.worstcase.proximal_point.ppm_huber_value`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fairtheory.problems.base import FederatedProblem

__all__ = ["HuberProblem"]


class HuberProblem(FederatedProblem):
    r"""One client ``f(x) = L/2 x^2`` for ``|x| <= tau``, ``L tau |x| - L tau^2/2`` beyond (``d = 1``): convex,
    ``L``-smooth, ``f* = 0`` at ``x* = 0`` - the function on which the proximal point method meets its smooth
    convex worst case (:func:`fairtheory.worstcase.proximal_point.ppm_huber_value`)."""

    def __init__(self, L: float, tau: float) -> None:
        self.n, self.d, self.L, self.tau = 1, 1, float(L), float(tau)
        self._set_weights(np.ones(1), 1)

    def losses_each(self, W: Any, clients: Any = None) -> Any:
        c = self.client_index(clients)
        W = self._check_models(W, c)
        a = np.abs(W[:, 0])
        return np.where(a <= self.tau, 0.5 * self.L * a * a, self.L * self.tau * a - 0.5 * self.L * self.tau ** 2)

    def grads_each(self, W: Any, clients: Any = None) -> Any:
        c = self.client_index(clients)
        W = self._check_models(W, c)
        return self.L * np.clip(W, -self.tau, self.tau)

    def hessians(self, w: Any) -> Any:
        return np.array([[[self.L if abs(float(np.asarray(w)[0])) <= self.tau else 0.0]]])

    def cvxpy_losses(self, w: Any) -> list[Any]:
        import cvxpy as cp

        return [0.5 * self.L * cp.huber(w[0], self.tau)]

    def smoothness(self) -> float:
        return self.L
