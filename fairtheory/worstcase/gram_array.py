r"""Symbolic arrays over a PEP's Gram basis: the third array backend (after numpy and torch).

A performance-estimation problem (PEP, see :mod:`fairtheory.worstcase.sdp`) works in a basis
``e_1, ..., e_m`` of symbolic vectors (the starting point, the clients' gradients at the optimum and every
gradient a method asks for); the dimension of the model space is free.  A model ``w in R^d`` that a
method computes by linear operations from these vectors *is* a row of coefficients ``c in R^m``:
``w = sum_k c_k e_k``.  :class:`GramArray` stores a batch of such models - an array of logical shape
``batch + (d,)`` (``(d,)``: one model, ``(k, d)``: one model per client) - as a float64 coefficient array of
shape ``batch + (m,)``.  Exactly the operations that are linear in the basis vectors act on the
coefficients:

* ``a + b``, ``a - b``, ``-a`` (batch axes broadcast as in numpy);
* ``s * a``, ``a / s`` with ``s`` a number or a constant array that is constant along the model axis
  (a per-client scale: ``lam[:, None] * W``);
* ``M @ A`` with a constant ``M`` contracting a batch axis (``p @ (W - w)``: server averaging);
* indexing / slicing / ``None`` on batch axes, ``broadcast_to``, ``stack``, ``concat``, ``take``,
  ``sum`` / ``mean`` over batch axes, ``zeros`` / ``zeros_like``, ``asarray(copy=True)``.

Everything else is refused with :class:`NotRepresentableError` naming the operation: a product or inner
product of two symbolic arrays, norms, comparisons and sorting, powers, ``exp`` / ``log`` / ``sqrt``, a
constant vector added to a model (the space has no fixed coordinates), a coordinate-wise scale that
differs along the model axis, a map applied on the model axis, conversion to numbers (``float``,
``numpy.asarray``, ``to_numpy``) - which is where loss-dependent weights (q-FFL's ``f_i^q``, rFedFair's
smoothed weights), projections (FedFV) and selection rules (power-of-choice) stop.

Function values (:class:`ValueArray`, what a PEP problem's ``losses`` return) are arrays of
:class:`fairtheory.worstcase.gram.Scalar`; they support the same linear operations (constant weighted sums)
and refuse everything else (a weight computed from losses is not a constant of the PEP).

:mod:`fairtheory.backend` dispatches to :class:`GramNamespace` through the array-API protocol
(``__array_namespace__``) and :func:`fairtheory.backend.like` turns constant data into float64 numpy next
to a symbolic reference.  See docs/worstcase.md ("The traced backend").
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fairtheory.backend import to_numpy
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.worstcase.gram import Scalar, Vec
from fairtheory.worstcase.sdp import PEP

__all__ = ["GramArray", "ValueArray", "GramNamespace", "NotRepresentableError", "is_symbolic"]


class NotRepresentableError(FairtheoryTypeError):
    """An operation that is not linear in the PEP's basis vectors (no exact worst case by this backend)."""


def _refuse(what: str) -> NotRepresentableError:
    return NotRepresentableError(
        f"{what} is not PEP-representable: the traced worst-case backend (fairtheory.worstcase.worst_case) "
        "supports methods whose updates are linear in the gradients with constant coefficients "
        "(sums, differences, constant scalings, constant weighted averages over clients)")


def is_symbolic(x: Any) -> bool:
    """Whether ``x`` is a symbolic array of this backend (:class:`GramArray` or :class:`ValueArray`)."""
    return bool(getattr(type(x), "__fairtheory_symbolic__", False))


def _const(x: Any, what: str) -> np.ndarray | float:
    """A constant operand (number or numpy/torch constant) as float / float64 numpy; symbolic -> error."""
    if is_symbolic(x):
        raise _refuse(what)
    if isinstance(x, (complex, np.complexfloating)) or (isinstance(x, np.ndarray) and x.dtype.kind == "c"):
        raise FairtheoryTypeError(f"{what} with a complex constant ({x!r}): the PEP's model space is real")
    if isinstance(x, numbers.Real) and not isinstance(x, bool):
        out: np.ndarray | float = float(x)
    elif isinstance(x, np.ndarray) and x.dtype.kind in "fiu":
        out = x.astype(np.float64, copy=False) if x.ndim else float(x)
    else:
        try:
            arr = np.asarray(to_numpy(x), dtype=np.float64)
        except Exception as exc:  # noqa: BLE001 - any non-numeric operand is refused with the operation's name
            raise _refuse(f"{what} with an operand of type {type(x).__name__}") from exc
        out = arr if arr.ndim else float(arr)
    if not np.all(np.isfinite(out)):
        raise FairtheoryValueError(f"{what} with a non-finite constant ({x!r}): a traced method's coefficients must be "
                                   "finite numbers (nan / inf would make the worst case meaningless)")
    return out


