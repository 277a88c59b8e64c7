r"""Seeded generators of heterogeneous federated problems (all randomness from an explicit ``rng``).

* :func:`random_logistic` - binary logistic clients with client-specific feature shifts and true
  models, labels drawn from the logistic model plus label flips; every client's data is certified
  **non-separable** (so every ``f_i`` - and hence ``f_alpha`` - attains its minimum; 002 Assump. 1-2
  hold with the constants of :class:`~fairtheory.problems.logistic.LogisticProblem`).
* :func:`random_least_squares` - linear-regression clients with client-specific shifts and models.
* :func:`digits_federated` - scikit-learn's bundled 8x8 digits (no download), a binary task
  (``a`` vs ``b``) or one-vs-rest over all ten digits, split across ``n`` clients by label with a
  ``Dirichlet(alpha)`` partition (the usual non-IID benchmark protocol), standardised features plus an
  intercept column.  Used for the qualitative worst-client reproduction (002 Table 3, qualitative).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from fairtheory._validation import FairtheoryValueError, check_in_range, check_integer, check_rng
from fairtheory.problems.base import as_data_array
from fairtheory.problems.least_squares import LeastSquaresProblem
from fairtheory.problems.logistic import LogisticProblem

__all__ = ["random_logistic", "random_least_squares", "digits_federated", "separable"]


def separable(X: Any, y: Any, *, tol: float = 1e-9) -> bool:
    r"""Whether labelled data admit a direction ``v`` with ``y_j x_j^T v >= 0`` for all ``j`` and
    ``> 0`` for some ``j`` - exactly when the (unregularised) logistic loss has no minimiser.

    Decided by the LP ``max sum_j y_j x_j^T v`` s.t. ``y_j x_j^T v >= 0``, ``-1 <= v <= 1`` (HiGHS):
    separable iff its value exceeds ``tol * sum_j ||x_j||_1``."""
    from scipy.optimize import linprog

    Xa = as_data_array(X, "X", allow_empty=True)
    ya = as_data_array(y, "y", allow_empty=True)
    if Xa.ndim != 2 or ya.shape != (Xa.shape[0],):
        raise FairtheoryValueError(f"X must be (N, d) and y (N,), got {Xa.shape} and {ya.shape}")
    A = ya[:, None] * Xa
    res = linprog(-A.sum(axis=0), A_ub=-A, b_ub=np.zeros(A.shape[0]), bounds=(-1, 1), method="highs")
    if res.status != 0:  # pragma: no cover - the LP is always feasible (v = 0) and bounded
        raise FairtheoryValueError(f"separability LP failed: {res.message}")
    return bool(-res.fun > tol * max(1.0, float(np.abs(Xa).sum())))


#: largest data set the generators build: rows x (features + 1) float64 entries (2^31 entries = 16 GiB);
#: beyond it they refuse up front instead of failing in numpy's allocator (MemoryError) or the OOM killer
MAX_ENTRIES = 2**31


def _sizes(m: int | Sequence[int], n: int, low: int, d: int = 1) -> np.ndarray:
    """Client sizes from ``m`` (one integer or ``n`` of them), refused beyond :data:`MAX_ENTRIES`."""
    if np.ndim(m) == 0:
        m_int = check_integer(m, "m", low=low)
        if n * m_int * (d + 1) > MAX_ENTRIES:
            raise FairtheoryValueError(f"n * m * (d + 1) = {n * m_int * (d + 1)} data entries exceed the generators' "
                                       f"limit MAX_ENTRIES = {MAX_ENTRIES}: use smaller n, m or d")
        sizes = np.full(n, m_int)
    else:
        sizes = as_data_array(m, "m", allow_empty=True)
        if sizes.shape != (n,) or np.any(sizes != np.round(sizes)) or sizes.min() < low:
            raise FairtheoryValueError(f"m must be an integer >= {low} or {n} such integers, got {m!r}")
        if float(sizes.sum()) * (d + 1) > MAX_ENTRIES:
            raise FairtheoryValueError(f"sum(m) * (d + 1) data entries exceed the generators' limit MAX_ENTRIES = "
                                       f"{MAX_ENTRIES}: use smaller n, m or d")
    return sizes.astype(np.int64)


def random_logistic(
    n: int, d: int, m: int | Sequence[int], *, rng: np.random.Generator, heterogeneity: float = 1.0,
    flip: float = 0.1, scale: float = 2.0, l2: float = 0.0, intercept: bool = True, p: Any = None,
    max_tries: int = 50,
) -> LogisticProblem:
    r"""Heterogeneous, non-separable binary logistic clients.

    Client ``i`` draws ``x ~ N(h c_i, I)`` with shift ``c_i ~ N(0, I)`` (``h`` = ``heterogeneity``), a
    true model ``w_i = w_0 + (h/2) N(0, I)`` with ``w_0 ~ N(0, (scale^2/d) I)``, labels
    ``y = +1`` w.p. ``sigma(x^T w_i)`` and then flips each label w.p. ``flip``.  With ``intercept`` the
    last feature is the constant 1 (so ``d - 1`` random features).  Each client's data is checked with
    :func:`separable`; a separable client gets fresh labels (at most ``max_tries`` times, else a
    :class:`FairtheoryValueError` asks for more samples per client).

    Parameters
    ----------
    n, d : int
        Clients and model dimension (``d >= 2`` with an intercept).
    m : int or sequence of n ints
        Samples per client (>= 2; comfortably above ``d`` for non-separability).
    rng : numpy.random.Generator
    heterogeneity, flip, scale, l2 : float
    p : array_like, optional
        Client weights; default ``m_i / sum m``.
    """
    n = check_integer(n, "n", low=1)
    rng = check_rng(rng)
    d = check_integer(d, "d", low=2 if intercept else 1)
    h = check_in_range(heterogeneity, "heterogeneity", low=0.0)
    flip = check_in_range(flip, "flip", low=0.0, high=0.5)
    scale = check_in_range(scale, "scale", low=0.0)
    max_tries = check_integer(max_tries, "max_tries", low=1)
    sizes = _sizes(m, n, 2, d)
    dr = d - 1 if intercept else d
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    seg = np.repeat(np.arange(n), sizes)
    shift = h * rng.normal(size=(n, dr))
    Xr = shift[seg] + rng.normal(size=(offsets[-1], dr))
    X = np.hstack([Xr, np.ones((offsets[-1], 1))]) if intercept else Xr
    w_true = scale / np.sqrt(d) * rng.normal(size=d) + 0.5 * h * rng.normal(size=(n, d))

    def labels(rows: np.ndarray, who: np.ndarray) -> np.ndarray:
        z = np.einsum("rd,rd->r", X[rows], w_true[who])
        yy = np.where(rng.uniform(size=rows.size) < 1.0 / (1.0 + np.exp(-z)), 1.0, -1.0)
        return np.where(rng.uniform(size=rows.size) < flip, -yy, yy)

    y = labels(np.arange(offsets[-1]), seg)
    for i in range(n):  # generator-time certification (not a hot path)
        rows = np.arange(offsets[i], offsets[i + 1])
        for _ in range(max_tries):
            if not separable(X[rows], y[rows]):
                break
            y[rows] = labels(rows, np.full(rows.size, i))
        else:
            raise FairtheoryValueError(
                f"client {i} stayed linearly separable after {max_tries} label draws (m_i = {sizes[i]}, "
                f"d = {d}): use more samples per client or a larger flip"
            )
    return LogisticProblem(X, y, offsets, p=p, l2=l2)


def random_least_squares(
    n: int, d: int, m: int | Sequence[int], *, rng: np.random.Generator, heterogeneity: float = 1.0,
    noise: float = 0.1, p: Any = None,
) -> LeastSquaresProblem:
    r"""Heterogeneous linear-regression clients: ``x ~ N(h c_i, I)``, ``y = x^T w_i + noise * N(0, 1)``
    with ``w_i = w_0 + h N(0, I)``, ``w_0 ~ N(0, I)``."""
    n = check_integer(n, "n", low=1)
    rng = check_rng(rng)
    d = check_integer(d, "d", low=1)
    h = check_in_range(heterogeneity, "heterogeneity", low=0.0)
    noise = check_in_range(noise, "noise", low=0.0)
    sizes = _sizes(m, n, 1, d)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    seg = np.repeat(np.arange(n), sizes)
    X = (h * rng.normal(size=(n, d)))[seg] + rng.normal(size=(offsets[-1], d))
    w_true = rng.normal(size=d) + h * rng.normal(size=(n, d))
    y = np.einsum("rd,rd->r", X, w_true[seg]) + noise * rng.normal(size=offsets[-1])
    return LeastSquaresProblem(X, y, offsets, p=p)


def digits_federated(
    n: int, *, rng: np.random.Generator, alpha_dirichlet: float = 0.5,
    classes: tuple[int, int] | str = (3, 8), positive: int = 0, l2: float = 1e-2, min_samples: int = 5,
    max_tries: int = 1000,
) -> LogisticProblem:
    r"""scikit-learn digits split across ``n`` clients by a label-wise ``Dirichlet(alpha)`` partition.

    ``classes=(a, b)``: the binary task ``a`` (label +1) vs ``b`` (label -1) on those samples;
    ``classes="all"``: all 1797 samples, one-vs-rest with ``positive`` as +1.  For every original
    digit, its (shuffled) samples are split among the clients with proportions drawn from
    ``Dirichlet(alpha_dirichlet * 1_n)``; the draw is repeated until every client has at least
    ``min_samples`` samples.  Features are standardised with the pooled mean and standard deviation
    (constant pixels dropped) and a constant intercept column is appended.

    ``l2`` defaults to ``1e-2`` because digit pairs are often linearly separable, in which case the
    unregularised loss has no minimiser.  The returned problem carries ``info`` (dict: raw digit
    labels per row, kept pixel columns, classes).
    """
    from sklearn.datasets import load_digits

    n = check_integer(n, "n", low=1)
    rng = check_rng(rng)
    a = check_in_range(alpha_dirichlet, "alpha_dirichlet", low=0.0, low_inclusive=False)
    min_samples = check_integer(min_samples, "min_samples", low=1)
    max_tries = check_integer(max_tries, "max_tries", low=1)
    data = load_digits()
    X_all, lab_all = data.data.astype(np.float64), data.target.astype(np.int64)
    if isinstance(classes, str):
        if classes != "all":
            raise FairtheoryValueError(f"classes must be a pair of digits or 'all', got {classes!r}")
        positive = check_integer(positive, "positive", low=0, high=9)
        keep = np.ones(lab_all.size, dtype=bool)
        y_all = np.where(lab_all == positive, 1.0, -1.0)
    else:
        if len(classes) != 2 or classes[0] == classes[1]:
            raise FairtheoryValueError(f"classes must be two different digits, got {classes!r}")
        ca, cb = (check_integer(c, "classes[k]", low=0, high=9) for c in classes)
        keep = np.isin(lab_all, (ca, cb))
        y_all = np.where(lab_all == ca, 1.0, -1.0)
    X, y, lab = X_all[keep], y_all[keep], lab_all[keep]
    if n * min_samples > lab.size:
        raise FairtheoryValueError(
            f"n * min_samples = {n * min_samples} exceeds the {lab.size} available samples")
    owner = np.empty(lab.size, dtype=np.int64)
    for _ in range(max_tries):
        for c in np.unique(lab):
            idx = rng.permutation(np.flatnonzero(lab == c))
            cuts = (np.cumsum(rng.dirichlet(np.full(n, a)))[:-1] * idx.size).astype(np.int64)
            owner[idx] = np.repeat(np.arange(n), np.diff(np.concatenate([[0], cuts, [idx.size]])))
        if np.bincount(owner, minlength=n).min() >= min_samples:
            break
    else:
        raise FairtheoryValueError(
            f"no Dirichlet({a}) partition gave every one of {n} clients >= {min_samples} samples in "
            f"{max_tries} draws: raise alpha_dirichlet or lower n / min_samples")
    order = np.argsort(owner, kind="stable")
    X, y, lab, owner = X[order], y[order], lab[order], owner[order]
    sd = X.std(axis=0)
    cols = np.flatnonzero(sd > 0)
    Xs = (X[:, cols] - X[:, cols].mean(axis=0)) / sd[cols]
    Xs = np.hstack([Xs, np.ones((Xs.shape[0], 1))])
    offsets = np.concatenate([[0], np.cumsum(np.bincount(owner, minlength=n))])
    prob = LogisticProblem(Xs, y, offsets, l2=l2)
    prob.info = {"digit": lab, "pixels": cols, "classes": classes, "positive": positive}
    return prob
