"""Input validation shared by the whole library.

Every public entry point validates its arguments with these helpers, so that a malformed input
raises a :class:`FairtheoryValueError` (a ``ValueError``) or :class:`FairtheoryTypeError`
(a ``TypeError``) whose message names the argument, the offending value and the allowed range -
never an ``IndexError`` deep inside, never a silent ``nan``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError, NonFiniteError

__all__ = [
    "FairtheoryValueError",
    "FairtheoryTypeError",
    "as_vector",
    "check_probability_vector",
    "check_alpha",
    "check_positive",
    "check_in_range",
    "check_same_shape",
    "check_integer",
    "check_rng",
    "check_allocation",
    "check_returned",
    "MAX_ARRAY_BYTES",
]

#: absolute slack allowed when checking that a vector sums to one
SUM_TOL = 1e-9

#: the largest array (in bytes) that one size argument (a number of draws ``K``, a number of recorded
#: rounds, ...) may make the library allocate: 1 GiB.  A larger request is refused up front by
#: :func:`check_allocation` (naming the argument) instead of failing minutes later with a
#: ``MemoryError`` or swapping the machine; raise it (``fairtheory._validation.MAX_ARRAY_BYTES = ...``)
#: on purpose for bigger runs.
MAX_ARRAY_BYTES = 2 ** 30


def _short(x: Any) -> str:
    try:
        s = np.array2string(np.asarray(x), threshold=6, precision=4) if np.ndim(x) else repr(x)
    except (TypeError, ValueError):  # ragged or exotic input
        s = repr(x)
    return s if len(s) <= 80 else s[:77] + "..."


def has_bool(x: Any) -> bool:
    """Whether a (nested) list/tuple holds a Python or numpy boolean."""
    if isinstance(x, (bool, np.bool_)):
        return True
    return isinstance(x, (list, tuple)) and any(has_bool(v) for v in x)


def as_vector(x: Any, name: str, *, allow_empty: bool = False) -> NDArray[np.float64]:
    """Return ``x`` as a finite 1-D float64 array, or raise naming ``name``.

    The input policy of the numpy-level API: lists, tuples, numpy arrays of any real dtype and torch
    tensors (copied to host) are converted to float64; booleans (a mask passed by mistake) and complex
    numbers are rejected, never converted silently."""
    if isinstance(x, (str, bytes)) or x is None:
        raise FairtheoryTypeError(f"{name} must be a 1-D array of real numbers, got {type(x).__name__}")
    if hasattr(x, "detach") and hasattr(x, "cpu"):  # a torch tensor (without importing torch)
        try:
            x = x.detach().cpu().numpy()
        except (NotImplementedError, RuntimeError, TypeError) as exc:  # meta device, unsupported dtype
            raise FairtheoryTypeError(f"{name} must be a tensor with data on a real device, got {x!r}"[:200]) from exc
    try:
        raw = np.asarray(x)
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        raise FairtheoryTypeError(f"{name} must be a 1-D array of real numbers, got {_short(x)}") from exc
    if raw.dtype.kind == "b" or (isinstance(x, (list, tuple)) and has_bool(x)):
        raise FairtheoryTypeError(f"{name} must hold real numbers, got booleans")
    if raw.dtype.kind == "c":
        raise FairtheoryTypeError(f"{name} must hold real numbers, got complex values")
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise FairtheoryTypeError(
            f"{name} must be a 1-D array of real numbers, got {_short(x)}"
        ) from exc
    if arr.ndim != 1:
        raise FairtheoryValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.size == 0 and not allow_empty:
        raise FairtheoryValueError(f"{name} must be non-empty, got an empty array")
    if not np.all(np.isfinite(arr)):
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise NonFiniteError(f"{name} must be finite, got {arr[bad]} at index {bad}")
    return arr


def check_probability_vector(p: Any, name: str = "p") -> NDArray[np.float64]:
    """A non-negative vector summing to one (to :data:`SUM_TOL`)."""
    arr = as_vector(p, name)
    if np.any(arr < 0):
        bad = int(np.argmin(arr))
        raise FairtheoryValueError(
            f"{name} must have entries >= 0, got {arr[bad]} at index {bad}"
        )
    total = float(arr.sum())
    if abs(total - 1.0) > SUM_TOL * max(1.0, arr.size ** 0.5):
        raise FairtheoryValueError(f"{name} must sum to 1 (a probability vector), got sum {total!r}")
    return arr


def check_alpha(alpha: Any, p: NDArray[np.float64], name: str = "alpha") -> NDArray[np.float64]:
    """Per-client conservatism ``alpha_i in [p_i, 1]`` (002 Sec. 3.1); a scalar is broadcast.

    ``alpha_i >= p_i`` keeps the cap ``p_i/alpha_i <= 1``; ``alpha_i > 0`` is required so the cap is
    finite (a client with ``p_i = 0`` must still have ``alpha_i > 0``).
    """
    if isinstance(alpha, (bool, np.bool_, str, bytes)) or alpha is None or has_bool(alpha):
        raise FairtheoryTypeError(f"{name} must be a number or a vector of numbers, got {alpha!r}"[:200])
    try:
        scalar = np.ndim(alpha) == 0
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        raise FairtheoryTypeError(f"{name} must be a number or a vector of numbers, got {_short(alpha)}") from exc
    if scalar:
        try:
            a = float(alpha)
        except (TypeError, ValueError) as exc:
            raise FairtheoryTypeError(f"{name} must be a number or a vector, got {alpha!r}") from exc
        arr = np.full(p.shape, a)
        if not np.isfinite(a):
            raise FairtheoryValueError(f"{name} must be finite, got {a}")
    else:
        arr = as_vector(alpha, name)
    if arr.shape != p.shape:
        raise FairtheoryValueError(
            f"{name} must have the same shape as p {p.shape}, got {arr.shape}"
        )
    lo_bad = (arr < p * (1 - 1e-12)) | (arr <= 0)
    if np.any(lo_bad) or np.any(arr > 1 + 1e-12):
        idx = int(np.flatnonzero(lo_bad | (arr > 1 + 1e-12))[0])
        raise FairtheoryValueError(
            f"{name}[{idx}] must lie in [p[{idx}], 1] = [{p[idx]:.6g}, 1] and be > 0, got {arr[idx]!r}"
        )
    return np.clip(arr, p, 1.0)


def check_positive(x: Any, name: str) -> float:
    """A finite real number ``> 0``."""
    val = check_in_range(x, name, low=0.0, high=np.inf, low_inclusive=False)
    return val


def check_in_range(
    x: Any,
    name: str,
    *,
    low: float = -np.inf,
    high: float = np.inf,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
) -> float:
    """A finite real scalar inside the given interval."""
    if isinstance(x, (bool, np.bool_, str, bytes)) or (not np.isscalar(x) and np.ndim(x) != 0):
        raise FairtheoryTypeError(f"{name} must be a real number, got {x!r}")
    try:
        val = float(x)
    except (TypeError, ValueError) as exc:
        raise FairtheoryTypeError(f"{name} must be a real number, got {x!r}") from exc
    if not np.isfinite(val):
        raise FairtheoryValueError(f"{name} must be a finite number, got {x!r}")
    lo_ok = val >= low if low_inclusive else val > low
    hi_ok = val <= high if high_inclusive else val < high
    if not lo_ok or not hi_ok:
        lb = "[" if low_inclusive else "("
        hb = "]" if high_inclusive else ")"
        raise FairtheoryValueError(f"{name} must lie in {lb}{low}, {high}{hb}, got {x!r}")
    return val


def check_integer(x: Any, name: str, *, low: int = 0, high: float = np.inf) -> int:
    """An integer in ``[low, high]``."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        raise FairtheoryTypeError(f"{name} must be an integer, got {x!r}")
    if not low <= int(x) <= high:
        raise FairtheoryValueError(f"{name} must lie in [{low}, {high}], got {x!r}")
    return int(x)


