r"""TERM, tilted empirical risk (Li, Beirami, Sanjabi, Smith, ICLR 2021).

.. math:: \mathrm{TERM}_t(f) = \frac{1}{t} \log \sum_i p_i e^{t f_i}, \qquad t > 0,

computed stably as ``max f + (1/t) log1p(sum_i p_i expm1(t (f_i - max f)))`` (the sum over the clients
with ``p_i > 0``; ``log1p``/``expm1`` keep the small-``t`` limit exact where ``exp`` would round
``e^{t d}`` to one) while that sum ``s`` is ``>= -1/2``, and as ``max f + (1/t) log sum_i p_i e^{t (f_i - max f)}``
when ``s < -1/2`` (there ``1 + s`` would cancel: the maximum's weight may be tiny).
Both give ``log S`` to ``~ n eps`` absolutely (S = sum_i p_i e^{t (f_i - max f)}).  ``t -> 0`` gives the
``p``-mean (FedAvg objective), ``t -> infinity`` the maximum over clients with ``p_i > 0`` (AFL).
For ``t > 0`` it is monotone, translation equivariant and convex in the loss vector (a log-sum-exp),
but not positively homogeneous - the showcase "new objective" of the property-testing kit
(:mod:`fairtheory.testing`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fairtheory._validation import as_vector, check_positive, check_probability_vector, check_same_shape

__all__ = ["term"]


def term(losses: Any, p: Any, t: float) -> float:
    """``(1/t) log sum_i p_i exp(t f_i)`` for tilt ``t > 0`` (exact limits at small/large ``t``).

    ``losses`` and ``p``: lists, tuples, numpy arrays of any real dtype or torch tensors (converted to
    float64 numpy, detached: not differentiable); booleans, nan and inf are rejected.  The value lies
    between the ``p``-mean and the maximum, so it always fits a float64."""
    f = as_vector(losses, "losses")
    w = check_probability_vector(p, "p")
    check_same_shape(f, w, "losses", "p")
    t = check_positive(t, "t")
    support = w > 0
    fs = f[support]
    fmax = float(fs.max())
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        # d = f - max f <= 0 may overflow to -inf (losses of both signs near the float range): e^{-inf} = 0
        x = t * (fs - fmax)
        far = ~np.isfinite(x)  # f - max f overflowed: t f - t max f is finite when t is small enough
        x[far] = t * fs[far] - t * fmax
        s = float(w[support] @ np.expm1(x))  # in [-1, 0]: the maximum contributes 0
    if s >= -0.5:
        # S = 1 + s in [1/2, 1]: s is a sum of terms <= 0 (relative error ~ n eps), and log1p(s) moves by at
        # most 2 |ds|, so the value is accurate to ~ n eps / t absolutely, the small-t limit included
        return fmax + float(np.log1p(s)) / t
    # S = sum_i p_i e^{x_i} < 1/2, as small as the maximum's weight p_k (e.g. 1e-300): 1 + s cancels and its
    # absolute rounding (1e-16) can exceed S itself (f = (0, 0, 12), p_3 tiny, t = 3 gave A = -0.0146 < mean).
    # Summed directly, S has positive terms (relative error ~ n eps) and S >= p_k > 0, so log S is finite.
    return fmax + float(np.log(w[support] @ np.exp(x))) / t
