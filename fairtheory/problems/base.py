r"""The federated-problem interface every algorithm, exact solver and claim uses.

A federated problem has ``n`` clients with losses ``f_i : R^d -> R`` and weights ``p`` (a probability
vector, ``p_i = m_i / sum_j m_j``).  Everything is evaluated for all clients at once - never a Python
loop over clients - either at one shared model ``w`` (shape ``(d,)``) or at one model per client
``W`` (shape ``(n, d)``).  Evaluation accepts numpy arrays or torch tensors (the data, stored as
float64 numpy, is moved to the iterate's library, dtype and device by :func:`fairtheory.backend.like`).

Constants the theorems need (002 Assump. 1-2) are computed from the data:
``smoothness()`` (``L1``), ``lipschitz()`` (``L2``, ``inf`` where none exists globally) and
``strong_convexity()`` (``mu``, 0 where none).
"""

from __future__ import annotations

import functools
import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError, check_probability_vector, has_bool
from fairtheory.backend import namespace
from fairtheory.errors import NonFiniteError

Array = NDArray[np.float64]

__all__ = ["FederatedProblem", "as_float_array", "as_data_array", "evaluation"]

F = TypeVar("F", bound=Callable[..., Any])


def _real_numpy(x: Any, name: str) -> np.ndarray:
    """``x`` (not a tensor) as a numpy array of a real dtype; strings, ``None``, booleans (also inside
    lists), ragged and non-numeric input raise :class:`~fairtheory.errors.FairtheoryTypeError` naming ``name``."""
    if isinstance(x, (str, bytes)) or x is None:
        raise FairtheoryTypeError(f"{name} must be an array of real numbers, got {type(x).__name__}")
    if has_bool(x):
        raise FairtheoryTypeError(f"{name} must hold real numbers, got booleans")
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as exc:  # ragged nested lists
        raise FairtheoryTypeError(f"{name} must be an array of real numbers, got {x!r}"[:200]) from exc
    if arr.dtype.kind not in "iuf":
        what = "booleans" if arr.dtype.kind == "b" else f"dtype {arr.dtype}"
        raise FairtheoryTypeError(f"{name} must hold real numbers, got {what}")
    return arr


def as_float_array(x: Any, name: str, shape: tuple[int, ...]) -> Any:
    """The input policy of every problem evaluation: ``x`` as a finite floating array of ``shape``.

    Lists, tuples and numpy arrays become numpy arrays; integer arrays (numpy or torch) become float64;
    floating arrays keep their dtype (float32 for scale runs) and torch tensors their device (a tensor
    with ``requires_grad`` is evaluated differentiably).  Booleans, complex numbers, strings, a wrong
    shape and non-finite entries raise :class:`~fairtheory.errors.FairtheoryTypeError` /
    :class:`~fairtheory.errors.FairtheoryValueError` naming ``name``.  A stride-0 broadcast of one row
    (a server model sent to every client) is checked through that row only."""
    from fairtheory.backend import is_torch

    if is_torch(x):
        import torch

        if x.dtype == torch.bool or x.is_complex():
            raise FairtheoryTypeError(f"{name} must hold real numbers, got a tensor of dtype {x.dtype}")
        if not x.is_floating_point():
            x = x.to(torch.float64)
        arr_shape = tuple(x.shape)
    else:
        x = _real_numpy(x, name)
        if x.dtype.kind != "f" or x.dtype.itemsize < 4:
            x = x.astype(np.float64)
        arr_shape = x.shape
    if arr_shape != shape:
        raise FairtheoryValueError(f"{name} must have shape {shape}, got {arr_shape}")
    if is_torch(x):
        import torch

        row0 = len(shape) == 2 and shape[0] > 1 and x.stride(0) == 0
        finite = bool(torch.isfinite(x[:1] if row0 else x).all())
    else:
        row0 = len(shape) == 2 and shape[0] > 1 and x.strides[0] == 0
        finite = bool(np.isfinite(x[:1] if row0 else x).all())
    if not finite:
        raise NonFiniteError(f"{name} must be finite, got nan or inf entries")
    return x