def _is_zero(c: np.ndarray | float) -> bool:
    return bool(np.all(np.asarray(c) == 0.0))


_BINARY = {"add": ("__add__", "__radd__"), "subtract": ("__sub__", "__rsub__"), "multiply": ("__mul__", "__rmul__"),
           "true_divide": ("__truediv__", "__rtruediv__"), "divide": ("__truediv__", "__rtruediv__"),
           "matmul": ("__matmul__", "__rmatmul__")}


def _array_ufunc(self: Any, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """numpy ufuncs on symbolic arrays: the linear ones dispatch to the operators, the rest are refused."""
    name = getattr(ufunc, "__name__", repr(ufunc))
    if method == "__call__" and not kwargs:
        if name in _BINARY and len(inputs) == 2:
            a, b = inputs
            fwd, rev = _BINARY[name]
            return getattr(a, fwd)(b) if is_symbolic(a) else getattr(b, rev)(a)
        if name == "negative" and len(inputs) == 1:
            return -inputs[0]
        if name == "positive" and len(inputs) == 1:
            return inputs[0]
    what = f"the numpy ufunc {name}(...)" + ("" if method == "__call__" else f".{method}")
    if any(isinstance(a, ValueArray) for a in inputs):
        what += " of function values (a weight or step computed from the losses)"
    raise _refuse(what)


# ------------------------------------------------------------------------------------------ model arrays
class GramArray:
    """Models in ``R^d`` as coefficient rows over a PEP's Gram basis (module doc).

    ``C`` has shape ``batch + (m,)`` with ``m <= pep.dim`` (columns beyond ``m`` are zero: padded lazily);
    the logical shape is ``batch + (d,)``."""

    __fairtheory_symbolic__ = True
    __array_ufunc__ = _array_ufunc  # numpy's operators and ufuncs: linear ones dispatch, others are refused
    __array_priority__ = 1000
    __slots__ = ("C", "xp")

    def __init__(self, C: np.ndarray, xp: GramNamespace) -> None:
        if not isinstance(C, np.ndarray) or C.ndim < 1 or C.dtype.kind not in "fiuO":
            raise FairtheoryTypeError(f"GramArray coefficients must be a real numpy array with a basis axis, got {C!r}")
        if C.dtype != object and not np.all(np.isfinite(C)):
            raise FairtheoryValueError("GramArray coefficients must be finite (nan / inf found)")
        self.C = C
        self.xp = xp

    # -------------------------------------------------------------- array-API surface
    def __array_namespace__(self, api_version: str | None = None) -> GramNamespace:
        return self.xp

    @property
    def shape(self) -> tuple[int, ...]:
        return (*self.C.shape[:-1], self.xp.d)

    @property
    def ndim(self) -> int:
        return self.C.ndim

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(np.float64)

    @property
    def device(self) -> str:
        return "cpu"

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    def __len__(self) -> int:
        if self.ndim == 1:
            return self.xp.d
        return int(self.C.shape[0])

    def __repr__(self) -> str:
        return f"GramArray(shape={self.shape}, basis={self.C.shape[-1]})"

    def _new(self, C: np.ndarray) -> GramArray:
        if C.dtype != object and not np.all(np.isfinite(C)):
            raise FairtheoryValueError("a traced model's coefficients overflowed to a non-finite number (nan / inf): "
                                       "the method's step sizes or weights are too large for float64")
        return GramArray(C, self.xp)

    def padded(self, m: int | None = None) -> np.ndarray:
        """Coefficients padded with zero columns to ``m`` (default: the PEP's current basis size)."""
        m = self.xp.pep.dim if m is None else m
        k = self.C.shape[-1]
        if k == m:
            return self.C
        out = np.zeros((*self.C.shape[:-1], m))
        out[..., :k] = self.C
        return out

    def vecs(self) -> list[Vec]:
        """The rows of a ``(k, d)`` array as :class:`~fairtheory.worstcase.gram.Vec` (a ``(d,)`` array: one)."""
        C = self.C.reshape(-1, self.C.shape[-1])
        return [Vec(row.copy()) for row in C]

    # -------------------------------------------------------------- linear operations
    def _pair(self, other: GramArray) -> tuple[np.ndarray, np.ndarray]:
        if other.xp is not self.xp:
            raise FairtheoryTypeError("symbolic arrays of two different PEP problems cannot be combined")
        m = max(self.C.shape[-1], other.C.shape[-1])
        return self.padded(m), other.padded(m)

    def _batch(self, a: np.ndarray, b: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray]:
        try:
            shape = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
        except ValueError as exc:
            raise FairtheoryTypeError(f"{what}: batch shapes {a.shape[:-1]} and {b.shape[:-1]} do not broadcast") from exc
        m = a.shape[-1]
        return np.broadcast_to(a, (*shape, m)), np.broadcast_to(b, (*shape, m))

    def _add(self, other: Any, sign: float, what: str, reverse: bool = False) -> GramArray:
        if isinstance(other, GramArray):
            a, b = self._batch(*self._pair(other), what)
            if sign > 0:
                return self._new(a + b)
            return self._new(b - a if reverse else a - b)
        if isinstance(other, ValueArray):
            raise _refuse(f"{what} of a model and a function value")
        c = _const(other, what)
        if not _is_zero(c):
            raise _refuse(f"{what} of a model and a nonzero constant (the model space has no fixed coordinates)")
        shape = np.broadcast_shapes(self.shape, np.shape(c))
        C = np.broadcast_to(self.C, (*shape[:-1], self.C.shape[-1]))
        return self._new(-C if (reverse and sign < 0) else C.copy())

    def __add__(self, other: Any) -> GramArray:
        return self._add(other, 1.0, "addition")

    def __radd__(self, other: Any) -> GramArray:
        return self._add(other, 1.0, "addition", reverse=True)

    def __sub__(self, other: Any) -> GramArray:
        return self._add(other, -1.0, "subtraction")

    def __rsub__(self, other: Any) -> GramArray:
        return self._add(other, -1.0, "subtraction", reverse=True)

    def __neg__(self) -> GramArray:
        return self._new(-self.C)

    def __pos__(self) -> GramArray:
        return self

    def _scale(self, s: Any, what: str, invert: bool = False) -> GramArray:
        if is_symbolic(s):
            raise _refuse(f"{what} of two symbolic arrays (a product of models, or of a model and a function value)")
        c = _const(s, what)
        if invert and np.any(np.asarray(c) == 0.0):
            raise FairtheoryValueError(f"{what} of a symbolic model by zero")
        if isinstance(c, float):
            with np.errstate(over="ignore", invalid="ignore"):
                return self._new(self.C / c if invert else self.C * c)
        try:
            full = np.broadcast_shapes(self.shape, c.shape)
        except ValueError as exc:
            raise FairtheoryTypeError(f"{what}: shapes {self.shape} and {c.shape} do not broadcast") from exc
        if c.ndim and c.shape[-1] != 1:  # varies (or may vary) along the model axis
            if not np.all(c == c[..., :1]):
                raise _refuse(f"{what} by a constant that differs along the model axis (a coordinate-wise scale)")
            c = c[..., :1]
        col = c[..., 0] if c.ndim else c
        col = 1.0 / col if invert else col
        batch = full[:-1]
        C = np.broadcast_to(self.C, (*batch, self.C.shape[-1])) * np.broadcast_to(col, batch)[..., None]
        return self._new(C)

    def __mul__(self, s: Any) -> GramArray:
        return self._scale(s, "multiplication")

    __rmul__ = __mul__

    def __truediv__(self, s: Any) -> GramArray:
        return self._scale(s, "division", invert=True)

    def __rtruediv__(self, s: Any) -> Any:
        raise _refuse("division by a model")

    def __matmul__(self, other: Any) -> Any:
        if is_symbolic(other):
            raise _refuse("matmul / inner product of two symbolic arrays")
        raise _refuse("matmul of a model with a constant matrix on the model axis (a linear map of R^d)")

    def __rmatmul__(self, M: Any) -> GramArray:
        if is_symbolic(M):
            raise _refuse("matmul / inner product of two symbolic arrays")
        c = _const(M, "matmul")
        if self.ndim < 2 or isinstance(c, float):
            raise _refuse("matmul of a constant with a single model (it acts on the model axis)")
        if c.ndim == 1:
            if c.shape[0] != self.C.shape[-2]:
                raise FairtheoryTypeError(f"matmul: shapes {c.shape} and {self.shape} do not align")
            with np.errstate(over="ignore", invalid="ignore"):  # overflow is refused by _new, by name
                return self._new(np.tensordot(c, self.C, axes=([0], [self.ndim - 2])))
        try:
            with np.errstate(over="ignore", invalid="ignore"):
                return self._new(np.matmul(c, self.C))
        except ValueError as exc:
            raise FairtheoryTypeError(f"matmul: shapes {c.shape} and {self.shape} do not align") from exc

    # -------------------------------------------------------------- indexing, reductions
    def _key(self, key: Any) -> Any:
        key = key if isinstance(key, tuple) else (key,)
        if any(k is Ellipsis for k in key):
            i = next(j for j, k in enumerate(key) if k is Ellipsis)
            used = sum(1 for k in key if k is not None and k is not Ellipsis)
            key = key[:i] + (slice(None),) * (self.ndim - used) + key[i + 1:]
        consumed = 0
        for j, k in enumerate(key):
            if k is None:
                if consumed == self.ndim:
                    raise _refuse("a new axis after the model axis")
                continue
            consumed += 1
            if consumed == self.ndim:
                if not (isinstance(k, slice) and k == slice(None)):
                    raise _refuse("indexing along the model axis (reading coordinates)")
                if any(kk is not None for kk in key[j + 1:]):
                    raise FairtheoryTypeError(f"too many indices for an array of shape {self.shape}")
        if consumed > self.ndim:
            raise FairtheoryTypeError(f"too many indices for an array of shape {self.shape}")
        out = []
        for k in key:
            if is_symbolic(k):
                raise _refuse("indexing with symbolic values")
            if not (k is None or isinstance(k, (slice, numbers.Integral, np.ndarray, list))):
                k = np.asarray(to_numpy(k))
            out.append(k)
        return tuple(out)

    def __getitem__(self, key: Any) -> GramArray:
        return self._new(self.C[self._key(key)])

    def __setitem__(self, key: Any, value: Any) -> None:
        """In-place assignment on batch axes (``hist[i] = g``): the coefficients are copied once if shared."""
        k = self._key(key)
        if isinstance(value, GramArray):
            m = max(self.C.shape[-1], value.C.shape[-1])
            v: Any = value.padded(m)
        elif is_symbolic(value) or not _is_zero(_const(value, "assignment")):
            raise _refuse("assigning a function value or a nonzero constant into a model array")
        else:
            m, v = self.C.shape[-1], 0.0
        if self.C.shape[-1] < m or not self.C.flags.writeable:
            self.C = np.array(self.padded(m))
        self.C[k] = v

    def __iter__(self) -> Any:
        if self.ndim < 2:
            raise _refuse("iterating over the coordinates of a model")
        return (self[i] for i in range(self.C.shape[0]))

    def _axis(self, axis: Any, what: str) -> tuple[int, ...]:
        axes = tuple(range(self.ndim)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
        norm = tuple(int(a) % self.ndim for a in axes)
        if self.ndim - 1 in norm:
            raise _refuse(f"{what} over the model axis (a sum of coordinates)")
        return norm

    def sum(self, axis: Any = None, keepdims: bool = False) -> GramArray:
        ax = self._axis(axis, "sum")
        return self._new(self.C.sum(axis=ax, keepdims=keepdims))

    def mean(self, axis: Any = None, keepdims: bool = False) -> GramArray:
        ax = self._axis(axis, "mean")
        return self._new(self.C.mean(axis=ax, keepdims=keepdims))

    def copy(self) -> GramArray:
        return self._new(self.C.copy())

    def detach(self) -> GramArray:
        return self

    # -------------------------------------------------------------- refused
    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise _refuse("converting a symbolic model to numbers (numpy.asarray / to_numpy: e.g. norms, projections or "
                      "Gram matrices of the updates, as FedFV and FedMGDA compute)")

    def __float__(self) -> float:
        raise _refuse("converting a symbolic model to a number (float)")

    def __bool__(self) -> bool:
        raise _refuse("the truth value of a symbolic model (a branch on data)")

    def __abs__(self) -> Any:
        raise _refuse("abs of a model")

    def __pow__(self, other: Any) -> Any:
        raise _refuse("a power of a model")

    __rpow__ = __pow__

    def __lt__(self, other: Any) -> Any:
        raise _refuse("a comparison of a model")

    __le__ = __gt__ = __ge__ = __lt__

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        raise _refuse("a comparison of a model")

    __ne__ = __eq__  # type: ignore[assignment]
    __hash__ = None  # type: ignore[assignment]

    @property
    def T(self) -> Any:
        raise _refuse("a transpose of a batch of models (it moves the model axis)")

    def reshape(self, *shape: Any) -> Any:
        raise _refuse("reshape of a model array")

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"GramArray has no attribute {name!r} ({_refuse(repr(name) + ' of a symbolic model')})")

    def __fairtheory_scatter_add__(self, target_size: int, index: Any) -> GramArray:
        """``out[index[k]] += self[k]`` over the first (batch) axis (:func:`fairtheory.backend.scatter_add`)."""
        out = np.zeros((int(target_size), *self.C.shape[1:]))
        np.add.at(out, np.asarray(to_numpy(index)), self.C)
        return self._new(out)


# ------------------------------------------------------------------------------------------ function values
class ValueArray:
    """An array of :class:`~fairtheory.worstcase.gram.Scalar` (function values), object dtype.

    Constant-weighted sums of values are allowed (``p @ f``, ``f.sum()``, ``f[i]``, ``f - g``, ``s * f``);
    anything that would turn values into numbers (weights from losses, comparisons, powers) is refused."""

    __fairtheory_symbolic__ = True
    __array_ufunc__ = _array_ufunc
    __array_priority__ = 1000
    __slots__ = ("S", "xp")

    def __init__(self, S: np.ndarray, xp: GramNamespace) -> None:
        self.S = S
        self.xp = xp

    def __array_namespace__(self, api_version: str | None = None) -> GramNamespace:
        return self.xp

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.S.shape)

    @property
    def ndim(self) -> int:
        return self.S.ndim

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(np.float64)

    def __len__(self) -> int:
        return len(self.S)

    def __repr__(self) -> str:
        return f"ValueArray(shape={self.shape})"

    def scalar(self) -> Scalar:
        """The single :class:`Scalar` of a 0-d (or one-element) array."""
        if self.S.size != 1:
            raise FairtheoryTypeError(f"expected one value, got shape {self.shape}")
        return self.S.reshape(-1)[0]

    def _new(self, S: Any) -> ValueArray:
        arr = np.empty(np.shape(S), dtype=object)
        arr[...] = S
        return ValueArray(arr, self.xp)

    def _add(self, other: Any, sign: int, what: str) -> ValueArray:
        if isinstance(other, ValueArray):
            return self._new(self.S + sign * other.S if sign > 0 else self.S - other.S)
        if isinstance(other, GramArray):
            raise _refuse(f"{what} of a function value and a model")
        c = _const(other, what)
        return self._new(self.S + sign * np.asarray(c, dtype=np.float64).astype(object))

    def __add__(self, other: Any) -> ValueArray:
        return self._add(other, 1, "addition")

    __radd__ = __add__

    def __sub__(self, other: Any) -> ValueArray:
        return self._add(other, -1, "subtraction")

    def __rsub__(self, other: Any) -> ValueArray:
        return (-self)._add(other, 1, "subtraction")

    def __neg__(self) -> ValueArray:
        return self._new(-self.S)

    def __mul__(self, s: Any) -> ValueArray:
        if is_symbolic(s):
            raise _refuse("a product of two symbolic values")
        c = _const(s, "multiplication")
        return self._new(self.S * np.asarray(c, dtype=np.float64).astype(object))

    __rmul__ = __mul__

    def __truediv__(self, s: Any) -> ValueArray:
        if is_symbolic(s):
            raise _refuse("a quotient of symbolic values")
        c = _const(s, "division")
        if np.any(np.asarray(c) == 0.0):
            raise FairtheoryValueError("division of symbolic function values by zero")
        return self._new(self.S * (1.0 / np.asarray(c, dtype=np.float64)).astype(object))

    def __rtruediv__(self, s: Any) -> Any:
        raise _refuse("division by a function value")

    def __rmatmul__(self, M: Any) -> ValueArray:
        c = _const(M, "matmul")
        if isinstance(c, float) or c.shape[-1] != self.S.shape[0]:
            raise FairtheoryTypeError(f"matmul: shapes {np.shape(c)} and {self.shape} do not align")
        return self._new(np.asarray(c, dtype=np.float64).astype(object) @ self.S)

    def __matmul__(self, other: Any) -> Any:
        if is_symbolic(other):
            raise _refuse("matmul of two symbolic arrays")
        return self.__rmatmul__(np.asarray(_const(other, "matmul")).T)

    def __getitem__(self, key: Any) -> ValueArray:
        return self._new(self.S[key])

    def sum(self, axis: Any = None, keepdims: bool = False) -> ValueArray:
        return self._new(self.S.sum(axis=axis, keepdims=keepdims))

    def mean(self, axis: Any = None, keepdims: bool = False) -> ValueArray:
        n = self.S.size if axis is None else self.S.shape[axis]
        return self._new(self.S.sum(axis=axis, keepdims=keepdims) * (1.0 / n))

    def copy(self) -> ValueArray:
        return self._new(self.S.copy())

    def detach(self) -> ValueArray:
        return self

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise _refuse("converting symbolic function values to numbers (e.g. weights computed from the losses)")

    def __float__(self) -> float:
        raise _refuse("converting a symbolic function value to a number")

    def __bool__(self) -> bool:
        raise _refuse("the truth value of a function value (a branch on the losses)")

    def __pow__(self, other: Any) -> Any:
        raise _refuse("a power of the losses (e.g. q-FFL's f_i^q)")

    __rpow__ = __pow__

    def __abs__(self) -> Any:
        raise _refuse("abs of a function value")

    def __lt__(self, other: Any) -> Any:
        raise _refuse("a comparison of function values")

    __le__ = __gt__ = __ge__ = __lt__

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        raise _refuse("a comparison of function values")

    __ne__ = __eq__  # type: ignore[assignment]
    __hash__ = None  # type: ignore[assignment]

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"ValueArray has no attribute {name!r} ({_refuse(repr(name) + ' of function values')})")


