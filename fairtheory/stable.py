r"""Numerically stable softplus and sigmoid: the one place fairtheory defines them.

.. math:: \mathrm{softplus}_\mu(x) = \mu \log(1 + e^{x/\mu}), \qquad \sigma(x) = \frac{1}{1 + e^{-x}},
          \qquad \mathrm{softplus}_\mu'(x) = \sigma(x/\mu).

``softplus``/``sigmoid`` validate their input (public API); ``softplus_unchecked``/``sigmoid_unchecked``
are the same kernels without validation for hot paths that already hold validated float arrays (the
logistic losses, rFedFair's smoothed step, the smoothed aggregator).  All accept numpy arrays or torch
tensors and keep the library, dtype and device of the input; none overflows for any real input
(``|x|/mu`` up to and past the float range, 002 Sec. 4).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import expit

from fairtheory._validation import check_positive
from fairtheory.backend import is_torch, namespace
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError

__all__ = ["softplus", "sigmoid", "softplus_unchecked", "sigmoid_unchecked", "real_array"]


def real_array(x: Any, name: str) -> tuple[Any, Any]:
    """``x`` as a floating array of its own library (numpy for scalars/lists) and its namespace.

    Integers become float64; booleans, complex numbers, strings and nan are rejected naming ``name``."""
    if is_torch(x):
        import torch

        if x.is_complex() or x.dtype == torch.bool:
            raise FairtheoryTypeError(f"{name} must be a real floating tensor, got dtype {x.dtype}")
        if not x.is_floating_point():
            x = x.to(torch.float64)
        if bool(torch.isnan(x).any()):
            raise FairtheoryValueError(f"{name} must not contain nan")
        return x, namespace(x)
    if isinstance(x, (str, bytes)) or x is None:
        raise FairtheoryTypeError(f"{name} must be a real number or array, got {type(x).__name__}")
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as exc:  # ragged input
        raise FairtheoryTypeError(f"{name} must be a real number or array, got {x!r}") from exc
    if arr.dtype.kind not in "iuf":
        raise FairtheoryTypeError(f"{name} must be real (not {arr.dtype}), got {x!r}"[:200])
    if arr.dtype.kind != "f":
        arr = arr.astype(np.float64)
    if np.any(np.isnan(arr)):
        raise FairtheoryValueError(f"{name} must not contain nan")
    return arr, namespace(arr)


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
        the library, dtype and device of ``x`` (numpy for Python scalars/lists).
    mu : float
        Smoothing parameter, finite and ``> 0``.
    """
    mu = check_positive(mu, "mu")
    arr, _ = real_array(x, "x")
    return softplus_unchecked(arr, mu)


def sigmoid(x: Any) -> Any:
    r"""Logistic ``sigma(x) = 1/(1 + e^{-x})`` elementwise, stable for any real ``x``; ``sigma(+-inf) = 1, 0``.

    ``softplus_mu'(x) = sigma(x/mu)``.  numpy or torch input (library, dtype and device preserved;
    integers become float64, booleans and nan are rejected)."""
    arr, _ = real_array(x, "x")
    return sigmoid_unchecked(arr)
