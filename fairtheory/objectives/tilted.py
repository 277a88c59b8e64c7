r"""TERM, tilted empirical risk (Li, Beirami, Sanjabi, Smith, ICLR 2021).

.. math:: \mathrm{TERM}_t(f) = \frac{1}{t} \log \sum_i p_i e^{t f_i}, \qquad t > 0,

computed stably as ``max f + (1/t) log sum_i p_i exp(t (f_i - max f))``.  ``t -> 0`` gives the
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
    """``(1/t) log sum_i p_i exp(t f_i)`` for tilt ``t > 0`` (exact limits at small/large ``t``)."""
    f = as_vector(losses, "losses")
    w = check_probability_vector(p, "p")
    check_same_shape(f, w, "losses", "p")
    t = check_positive(t, "t")
    support = w > 0
    fmax = float(f[support].max())
    z = np.exp(t * (f[support] - fmax))
    s = float(w[support] @ z)
    return fmax + float(np.log(s)) / t
