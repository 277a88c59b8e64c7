r"""Property checks for aggregators of the client-loss vector (public).

An *aggregator* is any callable ``A: R^n -> R`` (e.g. ``lambda f: qalpha_loss(f, p, alpha)[0]``).
Support functions of client-weight sets (FedAvg, AFL, CVaR, ``Q_alpha``) are
coherent risk measures, so they are monotone, translation equivariant, positively homogeneous and
convex, and lie between the ``p``-mean and the maximum.  Each check evaluates the aggregator on
the given data and raises ``AssertionError`` with the numbers when the property fails; feed it
examples from :mod:`fairtheory.testing.strategies` with ``@given``.

Every check compares with a slack ``rtol * scale`` where ``scale`` is the largest absolute loss or
aggregated value involved (float rounding), default ``rtol = 1e-9``.  Loss vectors may be lists, numpy
arrays of any real dtype or torch tensors (converted to float64 numpy, detached); malformed arguments
raise a :class:`~fairtheory.errors.FairtheoryError` naming them (``AssertionError`` is reserved for a
violated property).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from fairtheory._validation import (
    FairtheoryTypeError,
    FairtheoryValueError,
    as_vector,
    check_in_range,
    check_probability_vector,
)

__all__ = [
    "check_monotone",
    "check_translation_equivariant",
    "check_positively_homogeneous",
    "check_convex_in_losses",
    "check_between_mean_and_max",
]

Aggregator = Callable[[np.ndarray], float]


def _callable(aggregator: Any) -> None:
    if not callable(aggregator):
        raise FairtheoryTypeError(f"aggregator must be a callable A(losses) -> float, got {type(aggregator).__name__}")


def _derived(x: np.ndarray, what: str) -> np.ndarray:
    """A loss vector built from the arguments (``f + |d|``, ``s f``, ...), or raise when it overflowed."""
    if not np.all(np.isfinite(x)):
        raise FairtheoryValueError(f"{what} exceeds the float64 range (about 1.8e308): use smaller losses")
    return x


def _agg(aggregator: Aggregator, f: np.ndarray) -> float:
    val = float(aggregator(f.copy()))
    if not np.isfinite(val):
        raise AssertionError(f"aggregator returned a non-finite value {val!r} for losses {f!r}")
    return val


def _slack(rtol: float, *vals: Any) -> float:
    scale = max([1.0] + [float(np.max(np.abs(v))) for v in vals])
    return rtol * scale


def check_monotone(aggregator: Aggregator, losses: Any, increase: Any, *, rtol: float = 1e-9) -> None:
    """``f <= g`` elementwise implies ``A(f) <= A(g)``; here ``g = f + |increase|``."""
    _callable(aggregator)
    f = as_vector(losses, "losses")
    d = np.abs(as_vector(increase, "increase"))
    if d.shape != f.shape:
        raise FairtheoryValueError(f"increase must have shape {f.shape}, got {d.shape}")
    rtol = check_in_range(rtol, "rtol", low=0.0)
    with np.errstate(over="ignore"):
        g = _derived(f + d, "losses + |increase|")
    a, b = _agg(aggregator, f), _agg(aggregator, g)
    if a > b + _slack(rtol, f, g, a, b):
        raise AssertionError(f"not monotone: A(f) = {a!r} > A(g) = {b!r} with g = f + {d!r} >= f = {f!r}")


def check_translation_equivariant(aggregator: Aggregator, losses: Any, shift: float, *,
                                  rtol: float = 1e-9) -> None:
    """``A(f + c 1) = A(f) + c``."""
    _callable(aggregator)
    f = as_vector(losses, "losses")
    c = check_in_range(shift, "shift")
    rtol = check_in_range(rtol, "rtol", low=0.0)
    with np.errstate(over="ignore"):
        fc = _derived(f + c, "losses + shift")
    a, b = _agg(aggregator, f), _agg(aggregator, fc)
    if abs(b - (a + c)) > _slack(rtol, f, fc, a, b):
        raise AssertionError(f"not translation equivariant: A(f + {c!r}) = {b!r} != A(f) + c = {a + c!r}")


def check_positively_homogeneous(aggregator: Aggregator, losses: Any, scale: float, *,
                                 rtol: float = 1e-9) -> None:
    """``A(s f) = s A(f)`` for ``s >= 0``."""
    _callable(aggregator)
    f = as_vector(losses, "losses")
    s = check_in_range(scale, "scale", low=0.0)
    rtol = check_in_range(rtol, "rtol", low=0.0)
    with np.errstate(over="ignore"):
        sf = _derived(s * f, "scale * losses")
    a, b = _agg(aggregator, f), _agg(aggregator, sf)
    if abs(b - s * a) > _slack(rtol, f, sf, a, b):
        raise AssertionError(f"not positively homogeneous: A({s!r} f) = {b!r} != {s!r} A(f) = {s * a!r}")


def check_convex_in_losses(aggregator: Aggregator, f: Any, g: Any, t: float, *, rtol: float = 1e-9) -> None:
    """``A(t f + (1 - t) g) <= t A(f) + (1 - t) A(g)`` for ``t in [0, 1]``."""
    _callable(aggregator)
    fa = as_vector(f, "f")
    ga = as_vector(g, "g")
    if fa.shape != ga.shape:
        raise FairtheoryValueError(f"f and g must have the same shape, got {fa.shape} and {ga.shape}")
    t = check_in_range(t, "t", low=0.0, high=1.0)
    rtol = check_in_range(rtol, "rtol", low=0.0)
    mid = t * fa + (1.0 - t) * ga
    a, b, m = _agg(aggregator, fa), _agg(aggregator, ga), _agg(aggregator, mid)
    rhs = t * a + (1.0 - t) * b
    if m > rhs + _slack(rtol, fa, ga, a, b, m):
        raise AssertionError(f"not convex: A(t f + (1-t) g) = {m!r} > t A(f) + (1-t) A(g) = {rhs!r} "
                             f"(t = {t!r}, f = {fa!r}, g = {ga!r})")


def check_between_mean_and_max(aggregator: Aggregator, losses: Any, p: Any, *, rtol: float = 1e-9) -> None:
    """``sum_i p_i f_i <= A(f) <= max_{i: p_i > 0} f_i`` (sandwich of a fairness-aware objective
    between FedAvg and AFL, e.g. ``Q_alpha`` with any admissible ``alpha``)."""
    _callable(aggregator)
    f = as_vector(losses, "losses")
    pp = check_probability_vector(p, "p")
    if pp.shape != f.shape:
        raise FairtheoryValueError(f"p must have shape {f.shape}, got {pp.shape}")
    rtol = check_in_range(rtol, "rtol", low=0.0)
    a = _agg(aggregator, f)
    mean, top = float(pp @ f), float(f[pp > 0].max())
    sl = _slack(rtol, f, a)
    if not mean - sl <= a <= top + sl:
        raise AssertionError(f"A(f) = {a!r} is outside [p-mean, max] = [{mean!r}, {top!r}]")
