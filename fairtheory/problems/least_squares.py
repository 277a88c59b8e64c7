r"""Least-squares clients ``f_i(w) = (1/m_i) sum_j 0.5 (x_ij^T w - y_ij)^2`` stored contiguously.

Quadratic: ``Hess f_i = G_i = X_i^T X_i / m_i`` (constant), ``L1 = max_i lambda_max(G_i)``, strong
convexity ``min_i lambda_min(G_i)`` (0 when some client has rank-deficient data); not globally
Lipschitz.  :meth:`LeastSquaresProblem.as_quadratic` gives the same clients as a
:class:`~fairtheory.problems.quadratic.QuadraticProblem` (for the max-min route of ``docs/exact.md`` Sec. 2).
Evaluation is vectorised over clients, on numpy or torch: per-client models (``losses_each``,
``grads_each``, ``loss_grad_each``) use the batched/segment machinery of
:class:`~fairtheory.problems.logistic.SampleProblem`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fairtheory.backend import is_torch, to_numpy
from fairtheory.problems.base import Array, evaluation
from fairtheory.problems.logistic import SampleProblem
from fairtheory.problems.quadratic import QuadraticProblem

__all__ = ["LeastSquaresProblem"]


class LeastSquaresProblem(SampleProblem):
    r"""Clients ``f_i(w) = mean_j 0.5 (x_ij.w - y_ij)^2`` on rows ``offsets[i]:offsets[i+1]``.

    Parameters
    ----------
    X : array_like, shape (N, d)
    y : array_like, shape (N,)
    offsets : array_like of int, shape (n+1,)
    p : array_like, shape (n,), optional
        Client weights; default ``m_i / sum_j m_j``.
    """

    def __repr__(self) -> str:
        return f"LeastSquaresProblem(n={self.n}, d={self.d}, N={self.N})"

    # ---------------------------------------------------------------- evaluation hooks
    def _design(self) -> tuple[Array, Array | None]:
        """Rows ``x_ij`` and targets ``y_ij``."""
        return self.X, self.y

    def _row_terms(self, z: Any, t: Any, want_loss: bool, want_grad: bool,
                   scratch: Any) -> tuple[Any, Any]:
        """``0.5 (z - t)^2`` and ``z - t`` (the residual overwrites ``z``)."""
        if is_torch(z):
            res = z - t
            return (0.5 * (res * res) if want_loss else None), res
        res = np.subtract(z, t, out=z)
        loss = None
        if want_loss:
            loss = np.multiply(res, res, out=scratch("l", z.shape))
            loss *= 0.5
        return loss, res

    @evaluation
    def losses(self, w: Any) -> Any:
        w = self.as_model(w)
        data = self._data(w)
        res = data["X"] @ w - data["y"]
        return 0.5 * self._segment_sum(res * res, self.seg, self.offsets[:-1], self.n) / self.on_device(
            "m", self.m.astype(np.float64), w)

    @evaluation
    def grads(self, w: Any) -> Any:
        w = self.as_model(w)
        data = self._data(w)
        res = data["X"] @ w - data["y"]
        return self._segment_sum(res[:, None] * data["X"], self.seg, self.offsets[:-1], self.n) / self.on_device(
            "m", self.m.astype(np.float64), w)[:, None]

    @evaluation
    def hessians(self, w: Any) -> Array:
        """``G_i = X_i^T X_i / m_i`` (independent of ``w``)."""
        self.as_model(to_numpy(w))
        return self.gram().copy()

    def _prox_hessians(self) -> Array:
        """The constant Hessians ``X_i^T X_i / m_i`` (closed-form :meth:`prox_each`)."""
        return self.gram()

    # ---------------------------------------------------------------- conversions / cvxpy
    def quadratic_form(self) -> tuple[Array, Array, Array]:
        """Expanded form ``f_i(w) = 0.5 w^T H_i w - r_i^T w + k_i``: returns ``(H, r, k)``."""
        H = self.gram()
        r = np.add.reduceat(self.X * self.y[:, None], self.offsets[:-1], axis=0) / self.m[:, None]
        k = 0.5 * np.add.reduceat(self.y * self.y, self.offsets[:-1]) / self.m
        return H, r, k

    def as_quadratic(self) -> QuadraticProblem:
        """The same clients as ``QuadraticProblem(H, c, e, p)`` (``c_i`` a least-squares solution of
        ``H_i c = r_i``, ``e_i = k_i - 0.5 c_i^T H_i c_i`` = the client's minimal loss)."""
        H, r, k = self.quadratic_form()
        c = np.stack([np.linalg.lstsq(H[i], r[i], rcond=None)[0] for i in range(self.n)]) if self.n else r
        e = k - 0.5 * np.einsum("ni,ni->n", c, r)
        return QuadraticProblem(H, c, e, self.p)

    def cvxpy_loss_vector(self, w: Any, *, shared: bool = True) -> Any:
        """Client losses as one cvxpy vector ``A @ (0.5 (X w - y)^2)`` (``A_ij = 1/m_i``)."""
        import cvxpy as cp
        import scipy.sparse as sp

        A = sp.csr_matrix((1.0 / self.m[self.seg], (self.seg, np.arange(self.N))), shape=(self.n, self.N))
        return 0.5 * (A @ cp.square(self.X @ w - self.y))

    def cvxpy_losses(self, w: Any) -> list[Any]:
        vec = self.cvxpy_loss_vector(w)
        return [vec[i] for i in range(self.n)]

    # ---------------------------------------------------------------- constants
    def smoothness(self) -> float:
        """``L1 = max_i lambda_max(X_i^T X_i / m_i)``."""
        return float(np.linalg.eigvalsh(self.gram())[:, -1].max())

    def strong_convexity(self) -> float:
        """``min_i lambda_min(X_i^T X_i / m_i)`` (clipped at 0)."""
        return float(max(np.linalg.eigvalsh(self.gram())[:, 0].min(), 0.0))
