r"""Multinomial logistic-regression (softmax cross-entropy) clients, as in 003 App. E.1 (Synthetic).

Client ``k`` holds rows ``offsets[k]:offsets[k+1]`` of ``(X, y)`` (contiguous storage, ``y`` in
``{0, ..., C-1}``).  The model ``w`` (length ``d = (d_in + 1) C`` with an intercept, ``d_in C``
without) is read as a ``(d_in [+1], C)`` matrix ``W`` (row-major; the intercept is the last row) and

    F_k(w) = (1/m_k) sum_j [ logsumexp(x_j^T W) - (x_j^T W)_{y_j} ] + (l2/2) ||w||^2,

convex in ``w``.  The Hessian of the cross-entropy with respect to the logits is
``diag(s) - s s^T`` whose spectral norm is at most ``1/2`` (Gershgorin: row sums ``2 s_a (1-s_a)``),
so ``F_k`` is ``L_k = 0.5 lambda_max(X_k^T X_k / m_k) + l2`` smooth (``X_k`` with the ones column).

Evaluation is batched over clients without a Python loop: the contiguous data is viewed once as
equal-size zero-padded batches ``(n, m_max, d_in+1)`` with a mask ("equal-size
batches"), and works for numpy arrays and torch tensors.  :meth:`subset` builds the problem of a few
clients (used by local training in q-FedAvg so only drawn clients are computed).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fairtheory._validation import FairtheoryValueError, check_in_range, check_integer
from fairtheory.backend import is_torch, like, namespace, to_numpy
from fairtheory.problems.base import Array, FederatedProblem, as_data_array, evaluation

__all__ = ["MultinomialProblem"]


class MultinomialProblem(FederatedProblem):
    """Softmax cross-entropy clients on contiguous data ``X`` (N, d_in), ``y`` (N,), ``offsets`` (n+1,).

    ``p`` defaults to ``m_k / sum m`` (003 Sec. 3.1); ``l2 >= 0`` adds ``l2/2 ||w||^2`` to every client.
    """

    def __init__(self, X: Any, y: Any, offsets: Any, n_classes: int, p: Any = None, *,
                 l2: float = 0.0, intercept: bool = True) -> None:
        X_arr = as_data_array(X, "X", allow_empty=True)
        if X_arr.ndim != 2 or X_arr.shape[0] == 0 or X_arr.shape[1] == 0:
            raise FairtheoryValueError(f"X must be a non-empty 2-D array (N, d_in), got shape {X_arr.shape}")
        C = check_integer(n_classes, "n_classes", low=2)
        y_arr = as_data_array(y, "y", allow_empty=True)
        if y_arr.shape != (X_arr.shape[0],):
            raise FairtheoryValueError(f"y must have shape ({X_arr.shape[0]},), got {y_arr.shape}")
        if not np.all(np.equal(np.mod(y_arr, 1), 0)) or y_arr.min() < 0 or y_arr.max() >= C:
            raise FairtheoryValueError(f"y must hold integer labels in [0, {C - 1}], got range "
                                       f"[{y_arr.min()}, {y_arr.max()}]")
        off = as_data_array(offsets, "offsets", allow_empty=True)
        if off.ndim != 1 or off.size < 2 or not np.all(np.equal(np.mod(off, 1), 0)):
            raise FairtheoryValueError(f"offsets must be a 1-D integer array of length n+1 >= 2, got {off!r}")
        off = off.astype(np.int64)
        sizes = np.diff(off)
        if off[0] != 0 or off[-1] != X_arr.shape[0] or np.any(sizes < 1):
            raise FairtheoryValueError(
                f"offsets must start at 0, end at N = {X_arr.shape[0]} and give every client >= 1 row, "
                f"got offsets[0] = {off[0]}, offsets[-1] = {off[-1]}, min size {sizes.min()}")
        self.l2 = check_in_range(l2, "l2", low=0.0)
        self.intercept = bool(intercept)
        self.X, self.y, self.offsets, self.sizes = X_arr, y_arr.astype(np.int64), off, sizes
        self.n_classes = C
        self.n = int(sizes.size)
        self.d_in = int(X_arr.shape[1])
        self.D = self.d_in + (1 if self.intercept else 0)
        self.d = self.D * C
        self._set_weights(sizes / sizes.sum() if p is None else p, self.n)
        # equal-size padded view (n, m_max, D) + mask, built once
        m_max = int(sizes.max())
        client = np.repeat(np.arange(self.n), sizes)
        pos = np.arange(X_arr.shape[0]) - off[client]
        Xa = np.hstack([X_arr, np.ones((X_arr.shape[0], 1))]) if self.intercept else X_arr
        self._Xpad = np.zeros((self.n, m_max, self.D))
        self._Xpad[client, pos] = Xa
        self._Ypad = np.zeros((self.n, m_max, C))
        self._Ypad[client, pos, self.y] = 1.0
        self._mask = np.zeros((self.n, m_max))
        self._mask[client, pos] = 1.0
        self._inv_m = 1.0 / sizes.astype(np.float64)

    # ------------------------------------------------------------------ helpers
    def _padded(self, W: Any, clients: Any) -> tuple[Any, Any, Any, Any, Any]:
        """Validated ``W`` and the padded data ``(X, Y, mask, 1/m)`` of the selected clients."""
        c = self.client_index(clients)
        W = self._check_models(W, c)
        data = tuple(self.on_device(k, getattr(self, k), W) for k in ("_Xpad", "_Ypad", "_mask", "_inv_m"))
        if c is None:
            return (W, *data)
        if is_torch(W):
            import torch

            c = torch.as_tensor(c, dtype=torch.int64, device=W.device)
        return (W, *(x[c] for x in data))

    def _logits(self, W: Any, X: Any = None) -> Any:
        """``Z = X_k W_k`` for models ``W`` (k, d) -> (k, m_max, C) (all clients unless ``X`` is given)."""
        xp = namespace(W)
        Wm = xp.reshape(W, (W.shape[0], self.D, self.n_classes))
        return xp.matmul(self.on_device("_Xpad", self._Xpad, W) if X is None else X, Wm)

    @evaluation
    def losses_each(self, W: Any, clients: Any = None) -> Any:
        W, X, Yp, M, inv = self._padded(W, clients)
        xp = namespace(W)
        Z = self._logits(W, X)
        zmax = xp.max(Z, axis=2, keepdims=True)
        lse = xp.log(xp.sum(xp.exp(Z - zmax), axis=2)) + zmax[..., 0]
        per = (lse - xp.sum(Z * Yp, axis=2)) * M
        out = xp.sum(per, axis=1) * inv
        if self.l2:
            out = out + 0.5 * self.l2 * xp.sum(W * W, axis=1)
        return out

    def grads_each(self, W: Any, clients: Any = None) -> Any:
        return self.loss_grad_each(W, clients)[1]

    @evaluation
    def loss_grad_each(self, W: Any, clients: Any = None) -> tuple[Any, Any]:
        """``(losses_each(W), grads_each(W))`` sharing one pass over the data."""
        W, X, Yp, M, inv = self._padded(W, clients)
        xp = namespace(W)
        Z = self._logits(W, X)
        zmax = xp.max(Z, axis=2, keepdims=True)
        E = xp.exp(Z - zmax)
        sE = xp.sum(E, axis=2, keepdims=True)
        Y, mask, inv_m = Yp, M, inv
        lse = xp.log(sE[..., 0]) + zmax[..., 0]
        f = xp.sum((lse - xp.sum(Z * Y, axis=2)) * mask, axis=1) * inv_m
        R = (E / sE - Y) * mask[..., None]
        G = xp.matmul(xp.permute_dims(X, (0, 2, 1)), R)  # (k, D, C)
        G = xp.reshape(G, (W.shape[0], self.d)) * inv_m[:, None]
        if self.l2:
            f = f + 0.5 * self.l2 * xp.sum(W * W, axis=1)
            G = G + self.l2 * W
        return f, G

    def losses_vjp(self, w: Any) -> tuple[Any, Any]:
        """``(F(w), vjp)`` with ``vjp(c) = sum_k c_k grad F_k(w)`` (numpy), one contiguous pass.

        Cheaper than :meth:`grads` when only a weighted sum of client gradients is needed (e.g. the
        q-FFL gradient ``vjp(p * F^q)``): a single ``X^T R`` product, no per-client Jacobian."""
        w = np.asarray(self.as_model(to_numpy(w)), dtype=np.float64)
        if not hasattr(self, "_Xa"):
            self._Xa = np.hstack([self.X, np.ones((self.X.shape[0], 1))]) if self.intercept else self.X
            self._row_client = np.repeat(np.arange(self.n), self.sizes)
        Wm = w.reshape(self.D, self.n_classes)
        Z = self._Xa @ Wm
        zmax = Z.max(axis=1, keepdims=True)
        E = np.exp(Z - zmax)
        sE = E.sum(axis=1, keepdims=True)
        per = np.log(sE[:, 0]) + zmax[:, 0] - Z[np.arange(Z.shape[0]), self.y]
        F = np.bincount(self._row_client, weights=per, minlength=self.n) * self._inv_m
        if self.l2:
            F = F + 0.5 * self.l2 * float(w @ w)
        R = E / sE
        R[np.arange(Z.shape[0]), self.y] -= 1.0

        def vjp(c: Any) -> np.ndarray:
            c = np.asarray(c, dtype=np.float64)
            rw = (c * self._inv_m)[self._row_client]
            g = (self._Xa.T @ (R * rw[:, None])).ravel()
            return g + self.l2 * float(c.sum()) * w if self.l2 else g

        return F, vjp

    def losses_and_grads(self, w: Any) -> tuple[Any, Any]:
        """``(losses(w), grads(w))`` at a shared model in one pass."""
        return self.loss_grad_each(self._broadcast(w))

    @evaluation
    def hessians(self, w: Array) -> Array:
        """``(1/m_k) sum_j (diag(s_j) - s_j s_j^T) (x) x_j x_j^T`` (+ ``l2 I``), shape (n, d, d).

        Memory ``n d^2`` floats: meant for small ``d`` (exact checks), not for the 610-parameter model."""
        w = np.asarray(self.as_model(to_numpy(w)), dtype=np.float64)
        W = np.broadcast_to(w[None, :], (self.n, self.d))
        Z = self._logits(W)
        Z = Z - Z.max(axis=2, keepdims=True)
        S = np.exp(Z)
        S /= S.sum(axis=2, keepdims=True)
        A = (np.einsum("nma,ab->nmab", S, np.eye(self.n_classes)) - np.einsum("nma,nmb->nmab", S, S))
        A *= self._mask[..., None, None]
        H = np.einsum("nmi,nmj,nmab->niajb", self._Xpad, self._Xpad, A)
        H = H.reshape(self.n, self.d, self.d) * self._inv_m[:, None, None]
        if self.l2:
            H = H + self.l2 * np.eye(self.d)[None]
        return H

    def cvxpy_losses(self, w: Any) -> list[Any]:
        """``mean_j log_sum_exp(x_j^T W) - (x_j^T W)_{y_j}`` per client (exponential cones)."""
        import cvxpy as cp

        Wm = cp.reshape(w, (self.D, self.n_classes), order="C")
        Xa = np.hstack([self.X, np.ones((self.X.shape[0], 1))]) if self.intercept else self.X
        Y = np.eye(self.n_classes)[self.y]
        out = []
        for k in range(self.n):  # model building, not a hot path
            a, b = self.offsets[k], self.offsets[k + 1]
            Z = Xa[a:b] @ Wm
            f = (cp.sum(cp.log_sum_exp(Z, axis=1)) - cp.sum(cp.multiply(Y[a:b], Z))) / (b - a)
            if self.l2:
                f = f + 0.5 * self.l2 * cp.sum_squares(w)
            out.append(f)
        return out

    def client_smoothness(self) -> Array:
        """``L_k = 0.5 lambda_max(X_k^T X_k / m_k) + l2`` per client (see module docstring)."""
        G = np.einsum("nmi,nmj->nij", self._Xpad, self._Xpad) * self._inv_m[:, None, None]
        return 0.5 * np.linalg.eigvalsh(G)[:, -1] + self.l2

    def smoothness(self) -> float:
        return float(self.client_smoothness().max())

    def strong_convexity(self) -> float:
        return float(self.l2)

    # ------------------------------------------------------------------ predictions
    def predictions_each(self, W: Any) -> Any:
        """Predicted labels ``argmax_c (x^T W_k)_c``, padded (n, m_max) (padding rows meaningless)."""
        W = self._check_models(W, None)
        xp = namespace(W)
        return xp.argmax(self._logits(W), axis=2)

    @evaluation
    def accuracies(self, w: Any) -> Any:
        """Per-client accuracy (fraction in [0, 1]) of ``argmax`` predictions at the shared model ``w``."""
        W = self._broadcast(w)
        xp = namespace(w)
        pred = self.predictions_each(W)
        correct = (pred == like(np.argmax(self._Ypad, axis=2), pred))
        correct = xp.astype(correct, w.dtype) * like(self._mask, w)
        return xp.sum(correct, axis=1) * like(self._inv_m, w)

    def subset(self, idx: Any) -> MultinomialProblem:
        """The problem restricted to clients ``idx`` (distinct indices), ``p`` renormalised."""
        idx = np.asarray(idx, dtype=np.int64).ravel()
        if idx.size == 0 or idx.min() < 0 or idx.max() >= self.n or np.unique(idx).size != idx.size:
            raise FairtheoryValueError(
                f"idx must hold distinct client indices in [0, {self.n - 1}], got {idx!r}")
        rows = np.concatenate([np.arange(self.offsets[k], self.offsets[k + 1]) for k in idx])
        off = np.concatenate([[0], np.cumsum(self.sizes[idx])])
        p = self.p[idx]
        p = p / p.sum() if p.sum() > 0 else np.full(idx.size, 1.0 / idx.size)
        return MultinomialProblem(self.X[rows], self.y[rows], off, self.n_classes, p,
                                  l2=self.l2, intercept=self.intercept)
