r"""Heterogeneous quadratic clients ``f_i(w) = 0.5 (w - c_i)^T H_i (w - c_i) + e_i``.

Convex (``H_i >= 0``) and ``L1 = max_i lambda_max(H_i)``-smooth, ``mu = min_i lambda_min(H_i)``-strongly
convex; not globally Lipschitz (002 Assump. 2 then needs a compact domain that contains all iterates).
In expanded form ``f_i(w) = 0.5 w^T H_i w - r_i^T w + k_i`` with
``r_i = H_i c_i`` and ``k_i = 0.5 c_i^T H_i c_i + e_i``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fairtheory._validation import FairtheoryValueError, as_vector
from fairtheory.backend import like, namespace, to_numpy
from fairtheory.errors import NonFiniteError
from fairtheory.problems.base import Array, FederatedProblem, _all_finite, as_data_array, evaluation

__all__ = ["QuadraticProblem", "random_quadratic"]


class QuadraticProblem(FederatedProblem):
    """Quadratic clients with Hessians ``H`` (n, d, d), centres ``c`` (n, d), offsets ``e`` (n,)."""

    def __init__(self, H: Any, c: Any, e: Any = None, p: Any = None) -> None:
        H_arr = as_data_array(H, "H", allow_empty=True)
        c_arr = as_data_array(c, "c", allow_empty=True)
        if H_arr.ndim != 3 or H_arr.shape[1] != H_arr.shape[2]:
            raise FairtheoryValueError(f"H must have shape (n, d, d), got {H_arr.shape}")
        n, d = H_arr.shape[:2]
        if n == 0 or d == 0:
            raise FairtheoryValueError(f"H must be non-empty, got shape {H_arr.shape}")
        if c_arr.shape != (n, d):
            raise FairtheoryValueError(f"c must have shape ({n}, {d}), got {c_arr.shape}")
        if not np.allclose(H_arr, np.swapaxes(H_arr, 1, 2), atol=1e-12, rtol=1e-10):
            raise FairtheoryValueError("H must hold symmetric matrices")
        self.H = 0.5 * (H_arr + np.swapaxes(H_arr, 1, 2))
        eig = np.linalg.eigvalsh(self.H)
        if eig.min() < -1e-10 * max(1.0, eig.max()):
            raise FairtheoryValueError(f"H must be positive semidefinite, smallest eigenvalue {eig.min():.3g}")
        self._eig = eig
        self.c = c_arr
        self.e = np.zeros(n) if e is None else as_vector(e, "e")
        if self.e.shape != (n,):
            raise FairtheoryValueError(f"e must have shape ({n},), got {self.e.shape}")
        self.n, self.d = n, d
        self._set_weights(np.full(n, 1.0 / n) if p is None else p, n)

    # expanded form used by exact solvers: f_i(w) = 0.5 w'H_i w - r_i'w + k_i
    @property
    def r(self) -> Array:
        return np.einsum("nij,nj->ni", self.H, self.c)

    @property
    def k(self) -> Array:
        return 0.5 * np.einsum("ni,ni->n", self.c, self.r) + self.e

    def _select(self, W: Any, clients: Any) -> tuple[Any, Any, Any, Any]:
        c = self.client_index(clients)
        W = self._check_models(W, c)
        if c is None:
            return W, self.H, self.c, self.e
        return W, self.H[c], self.c[c], self.e[c]

    def losses_each(self, W: Any, clients: Any = None) -> Any:
        W, H, C, e = self._select(W, clients)
        xp = namespace(W)
        with np.errstate(over="ignore", invalid="ignore"):
            D = W - like(C, W)
            HD = xp.matmul(like(H, W), D[..., None])[..., 0]
            out = 0.5 * xp.sum(D * HD, axis=1) + like(e, W)
            if not _all_finite(out):  # overflow in the products: rescale each row, fail only if f does not fit
                s = xp.max(xp.abs(D), axis=1)
                s = xp.where(s > 0, s, xp.ones_like(s))
                Ds = D / s[:, None]
                q = 0.5 * xp.sum(Ds * xp.matmul(like(H, W), Ds[..., None])[..., 0], axis=1)
                out = (q * s) * s + like(e, W)
        if not _all_finite(out):
            raise NonFiniteError("QuadraticProblem.losses_each: the client losses at these models do not fit "
                                 "float64 (overflow); use smaller model entries or step sizes")
        return out

    @evaluation
    def grads_each(self, W: Any, clients: Any = None) -> Any:
        W, H, C, _ = self._select(W, clients)
        xp = namespace(W)
        D = W - like(C, W)
        return xp.matmul(like(H, W), D[..., None])[..., 0]

    def hessians(self, w: Array) -> Array:
        self.as_model(to_numpy(w))
        return self.H.copy()

    def _prox_hessians(self) -> Array:
        """The constant Hessians ``H`` (closed-form :meth:`prox_each`)."""
        return self.H

    def cvxpy_losses(self, w: Any) -> list[Any]:
        import cvxpy as cp

        out = []
        for i in range(self.n):  # model building, not a hot path
            Hi = self.H[i]
            out.append(0.5 * cp.quad_form(w - self.c[i], cp.psd_wrap(Hi)) + self.e[i])
        return out

    def smoothness(self) -> float:
        return float(self._eig.max())

    def strong_convexity(self) -> float:
        return float(max(self._eig.min(), 0.0))


def random_quadratic(
    n: int, d: int, *, rng: np.random.Generator, mu: float = 0.5, L: float = 2.0,
    spread: float = 1.0, offset: float = 0.0, p: Any = None,
) -> QuadraticProblem:
    """Random heterogeneous quadratics with eigenvalues in ``[mu, L]``, centres ``~ N(0, spread^2)``,
    offsets ``e_i ~ offset * U(0, 1)``; ``p`` uniform unless given."""
    from fairtheory._validation import check_in_range, check_integer, check_rng

    n = check_integer(n, "n", low=1)
    rng = check_rng(rng)
    d = check_integer(d, "d", low=1)
    mu = check_in_range(mu, "mu", low=0.0)
    L = check_in_range(L, "L", low=mu, low_inclusive=True)
    spread = check_in_range(spread, "spread", low=0.0)
    offset = check_in_range(offset, "offset", low=0.0)
    Q, _ = np.linalg.qr(rng.normal(size=(n, d, d)))
    lam = rng.uniform(mu, L, size=(n, d))
    lam[:, 0], lam[:, -1] = mu, L  # pin the extremes so mu and L are exact
    H = np.einsum("nij,nj,nkj->nik", Q, lam, Q)
    c = spread * rng.normal(size=(n, d))
    e = offset * rng.uniform(size=n)
    return QuadraticProblem(H, c, e, p)