def check_rng(rng: Any, name: str = "rng") -> np.random.Generator:
    """A ``numpy.random.Generator`` (explicit randomness: pass ``np.random.default_rng(seed)``)."""
    if not isinstance(rng, np.random.Generator):
        raise FairtheoryTypeError(
            f"{name} must be a numpy.random.Generator (e.g. np.random.default_rng(0)), got {type(rng).__name__}")
    return rng


def check_same_shape(a: NDArray[Any], b: NDArray[Any], name_a: str, name_b: str) -> None:
    """Raise unless ``a`` and ``b`` have the same shape."""
    if a.shape != b.shape:
        raise FairtheoryValueError(
            f"{name_a} and {name_b} must have the same shape, got {a.shape} and {b.shape}"
        )


def _gib(nbytes: float) -> str:
    return f"{nbytes / 2 ** 30:.3g} GiB" if nbytes >= 2 ** 27 else f"{nbytes / 2 ** 20:.3g} MiB"


def check_allocation(units: int, name: str, *, bytes_per_unit: int, what: str,
                     limit: int | None = None) -> int:
    """Refuse a size argument whose arrays would exceed ``limit`` bytes (default :data:`MAX_ARRAY_BYTES`).

    ``units`` is the argument's value (already an integer), ``bytes_per_unit`` what one unit costs and
    ``what`` names the array in the message, e.g. ``"K=1000000000 would need 7.45 GiB (K int64 client
    draws per round); at most K=134217728 (1 GiB, fairtheory._validation.MAX_ARRAY_BYTES)"``."""
    cap = MAX_ARRAY_BYTES if limit is None else int(limit)
    need = int(units) * int(bytes_per_unit)
    if need > cap:
        raise FairtheoryValueError(
            f"{name}={units} would need {_gib(need)} ({what}); at most {name}={cap // max(1, int(bytes_per_unit))} "
            f"({_gib(cap)}, fairtheory._validation.MAX_ARRAY_BYTES)")
    return int(units)