def as_data_array(x: Any, name: str, *, ndim: int | None = None, allow_empty: bool = False) -> Array:
    """The input policy of a problem's data (``H``, ``X``, ``y``, ...): ``x`` as a finite float64
    numpy array.

    Lists, tuples, numpy arrays of any real dtype and torch tensors (copied to host) are converted;
    booleans (a mask passed by mistake), complex numbers, strings and ragged nesting raise
    :class:`~fairtheory.errors.FairtheoryTypeError`, a wrong ``ndim`` or an empty array
    :class:`~fairtheory.errors.FairtheoryValueError` and nan/inf
    :class:`~fairtheory.errors.NonFiniteError`, each naming ``name``."""
    from fairtheory.backend import is_torch, to_numpy

    if is_torch(x):
        x = to_numpy(x.detach())
    arr = _real_numpy(x, name).astype(np.float64, copy=False)
    if ndim is not None and arr.ndim != ndim:
        raise FairtheoryValueError(f"{name} must be {ndim}-D, got shape {arr.shape}")
    if arr.size == 0 and not allow_empty:
        raise FairtheoryValueError(f"{name} must be non-empty, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise NonFiniteError(f"{name} must be finite, got nan or inf entries")
    return arr


def _all_finite(x: Any) -> bool:
    """Whether every entry of the numpy array or torch tensor ``x`` is finite (a sum first: nan/inf
    propagate to it, and only a sum that overflows needs the entrywise check)."""
    if type(x) is np.ndarray:
        if math.isfinite(np.add.reduce(x, axis=None)):
            return True
        return bool(np.isfinite(x).all())
    from fairtheory.backend import is_torch

    if is_torch(x):
        import torch

        return bool(torch.isfinite(x).all())
    return bool(np.isfinite(np.asarray(x)).all())


_OVERFLOW = "the result does not fit float64 at these models (overflow); use smaller model entries or step sizes"


def evaluation(fn: F) -> F:
    """Decorate a problem's evaluation method: numpy's overflow warnings are silenced inside, and a
    non-finite result (from finite, checked inputs: the value does not fit float64) raises
    :class:`~fairtheory.errors.NonFiniteError` instead of returning inf/nan - which
    :func:`fairtheory.algorithms.base.run` reports as divergence."""

    @functools.wraps(fn)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            out = fn(self, *args, **kwargs)
        if type(out) is tuple:
            if not all(part is None or _all_finite(part) for part in out):
                raise NonFiniteError(f"{type(self).__name__}.{fn.__name__}: {_OVERFLOW}")
        elif not _all_finite(out):
            raise NonFiniteError(f"{type(self).__name__}.{fn.__name__}: {_OVERFLOW}")
        return out

    return wrapper  # type: ignore[return-value]


class FederatedProblem(ABC):
    """Abstract federated problem; subclasses implement the ``*_each`` methods and ``hessians``."""

    n: int
    d: int
    p: Array

    def _set_weights(self, p: Any, n: int) -> None:
        p_arr = check_probability_vector(p, "p")
        if p_arr.shape != (n,):
            raise FairtheoryValueError(f"p must have shape ({n},) (one weight per client), got {p_arr.shape}")
        self.p = p_arr

    # ------------------------------------------------------------ per-client models
    @abstractmethod
    def losses_each(self, W: Any, clients: Any = None) -> Any:
        """``(f_{c_k}(W_k))_k`` for client models ``W`` of shape ``(k, d)``: all clients in order
        (``k = n``) when ``clients`` is ``None``, else the clients ``c = clients`` (integer indices,
        repeats allowed; see :meth:`client_index`)."""

    @abstractmethod
    def grads_each(self, W: Any, clients: Any = None) -> Any:
        """``(grad f_{c_k}(W_k))_k``, shape ``(k, d)`` (``clients`` as in :meth:`losses_each`)."""

    def loss_grad_each(self, W: Any, clients: Any = None) -> tuple[Any, Any]:
        """``((f_{c_k}(W_k))_k, (grad f_{c_k}(W_k))_k)``, shapes ``(k,)`` and ``(k, d)``, in one call.

        Default: :meth:`losses_each` then :meth:`grads_each`; problems that can share work between
        the two (margins, transcendental functions) override it.
        """
        return self.losses_each(W, clients=clients), self.grads_each(W, clients=clients)

    def client_index(self, clients: Any) -> Any:
        """Validated client indices as a numpy ``int64`` vector, or ``None`` (all clients).

        Accepts integer sequences, numpy arrays and torch tensors; booleans, floats, empty or
        out-of-range indices raise :class:`~fairtheory.errors.FairtheoryValueError` naming ``clients``."""
        if clients is None:
            return None
        from fairtheory.backend import to_numpy

        c = np.asarray(to_numpy(clients))
        if c.ndim != 1 or c.size == 0 or c.dtype == np.bool_ or not np.issubdtype(c.dtype, np.integer):
            raise FairtheoryValueError(f"clients must be a non-empty 1-D integer array, got {c!r}")
        if c.min() < 0 or c.max() >= self.n:
            raise FairtheoryValueError(f"clients must lie in [0, {self.n - 1}], got min {c.min()} max {c.max()}")
        return c.astype(np.int64, copy=False)

    def _check_models(self, W: Any, c: Any) -> Any:
        """``W`` under the input policy (:func:`as_float_array`) with one row of length ``d`` per
        selected client (``c`` from :meth:`client_index`)."""
        k = self.n if c is None else int(c.size)
        return as_float_array(W, "W", (k, self.d))

    def on_device(self, name: str, data: Any, ref: Any) -> Any:
        """``data`` (problem data stored as numpy) in ``ref``'s library, dtype and device, converted once
        per ``(name, library, dtype, device)`` and cached: evaluating a torch model on a GPU does not move
        the problem's data host-to-device on every call.  Integer arrays (indices) keep an integer dtype."""
        from fairtheory.backend import is_torch, like

        arr = np.asarray(data)
        integer = arr.dtype.kind in "iu"
        if not is_torch(ref) and (integer or arr.dtype == getattr(ref, "dtype", np.float64)):
            return arr
        key = (name, "torch" if is_torch(ref) else "numpy", "int" if integer else str(ref.dtype),
               str(getattr(ref, "device", "cpu")))
        cache = self.__dict__.setdefault("_device_cache", {})
        if key not in cache:
            if is_torch(ref):
                import torch

                cache[key] = (torch.as_tensor(arr, dtype=torch.int64, device=ref.device) if integer
                              else like(arr, ref))
            else:
                cache[key] = like(arr, ref)
        return cache[key]

    def as_model(self, w: Any, name: str = "w") -> Any:
        """A shared model ``w`` of shape ``(d,)`` under the input policy (:func:`as_float_array`)."""
        return as_float_array(w, name, (self.d,))

    # ------------------------------------------------------------ one shared model
    def _broadcast(self, w: Any) -> Any:
        w = self.as_model(w)
        return namespace(w).broadcast_to(w[None, :], (self.n, self.d))

    def losses(self, w: Any) -> Any:
        """``f(w) = (f_1(w), ..., f_n(w))``."""
        return self.losses_each(self._broadcast(w))

    def grads(self, w: Any) -> Any:
        """Jacobian rows ``grad f_i(w)``, shape ``(n, d)``."""
        return self.grads_each(self._broadcast(w))

    @abstractmethod
    def hessians(self, w: Array) -> Array:
        """``(Hess f_i(w))_i``, shape ``(n, d, d)`` (numpy, float64)."""

    def weighted_loss(self, w: Any) -> Any:
        """``sum_i p_i f_i(w)`` (the FedAvg objective)."""
        from fairtheory.backend import like

        f = self.losses(w)
        return like(self.p, f) @ f

    # ------------------------------------------------------------ proximal step (FedProx's local problem)
    def prox_each(self, W: Any, gamma: float, clients: Any = None, accuracy: float | None = None, *,
                  tol: float = 1e-12, max_iter: int | None = None) -> Any:
        r"""Proximal step of every selected client at its own centre, all rows at once:

        .. math:: X_k = \operatorname{argmin}_x\ h_k(x),\qquad
                  h_k(x) = f_{c_k}(x) + \frac{1}{2\gamma}\|x - W_k\|^2 .

        FedProx's local problem (Li et al. 2020, Alg. 2) with ``gamma = 1/prox_mu``.  ``h_k`` is
        ``(L1 + 1/gamma)``-smooth and ``(mu + 1/gamma)``-strongly convex (``L1 = smoothness()``,
        ``mu = strong_convexity()``), so the minimiser is unique.

        * Quadratic clients (:class:`~fairtheory.problems.quadratic.QuadraticProblem`,
          :class:`~fairtheory.problems.least_squares.LeastSquaresProblem`: constant Hessians ``H_k``),
          ``accuracy=None``: the closed form ``X_k = W_k - (I + gamma H_k)^{-1} gamma grad f_{c_k}(W_k)``.
        * Otherwise Nesterov's accelerated gradient method for strongly convex functions (constant
          momentum ``(sqrt(Q) - 1)/(sqrt(Q) + 1)``, ``Q = (L1 + 1/gamma)/(mu + 1/gamma)``, step
          ``1/(L1 + 1/gamma)``; Nesterov 2004, (2.2.19)) from ``x = W_k``, every row at once (finished rows
          are frozen).  A row stops at the first evaluated iterate ``x`` with

          .. math:: \|\nabla h_k(x)\| \le \max\big(a\,\|\nabla h_k(W_k)\|,\ \epsilon_k\big),\qquad
                    \nabla h_k(W_k) = \nabla f_{c_k}(W_k),

          ``a = accuracy`` (a ``gamma``-inexact solution in the sense of Li et al. 2020, Def. 1, whose
          ``gamma`` is this ``accuracy``) or ``a = tol`` when ``accuracy`` is ``None`` (the exact step), and
          ``epsilon_k = 1000 eps (||grad f_{c_k}(W_k)|| + (L1 + 1/gamma)(1 + ||W_k||))`` the float64 floor
          below which ``grad h_k`` cannot be evaluated.  The exact step is then within
          ``||grad h_k(x)||/(mu + 1/gamma)`` of the minimiser.

        Parameters
        ----------
        W : array, shape ``(k, d)``
            The centres (numpy or torch; one row per selected client).
        gamma : float > 0
            The proximal step size (``1/prox_mu`` in FedProx).
        clients : integer indices or None
            As in :meth:`losses_each` (``None``: all ``n`` clients in order).
        accuracy : float in ``[0, 1]`` or None
            ``None``: the exact proximal step; else stop at the first ``accuracy``-inexact iterate.
        tol : float in ``(0, 1)``
            Relative gradient tolerance of the exact step (iterative method only).
        max_iter : int >= 1 or None
            Iteration limit of the iterative method (default ``100 + 40 sqrt(Q) ln(10^16 Q)``).

        Returns
        -------
        ``X``, shape ``(k, d)``, in ``W``'s library and dtype.

        Raises
        ------
        SolverError : the iterative method did not meet its stopping rule within ``max_iter`` iterations.
        """
        import math as _math

        from fairtheory._validation import check_in_range, check_integer, check_positive
        from fairtheory.backend import like, to_numpy
        from fairtheory.errors import SolverError

        gamma = check_positive(gamma, "gamma")
        a = None if accuracy is None else check_in_range(accuracy, "accuracy", low=0.0, high=1.0)
        tol = check_in_range(tol, "tol", low=0.0, high=1.0, low_inclusive=False, high_inclusive=False)
        c = self.client_index(clients)
        W = self._check_models(W, c)
        xp = namespace(W)
        H = self._prox_hessians() if a is None else None
        g0 = self.grads_each(W, clients=c)
        if H is not None:  # quadratic clients: closed form
            Hc = H if c is None else H[c]
            A = np.eye(self.d)[None, :, :] + gamma * Hc
            step = xp.linalg.solve(like(A, W), (gamma * g0)[..., None])[..., 0]
            return W - step
        L1, mu = self._prox_constants()
        Lh, mh = L1 + 1.0 / gamma, mu + 1.0 / gamma
        if not (_math.isfinite(Lh) and Lh > 0):
            raise FairtheoryValueError(f"prox_each needs a finite smoothness constant, got L1 = {L1!r}")
        Q = Lh / mh
        limit = (int(100 + 40 * _math.sqrt(Q) * _math.log(1e16 * Q)) if max_iter is None
                 else check_integer(max_iter, "max_iter", low=1))
        beta = (_math.sqrt(Q) - 1.0) / (_math.sqrt(Q) + 1.0)
        eps = float(np.finfo(np.float64).eps)
        n0 = xp.sqrt(xp.sum(g0 * g0, axis=1))
        floor = 1000.0 * eps * (n0 + Lh * (1.0 + xp.sqrt(xp.sum(W * W, axis=1))))
        thresh = xp.maximum((tol if a is None else a) * n0, floor)
        done = n0 <= thresh                      # W_k itself qualifies (grad h_k(W_k) = grad f_{c_k}(W_k))
        X = W                    # the output: per row, the first evaluated point meeting the rule
        Xk, Y, G = W, W, g0      # Nesterov's x_k and y_k, G = grad h at y_k
        for _ in range(limit):
            if bool(xp.all(done)):
                return X
            X_new = Y - G / Lh
            Y_new = X_new + beta * (X_new - Xk)
            Xk = xp.where(done[:, None], Xk, X_new)
            Y = xp.where(done[:, None], Y, Y_new)
            G = self.grads_each(Y, clients=c) + (Y - W) / gamma
            gn = xp.sqrt(xp.sum(G * G, axis=1))
            hit = (~done) & (gn <= thresh)
            X = xp.where(hit[:, None], Y, X)
            done = done | hit
            if not bool(xp.all(xp.isfinite(gn))):
                break
        if bool(xp.all(done)):
            return X
        worst = float(np.max(np.asarray(to_numpy(gn))[~np.asarray(to_numpy(done))]))
        raise SolverError(f"prox_each (argmin f_i(x) + ||x - W_i||^2/(2 gamma), gamma={gamma!r})",
                          "accelerated gradient",
                          f"not converged after {limit} iterations: largest ||grad h_i|| {worst:.3g} above its "
                          "tolerance (raise max_iter or tol)")

    def _prox_hessians(self) -> Array | None:
        """The clients' constant Hessians ``(n, d, d)`` where the losses are quadratic (closed-form
        :meth:`prox_each`; quadratic problems override this), else ``None``."""
        return None

    def _prox_constants(self) -> tuple[float, float]:
        """``(smoothness(), strong_convexity())``, computed once per problem (the iterative
        :meth:`prox_each` runs every round of FedProx)."""
        cached = self.__dict__.get("_prox_constants_cache")
        if cached is None:
            cached = (float(self.smoothness()), float(self.strong_convexity()))
            self.__dict__["_prox_constants_cache"] = cached
        return cached

    # ------------------------------------------------------------ exact-solver twin
    @abstractmethod
    def cvxpy_losses(self, w: Any) -> list[Any]:
        """The client losses as cvxpy expressions of a variable ``w`` of shape ``(d,)``."""

    # ------------------------------------------------------------ constants
    @abstractmethod
    def smoothness(self) -> float:
        """``L1``: every ``grad f_i`` is ``L1``-Lipschitz."""

    def lipschitz(self) -> float:
        """``L2``: every ``f_i`` is ``L2``-Lipschitz (``inf`` if not globally Lipschitz)."""
        return float("inf")

    def strong_convexity(self) -> float:
        """``mu``: every ``f_i`` is ``mu``-strongly convex (0 if not)."""
        return 0.0

    def initial_point(self) -> Array:
        """Default starting model (zeros)."""
        return np.zeros(self.d)
