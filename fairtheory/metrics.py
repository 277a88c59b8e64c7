"""Fairness measures of a client-loss (or accuracy) vector.

Each function takes a 1-D vector, validates it, and returns a float.  Sections are added per family
(q-FFL uniformity measures, relative-fairness inequality measures); do not define a measure twice.

Input policy: lists, tuples, numpy arrays of any real dtype and torch tensors are converted to float64
numpy (torch tensors are detached: the measures are not differentiable); booleans, complex numbers,
empty, 2-D and non-finite inputs raise a :class:`~fairtheory.errors.FairtheoryError` naming ``a``.
Every measure is computed on ``a / 2^e`` with ``2^e`` the power of two just above ``max |a|`` (exact, as
``np.hypot`` does), so entries anywhere in the float64 range give the correctly rounded value (the
scale-invariant measures never overflow; :func:`variance` raises only when the variance itself exceeds
the float64 range).
"""

from __future__ import annotations

import numpy as np

from fairtheory._validation import FairtheoryValueError, as_vector, check_in_range
from fairtheory.stable import pow2_exponent, times_pow2

__all__: list[str] = []


def _unit(arr: np.ndarray) -> tuple[np.ndarray, int]:
    """``(arr / 2^e, e)`` with ``max |arr / 2^e|`` in ``[0.5, 1)`` (exact; ``e = 0`` for a zero vector)."""
    top = float(np.max(np.abs(arr)))
    e = pow2_exponent(top) if top > 0 else 0
    return np.ldexp(arr, -e), e


# --------------------------------------------------------------------------------------------------
# q-FFL uniformity measures (003 App. A.1 Defs. 3-5; Tables 4-9: variance, angle, KL, worst/best 10%)
# --------------------------------------------------------------------------------------------------
__all__ += ["variance", "angle_cosine", "angle_degrees", "entropy", "kl_to_uniform",
            "worst_mean", "best_mean"]


def _nonneg(a: object, name: str, *, positive: bool = False, scaled: bool = True) -> np.ndarray:
    """``a`` validated (``>= 0``, positive sum; ``> 0`` with ``positive``) and, with ``scaled``, divided by
    a power of two into ``[0, 1)`` (the callers compute scale-invariant measures)."""
    arr = as_vector(a, name)
    if positive and np.any(arr <= 0):
        bad = int(np.argmin(arr))
        raise FairtheoryValueError(f"{name} must be > 0 here, got {arr[bad]!r} at index {bad}")
    if np.any(arr < 0):
        bad = int(np.argmin(arr))
        raise FairtheoryValueError(f"{name} must be >= 0, got {arr[bad]!r} at index {bad}")
    if not np.any(arr > 0):
        raise FairtheoryValueError(f"{name} must have a positive sum, got all zeros")
    return _unit(arr)[0] if scaled else arr


def variance(a: object) -> float:
    """003 Def. 3: population variance ``mean((a - mean a)^2)`` (``ddof = 0``); smaller = more uniform.

    The paper's tables report it for accuracies in percent (e.g. 724 for Synthetic, q = 0).  Raises
    :class:`~fairtheory.errors.FairtheoryValueError` when the variance exceeds the float64 range (spreads
    beyond about ``1e154``)."""
    b, e = _unit(as_vector(a, "a"))
    with np.errstate(under="ignore"):
        v = float(np.mean((b - b.mean()) ** 2))
    with np.errstate(over="ignore"):
        out = float(times_pow2(v, 2 * e))
    if not np.isfinite(out):
        raise FairtheoryValueError(f"the variance of a exceeds the float64 range (about 1.8e308): it is about "
                                   f"{v:.3g} * 2^{2 * e}")
    return out


def angle_cosine(a: object) -> float:
    """003 Def. 4: cosine between ``a >= 0`` and the all-ones vector, ``mean(a)/sqrt(mean(a^2))``.

    In ``(0, 1]``; larger = more uniform (1 iff all entries are equal)."""
    arr = _nonneg(a, "a")
    with np.errstate(under="ignore"):
        return float(min(1.0, arr.mean() / np.sqrt(np.mean(arr**2))))


def angle_degrees(a: object) -> float:
    """003 Tables 4-9 "Angle (deg)": ``arccos(angle_cosine(a))`` in degrees; smaller = more uniform."""
    return float(np.degrees(np.arccos(angle_cosine(a))))


def entropy(a: object) -> float:
    """003 Def. 5: Shannon entropy (natural log) of ``a / sum(a)`` for ``a >= 0`` (``0 log 0 = 0``).

    At most ``log m``; larger = more uniform."""
    arr = _nonneg(a, "a")
    with np.errstate(under="ignore"):
        q = arr / arr.sum()
    nz = q > 0
    return float(-np.sum(q[nz] * np.log(q[nz]))) + 0.0  # + 0.0: no -0.0 for a one-point distribution