def check_returned(value: Any, what: str, *, shape: tuple[int, ...], low: float = -np.inf,
                   high: float = np.inf, meaning: str = "") -> NDArray[np.float64]:
    """What a user-supplied callable returned, as a finite float64 numpy array of ``shape`` in ``[low, high]``.

    ``what`` names the call (e.g. ``"accuracy(w)"``); ``meaning`` says what the entries are (e.g.
    ``"one accuracy per client"``).  Anything else - the wrong shape, nan/inf, a value out of range,
    something that is not an array of real numbers - raises a :class:`FairtheoryValueError` saying
    that the callable returned the wrong thing, instead of an ``IndexError`` or a silently wrong result."""
    rng_txt = "" if (low == -np.inf and high == np.inf) else f" in [{low:g}, {high:g}]"
    expect = f"an array of shape {shape}" + (f" ({meaning})" if meaning else "") + f" of finite values{rng_txt}"
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # a torch tensor
        value = value.detach().cpu().numpy()
    try:
        raw = np.asarray(value)
        if raw.dtype.kind in "bcOSUV" or raw.dtype == object:
            raise TypeError(raw.dtype)
        arr = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise FairtheoryValueError(f"{what} must return {expect}; it returned {_short(value)}") from exc
    if arr.shape != tuple(shape):
        raise FairtheoryValueError(f"{what} must return {expect}; it returned shape {arr.shape}")
    bad = ~np.isfinite(arr) | (arr < low) | (arr > high)
    if np.any(bad):
        i = int(np.flatnonzero(bad.ravel())[0])
        idx = np.unravel_index(i, arr.shape) if arr.ndim else ()
        at = f" at index {idx[0] if len(idx) == 1 else idx}" if arr.ndim else ""
        raise FairtheoryValueError(f"{what} must return {expect}; it returned {float(arr.ravel()[i])!r}{at}")
    return arr
