r"""Two user-written aggregators, built on :class:`fairtheory.aggregators.BaseAggregator`.

PropFair (Zhang et al. 2022): ``A(f) = -sum_i p_i log(M - f_i)`` on ``f < M``.  Convex and
increasing in every loss; separable (``h(f) = -log(M - f)``, no auxiliary variable), so rFedFair
and q-FedAvg train it through the aggregator interface, and the exact solver minimises it from its
cvxpy form ``-p . log(M - t)``.

Mean + lambda std: ``A(f) = p . f + lambda sqrt(sum_i p_i (f_i - p . f)^2)``.  Convex (a norm of a
linear map plus a linear term) but *not* monotone once a client sits more than ``1/lambda`` standard
deviations below the mean: raising its loss lowers the spread more than the mean grows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fairtheory.aggregators import BaseAggregator
from fairtheory.backend import like, namespace
from fairtheory.validation import check_positive, check_probability_vector


class PropFair(BaseAggregator):
    """``A(f) = -sum_i p_i log(M - f_i)``; ``weights = p/(M - f)``, ``curvature = p/(M - f)^2``."""

    torch_native = True

    def __init__(self, p: Any, M: float) -> None:
        self.p = check_probability_vector(p, "p")
        self.M = check_positive(M, "M")
        self.n = self.p.size
        self.domain = (-np.inf, self.M)
        self.name = f"propfair(M={self.M:g})"

    def _value(self, f: Any) -> Any:
        xp = namespace(f)
        return -xp.sum(like(self.p, f) * xp.log(self.M - f))

    def _weights(self, f: Any) -> Any:
        return like(self.p, f) / (self.M - f)

    def curvature(self, f: Any) -> Any:
        return like(self.p, f) / (self.M - f) ** 2

    # separable form: h(f, eta) = -log(M - f) (no auxiliary variable)
    def client_values(self, f: Any, eta: Any) -> Any:
        return -namespace(f).log(self.M - f)

    def client_grads(self, f: Any, eta: Any) -> tuple[Any, Any]:
        return 1.0 / (self.M - f), namespace(f).zeros_like(f)

    def cvxpy(self, t: Any) -> Any:
        import cvxpy as cp

        return -self.p @ cp.log(self.M - t)


class MeanStd(BaseAggregator):
    """``A(f) = p . f + lam * std_p(f)``; ``weights = p + lam p (f - p.f)/std`` (``p`` where std = 0)."""

    def __init__(self, p: Any, lam: float) -> None:
        self.p = check_probability_vector(p, "p")
        self.lam = check_positive(lam, "lam")
        self.n = self.p.size
        self.name = f"mean+{self.lam:g}std"

    def _std(self, f: np.ndarray) -> tuple[float, float]:
        mean = float(self.p @ f)
        support = f[self.p > 0]
        if support.min() == support.max():  # constant losses: std is exactly 0 (f - mean is rounding)
            return mean, 0.0
        return mean, float(np.sqrt(float(self.p @ (f - mean) ** 2)))

    def _value(self, f: np.ndarray) -> float:
        mean, std = self._std(f)
        return mean + self.lam * std

    def _weights(self, f: np.ndarray) -> np.ndarray:
        mean, std = self._std(f)
        if std == 0.0:
            return self.p.copy()
        return self.p + self.lam * self.p * (f - mean) / std