def kl_to_uniform(a: object) -> float:
    """003 Tables 4-9 "KL(a||u)": ``sum_k q_k log(m q_k)`` with ``q = a/sum(a)``; equals
    ``log m - entropy(a)``; 0 iff uniform."""
    arr = _nonneg(a, "a")
    return float(max(0.0, np.log(arr.size) - entropy(arr)))


def _mean(x: np.ndarray) -> float:
    """Mean without overflow of the sum (computed on ``x / 2^e``, exact scaling)."""
    b, e = _unit(x)
    return float(times_pow2(b.mean(), e))


def _frac_count(m: int, k: float) -> int:
    k = check_in_range(k, "k", low=0.0, high=1.0, low_inclusive=False)
    return max(1, int(np.ceil(k * m - 1e-9)))


def worst_mean(a: object, k: float = 0.1, *, higher_is_better: bool = True) -> float:
    """Mean of the worst ``ceil(k m)`` entries (003 Table 1 "Worst 10%" with ``k = 0.1``).

    Worst = lowest when ``higher_is_better`` (accuracies), highest otherwise (losses)."""
    arr = np.sort(as_vector(a, "a"))
    c = _frac_count(arr.size, k)
    return _mean(arr[:c] if higher_is_better else arr[-c:])


def best_mean(a: object, k: float = 0.1, *, higher_is_better: bool = True) -> float:
    """Mean of the best ``ceil(k m)`` entries (003 Table 1 "Best 10%")."""
    arr = np.sort(as_vector(a, "a"))
    c = _frac_count(arr.size, k)
    return _mean(arr[-c:] if higher_is_better else arr[:c])


# --------------------------------------------------------------------------------------------------
# Relative-fairness inequality measures (001 Sec. 3.1, App. B, Table 1, Fig. 4, reconstructed).
# Top/bottom shares use the CVaR sets C(a) (fractional last entry), so
# they agree exactly with the relative unfairness index of fairtheory.objectives.relative.
# --------------------------------------------------------------------------------------------------
__all__ += ["gini", "lorenz_curve", "transformed_lorenz_curve", "relative_unfairness", "ratio_2020",
            "palma_ratio", "atkinson", "jain"]


def gini(a: object) -> float:
    r"""Gini coefficient of ``a >= 0`` (001 Table 1, "Gini coefficient for losses"):

    .. math:: G = \frac{\sum_{i,j} |a_i - a_j|}{2 m^2 \bar a}
              = \frac{2\sum_{k=1}^m k\, a_{(k)}}{m \sum_k a_k} - \frac{m + 1}{m}

    (population form, ``a_(k)`` ascending).  ``0`` iff all entries are equal; at most ``(m - 1)/m``.
    Equals twice the area between the diagonal and :func:`lorenz_curve`."""
    arr = np.sort(_nonneg(a, "a"))
    m = arr.size
    k = np.arange(1, m + 1, dtype=np.float64)
    with np.errstate(under="ignore"):
        return float(max(0.0, 2.0 * (k @ arr) / (m * arr.sum()) - (m + 1.0) / m))


def lorenz_curve(a: object) -> tuple[np.ndarray, np.ndarray]:
    """Lorenz curve of ``a >= 0``: points ``(k/m, sum of the k smallest / total)``, ``k = 0..m``.

    The cumulative share of the total held by the bottom fraction ``x`` (001 Sec. 7, Fig. 4);
    convex, from ``(0, 0)`` to ``(1, 1)``, on the diagonal iff all entries are equal."""
    arr = np.sort(_nonneg(a, "a"))
    x = np.arange(arr.size + 1, dtype=np.float64) / arr.size
    with np.errstate(under="ignore"):
        y = np.concatenate([[0.0], np.cumsum(arr) / arr.sum()])
    y[-1] = 1.0
    return x, y


def transformed_lorenz_curve(a: object) -> tuple[np.ndarray, np.ndarray]:
    r"""Transformed Lorenz curve ``T(x) = 1 - 2 (x - L(x))`` (001 Sec. 7, Fig. 4; the transform's
    formula was lost - reconstruction).

    Chosen so that, as the surviving text says, the area above the curve (inside the unit square) is
    the Gini coefficient: ``int_0^1 (1 - T) dx = 2 int_0^1 (x - L) dx = G``.  ``T = 1`` everywhere
    iff all entries are equal; ``T(0) = T(1) = 1``."""
    x, y = lorenz_curve(a)
    return x, 1.0 - 2.0 * (x - y)