# ------------------------------------------------------------------------------------------ the namespace
_DTYPES = {"float64": np.float64, "float32": np.float64, "int64": np.int64, "int32": np.int32, "bool": np.bool_}


class GramNamespace:
    """The array-API namespace of one PEP problem's symbolic arrays (``namespace(w)`` for a symbolic ``w``).

    Linear functions act on the coefficients; constant (numpy) arguments fall through to numpy; every
    other name raises :class:`NotRepresentableError` when called."""

    def __init__(self, pep: PEP, d: int) -> None:
        self.pep = pep
        self.d = int(d)
        self.__name__ = "fairtheory.worstcase.gram_array"

    def __repr__(self) -> str:
        return f"GramNamespace(d={self.d}, basis={self.pep.dim})"

    # -------------------------------------------------------------- creation
    def zeros(self, shape: Any, dtype: Any = None, device: Any = None) -> GramArray:
        shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
        if not shape:
            raise _refuse("a 0-d zero (a model array needs a model axis)")
        return GramArray(np.zeros((*shape[:-1], 0)), self)

    def zeros_like(self, x: Any, dtype: Any = None, device: Any = None) -> Any:
        if isinstance(x, GramArray):
            return GramArray(np.zeros((*x.C.shape[:-1], 0)), self)
        if isinstance(x, ValueArray):
            return x * 0.0
        return np.zeros_like(np.asarray(x), dtype=np.float64)

    def asarray(self, x: Any, dtype: Any = None, device: Any = None, copy: bool | None = None) -> Any:
        if isinstance(x, (GramArray, ValueArray)):
            return x.copy() if copy else x
        return np.asarray(x, dtype=dtype, copy=copy)

    def broadcast_to(self, x: Any, shape: Sequence[int]) -> Any:
        if not isinstance(x, GramArray):
            return np.broadcast_to(x, shape)
        shape = tuple(shape)
        if not shape or shape[-1] != x.shape[-1]:
            raise _refuse(f"broadcast of a model array of shape {x.shape} to {shape} (along the model axis)")
        return GramArray(np.broadcast_to(x.C, (*shape[:-1], x.C.shape[-1])), self)

    # -------------------------------------------------------------- combining
    def _models(self, arrays: Sequence[Any], what: str) -> list[np.ndarray]:
        if not all(isinstance(a, GramArray) for a in arrays):
            if any(is_symbolic(a) for a in arrays):
                raise _refuse(f"{what} of symbolic and constant arrays")
            raise FairtheoryTypeError(f"{what}: no symbolic array among the arguments")
        m = max(a.C.shape[-1] for a in arrays)
        return [a.padded(m) for a in arrays]

    def stack(self, arrays: Sequence[Any], axis: int = 0) -> GramArray:
        Cs = self._models(arrays, "stack")
        nd = Cs[0].ndim + 1
        if int(axis) % nd == nd - 1:
            raise _refuse("stack along the model axis")
        return GramArray(np.stack(Cs, axis=axis), self)

    def concat(self, arrays: Sequence[Any], axis: int = 0) -> GramArray:
        Cs = self._models(arrays, "concat")
        if int(axis) % Cs[0].ndim == Cs[0].ndim - 1:
            raise _refuse("concat along the model axis")
        return GramArray(np.concatenate(Cs, axis=axis), self)

    concatenate = concat

    def take(self, x: Any, indices: Any, axis: int | None = None) -> Any:
        if not isinstance(x, GramArray):
            return np.take(x, indices, axis=axis)
        if axis is None or int(axis) % x.ndim == x.ndim - 1:
            raise _refuse("take along the model axis")
        return GramArray(np.take(x.C, np.asarray(to_numpy(indices)), axis=axis), self)

    def sum(self, x: Any, axis: Any = None, keepdims: bool = False, dtype: Any = None) -> Any:
        return x.sum(axis=axis, keepdims=keepdims) if is_symbolic(x) else np.sum(x, axis=axis, keepdims=keepdims)

    def mean(self, x: Any, axis: Any = None, keepdims: bool = False) -> Any:
        return x.mean(axis=axis, keepdims=keepdims) if is_symbolic(x) else np.mean(x, axis=axis, keepdims=keepdims)

    def matmul(self, a: Any, b: Any) -> Any:
        return a @ b

    def add(self, a: Any, b: Any) -> Any:
        return a + b

    def subtract(self, a: Any, b: Any) -> Any:
        return a - b

    def multiply(self, a: Any, b: Any) -> Any:
        return a * b

    def divide(self, a: Any, b: Any) -> Any:
        return a / b

    def negative(self, a: Any) -> Any:
        return -a

    def expand_dims(self, x: Any, axis: int = 0) -> Any:
        if not isinstance(x, GramArray):
            return np.expand_dims(x, axis)
        if int(axis) % (x.ndim + 1) == x.ndim:
            raise _refuse("a new axis after the model axis")
        return GramArray(np.expand_dims(x.C, axis), self)

    def __getattr__(self, name: str) -> Any:
        if name in _DTYPES:
            return _DTYPES[name]
        if name.startswith("__"):
            raise AttributeError(name)

        def refused(*args: Any, **kwargs: Any) -> Any:
            vals = [*args, *kwargs.values()]
            if any(isinstance(a, ValueArray) for a in vals):
                raise _refuse(f"xp.{name}(...) of function values (a weight or step computed from the losses, "
                              "e.g. q-FFL's f_i^q or a softmax of the losses)")
            if any(isinstance(a, GramArray) for a in vals):
                raise _refuse(f"xp.{name}(...) of a symbolic model")
            raise _refuse(f"xp.{name}(...)")

        return refused


def oracle_rows(W: GramArray, rows: Sequence[Any], call: Callable[[int, Vec], tuple[Vec, Scalar]]
                ) -> tuple[ValueArray, GramArray]:
    """Values and gradients of ``call(row_index, x_row)`` over the rows of a ``(k, d)`` model array."""
    xp = W.xp
    vals = np.empty(len(rows), dtype=object)
    grads: list[np.ndarray] = []
    for k, x in enumerate(W.vecs()):
        g, f = call(k, x)
        vals[k] = f
        grads.append(g.c)
    m = xp.pep.dim
    G = np.zeros((len(grads), m))
    for k, g in enumerate(grads):
        G[k, : g.size] = g
    return ValueArray(vals, xp), GramArray(G, xp)
