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