def relative_unfairness(a: object, top: float = 0.2, bottom: float = 0.2) -> float:
    r"""Mean of the largest ``top`` fraction over the mean of the smallest ``bottom`` fraction of ``a``:
    the relative unfairness index ``I(a; C(top), C(bottom))`` (001 Def. 1 with CVaR sets, Table 1's
    "worst-20% loss / best-20% loss" for ``top = bottom = 0.2``; reconstructed).

    Fractions use the CVaR convention (``top * m`` entries, fractional last entry); ``top`` and
    ``bottom`` lie in ``(0, 1]``.  Needs ``a >= 0`` with a positive bottom mean."""
    from fairtheory.objectives.relative import relative_index
    from fairtheory.sets import CappedSimplex

    top = check_in_range(top, "top", low=0.0, high=1.0, low_inclusive=False)
    bottom = check_in_range(bottom, "bottom", low=0.0, high=1.0, low_inclusive=False)
    arr = _nonneg(a, "a", scaled=False)  # the set supports do not overflow on nonnegative vectors
    try:
        return relative_index(arr, CappedSimplex.cvar(arr.size, top), CappedSimplex.cvar(arr.size, bottom))
    except FairtheoryValueError as exc:
        if "Assumption 1" not in str(exc):
            raise
        raise FairtheoryValueError(f"a must have a positive mean over its bottom {bottom!r} fraction "
                                   "(the denominator of the index), got 0") from exc


def ratio_2020(a: object) -> float:
    """20:20 ratio (Cobham and Sumner 2013; 001 Sec. 3.1, App. B): mean (equivalently share) of the
    top 20% over that of the bottom 20%; ``relative_unfairness(a, 0.2, 0.2)``."""
    return relative_unfairness(a, 0.2, 0.2)


def palma_ratio(a: object) -> float:
    """Palma ratio (Cobham and Sumner 2013; 001 Sec. 3.1, App. B): *share* of the top 10% over the
    *share* of the bottom 40%.

    Shares differ from means by the group sizes, so the relative unfairness index with
    ``A = C(0.1)``, ``B = C(0.4)`` (a ratio of means) equals ``4 * palma_ratio(a)``."""
    return relative_unfairness(a, 0.1, 0.4) / 4.0


def atkinson(a: object, epsilon: float = float("inf")) -> float:
    r"""Atkinson index ``1 - EDE/mean`` with inequality aversion ``epsilon >= 0`` (Atkinson 1970;
    001 Sec. 3.1, App. B):

    ``EDE = (mean a^(1-eps))^(1/(1-eps))`` for ``eps != 1``, the geometric mean for ``eps = 1`` and
    ``min a`` for ``eps = inf`` (infinite aversion, the default).  For ``eps = inf`` the relative
    unfairness index with ``A = {uniform}``, ``B = Delta_m`` is ``mean/min = 1/(1 - atkinson)``.
    Entries must be ``> 0`` when ``eps >= 1``."""
    if isinstance(epsilon, (float, np.floating)) and epsilon == np.inf:
        eps = float("inf")
    else:
        eps = check_in_range(epsilon, "epsilon", low=0.0)
    try:
        arr = _nonneg(a, "a", positive=eps >= 1)
    except FairtheoryValueError as exc:
        if "must be > 0 here" not in str(exc):
            raise
        raise FairtheoryValueError(f"a must be > 0 for epsilon >= 1 ({str(exc)[len('a must be > 0 here, '):]})") from exc
    mean = arr.mean()  # arr is scaled into [0, 1): no overflow; EDE/mean is scale invariant
    # EDE = b exp(log(mean r^(1-eps)) / (1 - eps)) with r = a/b, b = min a (eps > 1) or max a (eps < 1), so
    # that y = (1 - eps) log r <= 0 with max y = 0; log(mean e^y) as log1p(mean expm1(y)) keeps the
    # limits eps -> 1 (geometric mean) and eps -> inf (min a, e.g. eps = 1e300) instead of rounding them
    # away (eps = 1e300 gave EDE = 0, atkinson 1); entries a_i = 0 (eps < 1) give y = -inf, e^y = 0
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        if eps == float("inf"):
            ede = arr.min()
        elif eps == 1.0:
            ede = np.exp(np.mean(np.log(arr)))
        elif eps > 1.0 and arr.min() == 0.0:  # a_i > 0 vanished in the scaling: EDE/mean < 2^-1074
            ede = 0.0
        else:
            b = arr.min() if eps > 1.0 else arr.max()
            y = (1.0 - eps) * np.log(arr / b)
            y = np.where(arr / b == 1.0, 0.0, y)  # 0 * inf at eps = 1 +- tiny: the base entry has y = 0
            lm = float(np.log1p(np.mean(np.expm1(y))))
            ede = b * np.exp(lm / (1.0 - eps))
    return float(min(1.0, max(0.0, 1.0 - ede / mean)))


def jain(a: object) -> float:
    r"""Jain's fairness index ``(sum a)^2 / (m sum a^2)`` of ``a >= 0`` (Jain et al. 1984): in
    ``[1/m, 1]``, ``1`` iff all entries are equal.  Equals ``angle_cosine(a)**2``."""
    arr = _nonneg(a, "a")
    with np.errstate(under="ignore"):
        return float(min(1.0, arr.sum() ** 2 / (arr.size * (arr @ arr))))
