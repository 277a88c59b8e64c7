r"""Numerically stable softplus and sigmoid: the one place fairtheory defines them.

.. math:: \mathrm{softplus}_\mu(x) = \mu \log(1 + e^{x/\mu}), \qquad \sigma(x) = \frac{1}{1 + e^{-x}},
          \qquad \mathrm{softplus}_\mu'(x) = \sigma(x/\mu).

``softplus``/``sigmoid`` validate their input (public API); ``softplus_unchecked``/``sigmoid_unchecked``
are the same kernels without validation for hot paths that already hold validated float arrays (the
logistic losses, rFedFair's smoothed step, the smoothed aggregator).  All accept numpy arrays or torch
tensors and keep the library, dtype and device of the input; none overflows for any real input
(``|x|/mu`` up to and past the float range, 002 Sec. 4).

Scaling helpers (float64 has room from ``2^-1074`` to ``2^1024``; these keep intermediate results inside
it, as ``np.hypot`` does): :func:`pow2_exponent` and :func:`times_pow2` scale by exact powers of two;
:func:`mul_pow` evaluates ``c x^y`` without intermediate overflow or underflow.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import expit

from fairtheory._validation import check_positive, has_bool
from fairtheory.backend import is_torch, namespace
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError

__all__ = ["softplus", "sigmoid", "softplus_unchecked", "sigmoid_unchecked", "real_array", "pow2_exponent",
           "times_pow2", "mul_pow", "mul_pow_parts", "FLOAT_TINY"]

#: smallest positive normal float64 (below it results lose precision: subnormal)
FLOAT_TINY = float(np.finfo(np.float64).tiny)


def real_array(x: Any, name: str) -> tuple[Any, Any]:
    """``x`` as a floating array of its own library (numpy for scalars/lists) and its namespace.

    Integers become float64 (floating arrays keep their dtype; torch tensors their device and autograd
    graph); booleans (also inside lists), complex numbers, strings and nan are rejected naming ``name``.
    Infinities are kept: the elementwise kernels here have exact limits there."""
    if is_torch(x):
        import torch

        if x.is_complex() or x.dtype == torch.bool:
            raise FairtheoryTypeError(f"{name} must be a real floating tensor, got dtype {x.dtype}")
        if not x.is_floating_point():
            x = x.to(torch.float64)
        if bool(torch.isnan(x.detach()).any()):
            raise FairtheoryValueError(f"{name} must not contain nan")
        return x, namespace(x)
    if isinstance(x, (str, bytes)) or x is None:
        raise FairtheoryTypeError(f"{name} must be a real number or array, got {type(x).__name__}")
    if isinstance(x, (list, tuple)) and has_bool(x):
        raise FairtheoryTypeError(f"{name} must hold real numbers, got booleans")
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as exc:  # ragged input
        raise FairtheoryTypeError(f"{name} must be a real number or array, got {x!r}"[:200]) from exc
    if arr.dtype.kind not in "iuf":
        raise FairtheoryTypeError(f"{name} must be real (not {arr.dtype}), got {x!r}"[:200])
    if arr.dtype.kind != "f":
        arr = arr.astype(np.float64)
    if np.any(np.isnan(arr)):
        raise FairtheoryValueError(f"{name} must not contain nan")
    return arr, namespace(arr)


def pow2_exponent(m: float) -> int:
    """The exponent ``e`` with ``m = f 2^e``, ``f in [0.5, 1)`` (``0`` for ``m = 0``): dividing by
    ``2^e`` brings ``|m|`` into ``[0.5, 1)`` exactly."""
    return int(math.frexp(float(m))[1])


def times_pow2(x: Any, k: int) -> Any:
    """``x 2^k`` for a float, numpy array or torch tensor, exact unless the result leaves the normal
    range (then correctly overflowing to ``inf`` or rounding to a subnormal); differentiable in ``x``.

    ``k`` may exceed the exponent range of one float (``2^1100``): the factor is applied in steps that
    move toward the result, so no intermediate overflows or underflows before the result does."""
    k = int(k)
    with np.errstate(over="ignore", under="ignore"):
        while k > 1000:
            x = x * 2.0 ** 1000
            k -= 1000
        while k < -1000:
            x = x * 2.0 ** -1000
            k += 1000
        return x * 2.0 ** k


def mul_pow_parts(c: float, x: float, y: float) -> tuple[float, int]:
    """``(f, k)`` with ``c x^y = f 2^k`` and ``|f|`` in ``[0.5, 2)`` (or ``f = 0``, or ``f = +-inf`` for
    ``x = 0``, ``y < 0``), for ``x >= 0`` and finite ``c``, ``y``; ``0^0 = 1``.  No intermediate ever
    leaves the float range, whatever the size of ``c x^y``."""
    c, x, y = float(c), float(x), float(y)
    if c == 0.0 or (x == 0.0 and y > 0.0):
        return 0.0 * c, 0
    if y == 0.0:
        mc, ec = math.frexp(c)
        return mc, ec
    if x == 0.0:  # y < 0
        return math.copysign(math.inf, c), 0
    mx, ex = math.frexp(x)  # x = mx 2^ex, mx in [0.5, 1)
    mc, ec = math.frexp(c)
    E = ex * y
    k = math.floor(E)
    r = E - k  # 2^E = 2^r 2^k, r in [0, 1)
    lp = y * math.log2(mx)
    if -1000.0 < lp < 1000.0:
        part, kk = mx ** y, 0
    else:  # mx^y itself would leave the float range
        kk = math.floor(lp)
        part = 2.0 ** (lp - kk)
    f, kf = math.frexp(mc * part * 2.0 ** r)
    return f, int(k + kk + ec + kf)


def mul_pow(c: float, x: float, y: float) -> float:
    """``c x^y`` for ``x >= 0`` without intermediate overflow or underflow: ``inf`` (signed) only when the
    true value exceeds the float64 range, ``0`` only when it is below half the smallest subnormal
    (see :func:`mul_pow_parts`)."""
    f, k = mul_pow_parts(c, x, y)
    if not math.isfinite(f):
        return f
    try:
        return math.ldexp(f, k)
    except OverflowError:
        return math.copysign(math.inf, f)


def softplus_unchecked(x: Any, mu: float = 1.0) -> Any:
    """:func:`softplus` on a float numpy array or torch tensor, without validation."""
    xp = namespace(x)
    with np.errstate(over="ignore"):  # |x|/mu past the float range -> inf -> exp(-inf) = 0, exact
        return xp.maximum(x, xp.zeros_like(x)) + mu * xp.log1p(xp.exp(-xp.abs(x) / mu))


def sigmoid_unchecked(x: Any) -> Any:
    """:func:`sigmoid` on a float numpy array or torch tensor, without validation (one library kernel:
    ``scipy.special.expit`` or ``torch.sigmoid``, accurate in relative terms in both tails)."""
    if is_torch(x):
        import torch

        return torch.sigmoid(x)
    return expit(x)


def softplus(x: Any, mu: float = 1.0) -> Any:
    r"""``softplus_mu(x) = mu log(1 + e^{x/mu})`` elementwise (002 Sec. 4, ``phi_mu``).

    Evaluated as ``max(x, 0) + mu log1p(exp(-|x|/mu))`` - algebraically equal to
    ``mu logaddexp(0, x/mu)`` and free of overflow for any ``|x|/mu`` (past the float range it returns
    ``(x)_+``); ``softplus(+-inf) = inf, 0``.  Convex with
    ``softplus_mu'' = sigma(x/mu)(1 - sigma(x/mu))/mu <= 1/(4 mu)`` (002 states ``1/mu``: true, loose by 4);
    002 Prop. 1 (Bullins): ``(x)_+ <= softplus_mu(x) <= (x)_+ + mu log 2 <= (x)_+ + mu``.

    Parameters
    ----------
    x : float, array_like or torch.Tensor
        Real input (integers are converted to float64; booleans and nan are rejected).  The result has
        the library, dtype and device of ``x`` (numpy for Python scalars/lists) and is differentiable
        (a tensor with ``requires_grad`` keeps its autograd graph).
    mu : float
        Smoothing parameter, finite and ``> 0``.
    """
    mu = check_positive(mu, "mu")
    arr, _ = real_array(x, "x")
    return softplus_unchecked(arr, mu)


def sigmoid(x: Any) -> Any:
    r"""Logistic ``sigma(x) = 1/(1 + e^{-x})`` elementwise, stable for any real ``x``; ``sigma(+-inf) = 1, 0``.

    ``softplus_mu'(x) = sigma(x/mu)``.  numpy or torch input (library, dtype and device preserved,
    differentiable for torch; integers become float64, booleans and nan are rejected)."""
    arr, _ = real_array(x, "x")
    return sigmoid_unchecked(arr)
