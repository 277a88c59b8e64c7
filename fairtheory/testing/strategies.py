r"""Hypothesis strategies for fairness-aware FL objects (public; keyword-only, validated arguments).

Every strategy validates its arguments when it is *called* (not when examples are drawn) and raises
:class:`fairtheory._validation.FairtheoryValueError` / ``FairtheoryTypeError`` naming the argument, the
value and the allowed range.  Sizes: pass ``n`` for a fixed number of clients, else ``n`` is drawn from
``[min_n, max_n]``.  All arrays are float64 numpy arrays.

Edge cases are drawn on purpose (that is what these strategies are for):

* :func:`probability_vectors` - uniform, random, one-hot, zero entries (if allowed) and extreme weight
  ratios down to ``1e-12`` (random draws go down to ``1e-300``); always sums to one up to rounding
  (``check_probability_vector`` accepts it).  Positive entries are never subnormal: ``check_alpha``
  raises ``alpha`` to the smallest normal float, which changes the cap ``p_i/alpha_i`` of a client with
  a subnormal ``p_i``.
* :func:`loss_vectors` - ties (values drawn from a pool of 1-3 values), the interval ends, tiny values
  (``min_value + 1e-300``-scale offsets, subnormal-free) and the largest allowed value.
* :func:`qalpha_instances` - ``(p, alpha, losses)`` with ``alpha_i in [p_i, 1]``, including both ends
  (FedAvg ``alpha = 1`` and AFL ``alpha = p``); clients with ``p_i = 0`` get some ``alpha_i > 0``.
* :func:`capped_simplices` - simplex, CVaR sets, ``Q_alpha`` caps, singletons and random caps
  (including caps of zero, caps above one and caps summing to exactly one).
* :func:`integrated_sets` - ``Lambda_phi(A, B)`` with ``phi`` in ``[0, 0.99]`` including 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError, check_in_range
from fairtheory.sets import CappedSimplex, IntegratedSet

__all__ = ["probability_vectors", "loss_vectors", "qalpha_instances", "capped_simplices", "integrated_sets"]

#: smallest weight ratio drawn by the "extreme" probability vectors
EXTREME_RATIO_EXP = 12
#: smallest positive raw weight of the "random" probability vectors (normalised entries stay normal floats)
MIN_WEIGHT = 1e-300


def _int_arg(x: Any, name: str, low: int) -> int:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        raise FairtheoryTypeError(f"{name} must be an integer, got {x!r}")
    if int(x) < low:
        raise FairtheoryValueError(f"{name} must be >= {low}, got {x!r}")
    return int(x)


def _sizes(n: Any, min_n: Any, max_n: Any) -> st.SearchStrategy[int]:
    """Validate the size arguments; a strategy for ``n``."""
    if n is not None:
        return st.just(_int_arg(n, "n", 1))
    lo = _int_arg(min_n, "min_n", 1)
    hi = _int_arg(max_n, "max_n", 1)
    if lo > hi:
        raise FairtheoryValueError(f"min_n must be <= max_n, got min_n={lo} and max_n={hi}")
    return st.integers(lo, hi)


def _bool_arg(x: Any, name: str) -> bool:
    if not isinstance(x, (bool, np.bool_)):
        raise FairtheoryTypeError(f"{name} must be True or False, got {x!r}")
    return bool(x)


# --------------------------------------------------------------------------- probability vectors
@st.composite
def _prob(draw: Any, n: int, allow_zeros: bool) -> np.ndarray:
    kinds = ["uniform", "random", "extreme"] + (["onehot", "sparse"] if allow_zeros else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "uniform":
        return np.full(n, 1.0 / n)
    if kind == "onehot":
        w = np.zeros(n)
        w[draw(st.integers(0, n - 1))] = 1.0
        return w
    if kind == "extreme":  # weights 10^e, e in [-12, 0]: ratios up to 1e12
        e = draw(st.lists(st.integers(-EXTREME_RATIO_EXP, 0), min_size=n, max_size=n))
        w = 10.0 ** np.asarray(e, dtype=np.float64)
    else:
        # positive weights >= MIN_WEIGHT keep every normalised p_i a normal float (no subnormals)
        elem = st.floats(MIN_WEIGHT, 1.0, allow_nan=False, allow_infinity=False)
        if allow_zeros:
            elem = st.one_of(st.just(0.0), elem)
        w = np.asarray(draw(st.lists(elem, min_size=n, max_size=n)), dtype=np.float64)
        if kind == "sparse":
            w[np.asarray(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)] = 0.0
    if not w.sum() > 0:
        w[draw(st.integers(0, n - 1))] = 1.0
    return w / w.sum()


def probability_vectors(
    *, n: int | None = None, min_n: int = 1, max_n: int = 20, allow_zeros: bool = True
) -> st.SearchStrategy[np.ndarray]:
    """Probability vectors ``p`` (``p_i >= 0``, ``sum p = 1`` up to rounding), shape ``(n,)``.

    Parameters
    ----------
    n : int, optional
        Fixed length ``>= 1``; otherwise drawn from ``[min_n, max_n]`` (``1 <= min_n <= max_n``).
    allow_zeros : bool
        Whether entries may be exactly zero (one-hot and sparse vectors).  If False every entry is
        ``> 0``.  Positive entries are normal floats (``>= 1e-300 / n``), never subnormal.
    """
    sizes = _sizes(n, min_n, max_n)
    allow = _bool_arg(allow_zeros, "allow_zeros")
    return sizes.flatmap(lambda k: _prob(k, allow))


# --------------------------------------------------------------------------- loss vectors
def _specials(lo: float, hi: float) -> list[float]:
    span = hi - lo
    cand = [lo, hi, lo + 0.5 * span, lo + 1e-12 * span, lo + 1e-300, 1e-300, 1e-12, 1.0, hi - 1e-12 * span]
    out = sorted({float(c) for c in cand if lo <= c <= hi and np.isfinite(c)})
    return out


@st.composite
def _losses(draw: Any, n: int, elem: st.SearchStrategy[float], ties: bool) -> np.ndarray:
    if ties and draw(st.booleans()):
        k = draw(st.integers(1, max(1, min(3, n))))
        pool = draw(st.lists(elem, min_size=k, max_size=k))
        idx = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
        return np.asarray([pool[i] for i in idx], dtype=np.float64)
    return np.asarray(draw(st.lists(elem, min_size=n, max_size=n)), dtype=np.float64)


def loss_vectors(
    *,
    n: int | None = None,
    min_n: int = 1,
    max_n: int = 20,
    min_value: float = 0.0,
    max_value: float = 1e6,
    ties: bool = True,
    extreme: bool = True,
) -> st.SearchStrategy[np.ndarray]:
    """Client-loss vectors with entries in ``[min_value, max_value]``, shape ``(n,)``.

    Parameters
    ----------
    n, min_n, max_n : int
        As in :func:`probability_vectors`.
    min_value, max_value : float
        Finite bounds with ``min_value <= max_value`` and a finite difference.
    ties : bool
        If True, about half the examples draw their entries from a pool of 1-3 values (ties, constant
        vectors).
    extreme : bool
        If True, entries are mixed with the interval ends and tiny/huge special values
        (``1e-300``-scale offsets above ``min_value``, ``max_value``).
    """
    sizes = _sizes(n, min_n, max_n)
    lo = check_in_range(min_value, "min_value")
    hi = check_in_range(max_value, "max_value")
    if lo > hi:
        raise FairtheoryValueError(f"min_value must be <= max_value, got {lo!r} > {hi!r}")
    if not np.isfinite(hi - lo):
        raise FairtheoryValueError(f"max_value - min_value must be finite, got {hi!r} - {lo!r}")
    t = _bool_arg(ties, "ties")
    elem: st.SearchStrategy[float] = st.floats(lo, hi, allow_nan=False, allow_infinity=False,
                                               allow_subnormal=False)
    if _bool_arg(extreme, "extreme"):
        elem = st.one_of(elem, st.sampled_from(_specials(lo, hi)))
    return sizes.flatmap(lambda k: _losses(k, elem, t))


# --------------------------------------------------------------------------- Q_alpha instances
_UNIT = st.one_of(st.sampled_from([0.0, 1.0]), st.floats(0.0, 1.0, allow_nan=False, allow_subnormal=False))


@st.composite
def _qalpha(draw: Any, n: int, scalar: bool) -> tuple[np.ndarray, Any, np.ndarray]:
    p = draw(_prob(n, True))
    losses = draw(_losses(n, st.one_of(st.floats(0.0, 1e6, allow_nan=False, allow_subnormal=False),
                                       st.sampled_from(_specials(0.0, 1e6))), True))
    if scalar:
        lo = float(p.max())
        alpha: Any = min(lo + draw(_UNIT) * (1.0 - lo), 1.0)
        return p, alpha, losses
    t = np.asarray(draw(st.lists(_UNIT, min_size=n, max_size=n)), dtype=np.float64)
    a = np.minimum(p + t * (1.0 - p), 1.0)
    a = np.where(a > 0, a, 1.0)  # p_i = 0 and t_i = 0: any alpha_i > 0 is admissible
    return p, a, losses


def qalpha_instances(
    *, n: int | None = None, min_n: int = 1, max_n: int = 20, scalar_alpha: bool = False
) -> st.SearchStrategy[tuple[np.ndarray, Any, np.ndarray]]:
    """Instances ``(p, alpha, losses)`` of RC-FL's ``Q_alpha`` objective (002 Def. 1).

    ``p`` from :func:`probability_vectors` (zeros allowed), ``alpha_i = p_i + t_i (1 - p_i)`` with
    ``t_i in [0, 1]`` (ends included, so FedAvg ``alpha = 1`` and AFL ``alpha = p`` occur), ``losses``
    from :func:`loss_vectors` on ``[0, 1e6]``.  With ``scalar_alpha=True`` ``alpha`` is a float in
    ``[max p, 1]``.
    """
    sizes = _sizes(n, min_n, max_n)
    sc = _bool_arg(scalar_alpha, "scalar_alpha")
    return sizes.flatmap(lambda k: _qalpha(k, sc))


# --------------------------------------------------------------------------- sets
@st.composite
def _capped(draw: Any, n: int) -> CappedSimplex:
    kind = draw(st.sampled_from(["simplex", "cvar", "qalpha", "singleton", "random"]))
    if kind == "simplex":
        return CappedSimplex.simplex(n)
    if kind == "cvar":
        a = draw(st.one_of(st.sampled_from([1.0, 1.0 / n, 0.5]), st.floats(1e-3, 1.0)))
        return CappedSimplex.cvar(n, a)
    if kind == "qalpha":
        p, alpha, _ = draw(_qalpha(n, False))
        return CappedSimplex.qalpha(p, alpha)
    if kind == "singleton":
        return CappedSimplex.singleton(draw(_prob(n, True)))
    raw = np.asarray(draw(st.lists(st.floats(0.0, 1.0, allow_subnormal=False), min_size=n, max_size=n)),
                     dtype=np.float64)
    if not raw.sum() > 0:
        raw[draw(st.integers(0, n - 1))] = 1.0
    scale = draw(st.one_of(st.just(1.0), st.floats(1.0, 3.0)))
    return CappedSimplex(raw * (scale / raw.sum()))


def capped_simplices(
    *, n: int | None = None, min_n: int = 1, max_n: int = 20
) -> st.SearchStrategy[CappedSimplex]:
    """:class:`~fairtheory.sets.CappedSimplex` instances of dimension ``n``.

    Kinds: the simplex, CVaR sets ``C(a)`` (``a`` in ``[1e-3, 1]``, ends included), ``Q_alpha`` caps,
    singletons ``{p}`` (caps summing to exactly one) and random caps (zeros, caps above one, sum in
    ``[1, 3]``)."""
    return _sizes(n, min_n, max_n).flatmap(_capped)


@st.composite
def _integrated(draw: Any, n: int) -> IntegratedSet:
    A = draw(_capped(n))
    B = draw(_capped(n))
    phi = draw(st.one_of(st.sampled_from([0.0, 0.5, 0.9, 0.99]), st.floats(0.0, 0.99)))
    return IntegratedSet(A, B, phi)


def integrated_sets(
    *, n: int | None = None, min_n: int = 1, max_n: int = 8
) -> st.SearchStrategy[IntegratedSet]:
    """Integrated sets ``Lambda_phi(A, B)`` (001 eqs. 6-8, reconstructed) with ``A, B`` from
    :func:`capped_simplices` and ``phi in [0, 0.99]`` (0 included)."""
    return _sizes(n, min_n, max_n).flatmap(_integrated)
