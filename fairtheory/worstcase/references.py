r"""Reference worst-case values of gradient descent and the accelerated gradient method on smooth convex functions.

:func:`gd_instances_value` runs gradient descent with step ``h/L`` in exact rationals on two explicit 1-smooth convex
instances (``x^2/2`` and the Huber function of Drori & Teboulle 2014's worst case): a lower bound on the worst case
that any proved bound must stay above.  :func:`agm_worst_case` is the float PEP worst case of the accelerated
gradient method of PEPit's potential-function example (Taylor & Bach 2019, Thm. 3; Nesterov 1983), which a proved
bound must stay above too.
"""

from __future__ import annotations

import math
from fractions import Fraction

from fairtheory._validation import check_integer
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.worstcase.classes import SmoothStronglyConvex
from fairtheory.worstcase.sdp import PEP, sqnorm

__all__ = ["gd_instances_value", "agm_worst_case"]


def gd_instances_value(N: int, h: Fraction) -> Fraction:
    """Largest ``f(x_N) - f*`` of two explicit 1-smooth convex instances with ``|x0 - x*| = 1`` run in rationals:
    ``x^2/2`` and the Huber function of Drori & Teboulle's worst case (``tau = 1/(2 N h + 1)``).  ``N`` an integer
    ``>= 0``, ``h`` a finite real number ``> 0`` (a ``Fraction`` or ``int`` keeps the value exact), refused by name
    otherwise."""
    N = check_integer(N, "N", low=0)
    if isinstance(h, bool) or not isinstance(h, (int, float, Fraction)):
        raise FairtheoryTypeError(f"h must be a real number (exact: int or Fraction), got {h!r}")
    if not math.isfinite(h) or h <= 0:
        raise FairtheoryValueError(f"h must be a finite number > 0, got {h!r}")
    x, tau = Fraction(1), 1 / (2 * N * h + 1)
    q = (1 - h) ** (2 * N) / 2
    for _ in range(N):
        x -= h * (x if abs(x) <= tau else tau * (1 if x > 0 else -1))
    hub = x * x / 2 if abs(x) <= tau else tau * abs(x) - tau * tau / 2
    return max(q, hub)


def agm_worst_case(N: int) -> float:
    """Float PEP worst case of ``f(x_N) - f*`` for the accelerated gradient method (PEPit's potential example, step
    ``1/L``, ``x_0 = z_0``, ``lambda_0 = 0``) on 1-smooth convex functions with ``||x_0 - x*||^2 <= 1``.  ``N`` an integer
    ``>= 0`` (``N = 0``: ``f(x_0) - f* <= 1/2``)."""
    N = check_integer(N, "N", low=0)
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(1.0, 0.0))
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    z, lam = x, 0.0
    for _ in range(N):
        nxt = (1 + math.sqrt(4 * lam * lam + 1)) / 2
        y = (1 - 1 / nxt) * x + (1 / nxt) * z
        g = f.grad(y)
        z, x, lam = z - (nxt * nxt - lam * lam) * g, y - g, nxt
    pep.maximize(f.value(x))
    return float(pep.solve().value)
