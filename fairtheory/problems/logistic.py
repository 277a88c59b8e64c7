r"""Binary logistic regression clients stored contiguously, evaluated with segment reductions.

Client ``i`` owns rows ``offsets[i]:offsets[i+1]`` of ``X`` (``N x d``) and ``y`` (``{-1, +1}``) and has

.. math:: f_i(w) = \frac{1}{m_i} \sum_{j} \log\bigl(1 + e^{-y_{ij} x_{ij}^\top w}\bigr)
          + \frac{\ell_2}{2}\|w\|^2 .

Constants (002 Assump. 1-2), from the data:

* ``L1 = max_i lambda_max(X_i^T X_i)/(4 m_i) + l2`` (the logistic curvature is at most ``1/4``);
* ``L2 = max_i mean_j ||x_ij||`` when ``l2 = 0`` (``|d/dz log(1+e^{-z})| <= 1``), ``inf`` otherwise;
* strong convexity ``l2`` (logistic loss alone is not strongly convex on ``R^d``).

Unregularised clients have a minimiser only on non-separable data (see
:func:`fairtheory.problems.generators.separable`).

Every evaluation works for all clients at once - never a Python loop over clients.  Per-client models
``W`` go through :meth:`SampleProblem.loss_grad_each`: with clients of equal size (or nearly) the
data is an ``(n, m, d)`` array and margins and gradients are two batched matrix products, the
transcendental functions computed once (numpy: ``exp(-|z|)`` shared by the loss and the sigmoid;
torch: the fused ``logsigmoid``/``sigmoid`` kernels); otherwise
per-row terms are followed by segment sums (``np.add.reduceat`` for numpy, ``index_add_`` for torch).
Methods taking ``W`` also accept ``clients=`` (integer indices, possibly a subset): then row ``k`` of
``W`` is the model of client ``clients[k]`` (used by partial-participation algorithms).
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError, check_in_range
from fairtheory.backend import is_torch, like, namespace, to_numpy
from fairtheory.problems.base import Array, FederatedProblem, as_data_array, evaluation
from fairtheory.stable import sigmoid_unchecked, softplus_unchecked

__all__ = ["LogisticProblem", "SampleProblem"]

_HESS_CHUNK = 2_000_000  # entries of the (rows, d, d) outer-product buffer per chunk


class SampleProblem(FederatedProblem):
    r"""Shared storage and evaluation for sample-based clients: ``X (N, d)``, ``y (N,)``, ``offsets (n+1,)``.

    ``offsets`` must start at 0, end at ``N`` and be strictly increasing (every client has at least
    one sample).  ``p`` defaults to ``m_i / sum_j m_j``.

    Subclasses describe a loss ``f_i(w) = (1/m_i) sum_j ell(a_ij . w, t_ij) + r(w)`` through three
    hooks: :meth:`_design` (the rows ``a_ij`` and targets ``t_ij``), :meth:`_row_terms` (``ell`` and
    ``d ell / dz`` at the margins ``z_ij = a_ij . w_i``) and :meth:`_regularise` (``r``).  The base
    class then evaluates losses and gradients of all clients together with one product for the margins
    and one for the gradients, ``grad f_i = (1/m_i) sum_j ell'(z_ij) a_ij``, in one of two layouts:

    * **batched** (all clients the same size, or padding to the largest client wastes at most half of
      the storage): the rows are kept as an ``(n, m_max, d)`` array (a view when sizes are equal; zero
      rows pad smaller clients and a mask removes their loss terms) and both products are batched
      matrix products (``np.matmul`` / ``torch.matmul``);
    * **flat** (very unequal sizes): per-row products followed by contiguous segment sums
      (``np.add.reduceat`` / ``index_add_``).

    Numpy evaluations reuse per-thread scratch buffers for the ``(n, m_max)`` intermediates (fresh
    large temporaries cost page faults that can exceed the arithmetic); results never alias them.
    """

    def __init__(self, X: Any, y: Any, offsets: Any, p: Any = None) -> None:
        X_arr = as_data_array(X, "X", allow_empty=True)
        y_arr = as_data_array(y, "y", allow_empty=True)
        if X_arr.ndim != 2 or X_arr.shape[0] == 0 or X_arr.shape[1] == 0:
            raise FairtheoryValueError(f"X must be a non-empty 2-D array (N, d), got shape {X_arr.shape}")
        N, d = X_arr.shape
        if y_arr.shape != (N,):
            raise FairtheoryValueError(f"y must have shape ({N},) (one label per row of X), "
                                       f"got {y_arr.shape}")
        off_raw = as_data_array(offsets, "offsets", allow_empty=True)
        if off_raw.ndim != 1 or off_raw.size < 2:
            raise FairtheoryValueError(
                f"offsets must be 1-D with n+1 >= 2 entries, got shape {off_raw.shape}")
        if np.any(off_raw != np.round(off_raw)):
            raise FairtheoryTypeError(f"offsets must be integers, got {off_raw!r}")
        off = off_raw.astype(np.int64)
        if off[0] != 0 or off[-1] != N:
            raise FairtheoryValueError(
                f"offsets must start at 0 and end at N = {N}, got {off[0]} ... {off[-1]}")
        m = np.diff(off)
        if np.any(m <= 0):
            bad = int(np.flatnonzero(m <= 0)[0])
            raise FairtheoryValueError(
                f"offsets must be strictly increasing (every client needs >= 1 sample); "
                f"client {bad} has {m[bad]}"
            )
        self.X, self.y, self.offsets, self.m = X_arr, y_arr, off, m
        self.n, self.d, self.N = int(m.size), d, N
        self.seg = np.repeat(np.arange(self.n), m)
        self._set_weights(m / m.sum() if p is None else p, self.n)
        self._m_float = m.astype(np.float64)
        self._m_max = int(m.max())
        #: evaluation layout of :meth:`loss_grad_each`: ``"batched"`` or ``"flat"`` (see the class
        #: docstring); chosen from the client sizes, may be overridden (both give the same values)
        self.layout = "batched" if self.n * self._m_max <= _PAD_WASTE * N else "flat"
        self._cache: dict[Any, dict[str, Any]] = {}
        self._eval_cache: dict[Any, dict[str, Any]] = {}
        self._gram: Array | None = None

    # ---------------------------------------------------------------- subclass hooks
    def _design(self) -> tuple[Array, Array | None]:
        """Rows ``a_ij`` (``(N, d)``) whose products with the client model are the margins, and the
        per-row targets ``t_ij`` (``(N,)``) or ``None``."""
        raise NotImplementedError

    def _row_terms(self, z: Any, t: Any, want_loss: bool, want_grad: bool,
                   scratch: Any) -> tuple[Any, Any]:
        """``(ell(z, t), ell'(z, t))`` elementwise (either may be ``None`` when not wanted).

        ``z`` may be overwritten; ``scratch(name, shape)`` (numpy only, else ``None``) gives a
        per-thread float64 buffer to write into (distinct names never alias)."""
        raise NotImplementedError

    def _regularise(self, W: Any, loss: Any, grad: Any) -> tuple[Any, Any]:
        """Add the regulariser's value/gradient at the client models ``W`` (in place allowed)."""
        return loss, grad

    # ---------------------------------------------------------------- data / index helpers
    def _data(self, ref: Any) -> dict[str, Any]:
        """``X``, ``y`` in ``ref``'s library/dtype/device (cached per dtype/device)."""
        if not is_torch(ref):
            return {"X": self.X, "y": self.y}
        key = (str(ref.dtype), str(ref.device))
        if key not in self._cache:
            self._cache[key] = {"X": like(self.X, ref), "y": like(self.y, ref)}
        return self._cache[key]

    def _eval_data(self, ref: Any) -> dict[str, Any]:
        """The design in the evaluation layout, in ``ref``'s library/dtype/device (cached).

        batched: ``A3 (n, m_max, d)``, ``t3 (n, 1, m_max)`` or ``None``, ``mask (n, 1, m_max)`` or
        ``None`` (no padding); flat: ``A (N, d)``, ``t (N,)`` or ``None``."""
        torch_ref = is_torch(ref)
        key = (self.layout, "numpy") if not torch_ref else (self.layout, str(ref.dtype), str(ref.device))
        if key in self._eval_cache:
            return self._eval_cache[key]
        if torch_ref:
            base = self._eval_data(np.zeros(0))
            out = {k: (None if v is None else like(v, ref)) for k, v in base.items()}
        else:
            A, t = self._design()
            if self.layout == "flat":
                out = {"A": A, "t": t}
            elif self.N == self.n * self._m_max:  # equal sizes: views, no copy
                out = {"A3": A.reshape(self.n, self._m_max, self.d),
                       "t3": None if t is None else t.reshape(self.n, 1, self._m_max), "mask": None}
            else:  # pad every client with zero rows up to m_max
                col = np.arange(self.N) - np.repeat(self.offsets[:-1], self.m)
                A3 = np.zeros((self.n, self._m_max, self.d))
                A3[self.seg, col] = A
                mask = np.zeros((self.n, 1, self._m_max))
                mask[self.seg, 0, col] = 1.0
                t3 = None
                if t is not None:
                    t3 = np.zeros((self.n, 1, self._m_max))
                    t3[self.seg, 0, col] = t
                out = {"A3": A3, "t3": t3, "mask": mask}
        self._eval_cache[key] = out
        return out

    def _rows(self, c: Array | None) -> tuple[Array | None, Array, Array]:
        """Row indices (``None`` = all rows), segment id per row and segment starts for clients ``c``."""
        if c is None:
            return None, self.seg, self.offsets[:-1]
        lens = self.m[c]
        seg = np.repeat(np.arange(c.size), lens)
        starts_out = np.concatenate([[0], np.cumsum(lens)[:-1]])
        rows = np.arange(int(lens.sum())) - np.repeat(starts_out - self.offsets[c], lens)
        return rows, seg, starts_out

    def _segment_sum(self, vals: Any, seg: Array, starts: Array, k: int) -> Any:
        """Sum of ``vals`` rows within each of the ``k`` contiguous segments."""
        if is_torch(vals):
            import torch

            idx = self.on_device("seg", seg, vals) if seg is self.seg else torch.as_tensor(seg, device=vals.device)
            out = torch.zeros((k, *vals.shape[1:]), dtype=vals.dtype, device=vals.device)
            return out.index_add_(0, idx, vals)
        return np.add.reduceat(vals, starts, axis=0)


    # ---------------------------------------------------------------- evaluation
    @evaluation
    def loss_grad_each(self, W: Any, clients: Any = None) -> tuple[Any, Any]:
        r"""``(f_i(W_k))_k`` and ``(grad f_i(W_k))_k`` for ``i = clients[k]`` (all clients by default).

        One product for the margins ``z_ij = a_ij . W_i``, the elementwise terms computed once, one
        product for ``grad f_i = (1/m_i) sum_j ell'(z_ij) a_ij``.  ``W`` has shape ``(k, d)``;
        numpy or torch (results in ``W``'s library, dtype and device)."""
        return self._evaluate(W, clients, True, True)

    @evaluation
    def losses_each(self, W: Any, clients: Any = None) -> Any:
        return self._evaluate(W, clients, True, False)[0]

    @evaluation
    def grads_each(self, W: Any, clients: Any = None) -> Any:
        return self._evaluate(W, clients, False, True)[1]

    def _evaluate(self, W: Any, clients: Any, want_loss: bool, want_grad: bool) -> tuple[Any, Any]:
        c = self.client_index(clients)
        k = self.n if c is None else int(c.size)
        W = self._check_models(W, c)
        torch_w = is_torch(W)
        if self.layout not in ("batched", "flat"):
            raise FairtheoryValueError(f"layout must be 'batched' or 'flat', got {self.layout!r}")
        data = self._eval_data(W)
        m_sel = self._m_float if c is None else self._m_float[c]
        scratch = None if torch_w else _scratch
        if self.layout == "batched":
            A3, t3, mask = data["A3"], data["t3"], data["mask"]
            if c is not None:
                ci = _index(c, W)
                A3 = A3[ci]
                t3 = None if t3 is None else t3[ci]
                mask = None if mask is None else mask[ci]
            # margins z[k, 0, j] = a_kj . W_k: one batched product (k small products), or - when W is a
            # broadcast of one model (a stride-0 view, e.g. right after a server broadcast) - one
            # product of all stacked rows with that model
            if _is_broadcast_rows(W):
                A2 = A3.reshape(-1, self.d)
                if torch_w:
                    z = (A2 @ W[0]).reshape(k, 1, self._m_max)
                else:
                    z = scratch("z", (k, 1, self._m_max))
                    np.matmul(A2, W[0], out=z.reshape(-1))
            elif torch_w:
                z = W[:, None, :] @ A3.transpose(-1, -2)
            else:
                z = np.matmul(W[:, None, :], A3.transpose(0, 2, 1), out=scratch("z", (k, 1, self._m_max)))
            loss_rows, coef = self._row_terms(z, t3, want_loss, want_grad, scratch)
            # equal client sizes: divide by the common size (a scalar) rather than a broadcast vector
            m_w = self._m_max if self.N == self.n * self._m_max else (
                self.on_device("m", self._m_float, W) if c is None else like(m_sel, W))
            loss = grad = None
            if want_loss:
                if mask is not None:
                    loss_rows = loss_rows * mask if torch_w else np.multiply(loss_rows, mask, out=loss_rows)
                # numpy: einsum's row loop (~3x faster than .sum(1) at m ~ 50), each row summed on its
                # own - unlike a product with a ones vector, whose BLAS kernel treats rows differently
                # depending on how many there are - so a client's loss does not depend on which other
                # clients are evaluated with it
                rows = loss_rows.reshape(k, self._m_max)
                loss = (rows.sum(1) if torch_w else np.einsum("ij->i", rows)) / m_w
            if want_grad:
                grad = (coef @ A3)[:, 0, :] if torch_w else np.matmul(coef, A3)[:, 0, :]
                grad /= m_w if isinstance(m_w, int) else m_w[:, None]
        else:
            rows, seg, starts = self._rows(c)
            A, t = data["A"], data["t"]
            if rows is not None:
                A = A[_index(rows, W)]
                t = None if t is None else t[_index(rows, W)]
            if _is_broadcast_rows(W):
                z = A @ W[0]
            else:
                Wr = W[_index(seg, W)]
                z = (A * Wr).sum(1) if torch_w else np.einsum("ij,ij->i", A, Wr)
            loss_rows, coef = self._row_terms(z, t, want_loss, want_grad, scratch)
            m_w = self.on_device("m", self._m_float, W) if c is None else like(m_sel, W)
            loss = self._segment_sum(loss_rows, seg, starts, k) / m_w if want_loss else None
            grad = (self._segment_sum(coef[:, None] * A, seg, starts, k) / m_w[:, None]
                    if want_grad else None)
        return self._regularise(W, loss, grad)

    def gram(self) -> Array:
        """``(X_i^T X_i / m_i)_i``, shape ``(n, d, d)`` (cached)."""
        if self._gram is None:
            self._gram = _segment_outer(self.X, np.ones(self.N), self.seg, self.n) / self.m[:, None, None]
        return self._gram


class LogisticProblem(SampleProblem):
    r"""Binary logistic-regression clients ``f_i(w) = mean_j log(1 + exp(-y_ij x_ij.w)) + l2/2 ||w||^2``.

    Parameters
    ----------
    X : array_like, shape (N, d)
        Features of all clients, stacked.
    y : array_like, shape (N,)
        Labels in ``{-1, +1}``.
    offsets : array_like of int, shape (n+1,)
        Client ``i`` owns rows ``offsets[i]:offsets[i+1]``.
    p : array_like, shape (n,), optional
        Client weights; default ``m_i / sum_j m_j``.
    l2 : float, default 0
        Ridge coefficient shared by all clients.
    """

    def __init__(self, X: Any, y: Any, offsets: Any, p: Any = None, l2: float = 0.0) -> None:
        super().__init__(X, y, offsets, p)
        if not np.all(np.isin(self.y, (-1.0, 1.0))):
            bad = self.y[~np.isin(self.y, (-1.0, 1.0))][0]
            raise FairtheoryValueError(f"y must hold labels in {{-1, +1}}, got {bad!r}")
        self.l2 = check_in_range(l2, "l2", low=0.0)

    def __repr__(self) -> str:
        return f"LogisticProblem(n={self.n}, d={self.d}, N={self.N}, l2={self.l2})"

    # ---------------------------------------------------------------- evaluation hooks
    def _design(self) -> tuple[Array, Array | None]:
        """Rows ``a_ij = y_ij x_ij`` (margins ``z_ij = y_ij x_ij . w``), no targets."""
        return self.y[:, None] * self.X, None

    def _row_terms(self, z: Any, t: Any, want_loss: bool, want_grad: bool,
                   scratch: Any) -> tuple[Any, Any]:
        r"""``log(1 + e^{-z})`` and ``-sigma(-z)``, stable for any ``z``.

        numpy: ``e = exp(-|z|)`` is shared; ``log(1 + e^{-z}) = log1p(e) + max(-z, 0)`` with
        ``max(-z, 0) = (|z| - z)/2`` (exact), and ``sigma(-z) = num/(1 + e)`` with ``num = e`` for
        ``z >= 0`` and ``1`` otherwise (accurate in relative terms for large ``|z|``), formed exactly as
        ``num = max(e, [z < 0])`` (cheaper than a masked select).  Only ``exp`` and ``log1p`` are
        transcendental.  torch: the fused stable kernels ``-logsigmoid(z)`` and ``-sigmoid(-z)``."""
        loss = coef = None
        if is_torch(z):
            import torch

            if want_loss:
                loss = torch.nn.functional.logsigmoid(z).neg_()
            if want_grad:
                coef = torch.sigmoid(-z).neg_()
            return loss, coef
        a = np.abs(z, out=scratch("a", z.shape))
        e = np.negative(a, out=scratch("e", z.shape))
        np.exp(e, out=e)
        c = scratch("c", z.shape)
        if want_loss:
            loss = np.log1p(e, out=scratch("l", z.shape))
            np.subtract(a, z, out=c)
            c *= 0.5
            loss += c
        if want_grad:
            num = np.maximum(e, np.less(z, 0.0, out=c), out=a)  # e if z >= 0 else 1
            coef = np.divide(num, np.subtract(-1.0, e, out=c), out=num)  # -num/(1 + e)
        return loss, coef

    def _regularise(self, W: Any, loss: Any, grad: Any) -> tuple[Any, Any]:
        if self.l2:
            if loss is not None:
                loss = loss + 0.5 * self.l2 * namespace(W).sum(W * W, axis=1)
            if grad is not None:
                grad = grad + self.l2 * W
        return loss, grad

    @evaluation
    def losses(self, w: Any) -> Any:
        """``(f_i(w))_i`` at a shared model (one product ``X w``)."""
        w = self.as_model(w)
        xp = namespace(w)
        data = self._data(w)
        z = data["y"] * (data["X"] @ w)
        out = self._segment_sum(softplus_unchecked(-z), self.seg, self.offsets[:-1], self.n)
        out = out / self.on_device("m", self.m.astype(np.float64), w)
        return out + 0.5 * self.l2 * xp.sum(w * w) if self.l2 else out

    @evaluation
    def grads(self, w: Any) -> Any:
        """``(grad f_i(w))_i``, shape ``(n, d)``."""
        w = self.as_model(w)
        data = self._data(w)
        z = data["y"] * (data["X"] @ w)
        coef = -data["y"] * sigmoid_unchecked(-z)
        out = self._segment_sum(coef[:, None] * data["X"], self.seg, self.offsets[:-1], self.n)
        out = out / self.on_device("m", self.m.astype(np.float64), w)[:, None]
        return out + self.l2 * w[None, :] if self.l2 else out

    @evaluation
    def hessians(self, w: Any) -> Array:
        r"""``Hess f_i(w) = (1/m_i) sum_j s_ij x_ij x_ij^T + l2 I`` with ``s = sigma(z)(1 - sigma(z))``."""
        w_np = np.asarray(self.as_model(to_numpy(w)), dtype=np.float64)
        z = self.y * (self.X @ w_np)
        s = sigmoid_unchecked(-z) * sigmoid_unchecked(z)
        H = _segment_outer(self.X, s, self.seg, self.n) / self.m[:, None, None]
        return H + self.l2 * np.eye(self.d)[None] if self.l2 else H

    def accuracies(self, w: Any) -> Array:
        """Per-client accuracy of the rule ``sign(x.w)``; ``x.w = 0`` counts as an error."""
        w_np = np.asarray(self.as_model(to_numpy(w)), dtype=np.float64)
        correct = (self.y * (self.X @ w_np) > 0).astype(np.float64)
        return np.add.reduceat(correct, self.offsets[:-1]) / self.m

    # ---------------------------------------------------------------- cvxpy twin
    def cvxpy_loss_vector(self, w: Any, *, shared: bool = True) -> Any:
        """The client losses as ONE cvxpy vector expression of shape ``(n,)``.

        ``A @ logistic(-y * (X w))`` with the sparse averaging matrix ``A`` (``A_ij = 1/m_i``);
        ``shared=False`` leaves out the common ridge term (see :meth:`cvxpy_shared_term`)."""
        import cvxpy as cp
        import scipy.sparse as sp

        A = sp.csr_matrix((1.0 / self.m[self.seg], (self.seg, np.arange(self.N))), shape=(self.n, self.N))
        vec = A @ cp.logistic(-cp.multiply(self.y, self.X @ w))
        if shared and self.l2:
            vec = vec + self.cvxpy_shared_term(w)
        return vec

    def cvxpy_shared_term(self, w: Any) -> Any:
        """The term common to every client (``l2/2 ||w||^2``), or 0."""
        import cvxpy as cp

        return 0.5 * self.l2 * cp.sum_squares(w) if self.l2 else 0.0

    def cvxpy_losses(self, w: Any) -> list[Any]:
        vec = self.cvxpy_loss_vector(w)
        return [vec[i] for i in range(self.n)]

    # ---------------------------------------------------------------- constants
    def smoothness(self) -> float:
        """``L1 = max_i lambda_max(X_i^T X_i)/(4 m_i) + l2``."""
        return float(np.linalg.eigvalsh(self.gram())[:, -1].max() / 4.0 + self.l2)

    def lipschitz(self) -> float:
        """``L2 = max_i mean_j ||x_ij||`` (unregularised); ``inf`` with a ridge term."""
        if self.l2:
            return float("inf")
        norms = np.linalg.norm(self.X, axis=1)
        return float((np.add.reduceat(norms, self.offsets[:-1]) / self.m).max())

    def strong_convexity(self) -> float:
        """``l2`` (0 when unregularised)."""
        return float(self.l2)


# -------------------------------------------------------------------- kernels
_PAD_WASTE = 2.0  # batched layout when padding every client to the largest needs <= 2x the rows
_SCRATCH_MAX = 1 << 20  # entries (8 MiB per buffer); larger intermediates are allocated afresh
_SCRATCH = threading.local()


def _is_broadcast_rows(W: Any) -> bool:
    """Whether the ``(k, d)`` array ``W`` (numpy or torch) repeats one row through a stride-0 view."""
    stride = W.stride(0) if is_torch(W) else W.strides[0]
    return W.shape[0] > 1 and stride == 0


def _scratch(name: str, shape: tuple[int, ...]) -> Array:
    """A float64 buffer of ``shape`` owned by this thread under ``name`` (grown, never shrunk).

    Contents are undefined; two names never alias.  Used for the ``(n, m)`` intermediates of one
    evaluation, which are consumed before the evaluation returns."""
    size = math.prod(shape)
    if size > _SCRATCH_MAX:
        return np.empty(shape)
    bufs = getattr(_SCRATCH, "bufs", None)
    if bufs is None:
        bufs = _SCRATCH.bufs = {}
    buf = bufs.get(name)
    if buf is None or buf.size < size:
        buf = bufs[name] = np.empty(size)
    return buf[:size].reshape(shape)


def _index(idx: Array, ref: Any) -> Any:
    if is_torch(ref):
        import torch

        return torch.as_tensor(idx, dtype=torch.long, device=ref.device)
    return idx


def _segment_outer(X: Array, s: Array, seg: Array, n: int) -> Array:
    """``out[i] = sum_{rows r of client i} s_r x_r x_r^T`` in row chunks (loop over data chunks only)."""
    N, d = X.shape
    out = np.zeros((n, d * d))
    chunk = max(1, _HESS_CHUNK // (d * d))
    for a in range(0, N, chunk):
        Xa = X[a:a + chunk]
        outer = ((Xa * s[a:a + chunk, None])[:, :, None] * Xa[:, None, :]).reshape(-1, d * d)
        sa = seg[a:a + chunk]
        # rows are sorted by client: reduce contiguous runs, then add into their clients
        starts = np.flatnonzero(np.r_[True, sa[1:] != sa[:-1]])
        out[sa[starts]] += np.add.reduceat(outer, starts, axis=0)
    return out.reshape(n, d, d)
