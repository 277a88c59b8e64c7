"""Shared exact test oracles, independent of the code under test (no ``fairtheory`` import).

:func:`capped_simplex_projection` is the one exact Euclidean projection onto a capped simplex that the
tests compare ``CappedSimplex.project`` and ``exact.capped.project_qp`` with (``tests/test_oracles.py``
checks it on hand-computed cases and against an exhaustive active-set enumeration).

Import it from a test module as ``from oracles import capped_simplex_projection`` (pytest puts ``tests/``
on ``sys.path``); scripts under ``tests/sweeps/`` add ``tests/`` to ``sys.path`` first.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

__all__ = ["capped_simplex_projection", "exact"]

Real = float | int | Fraction


def exact(x: Real, name: str = "x") -> Fraction:
    """``x`` as an exact rational (a float converts without rounding); ``ValueError`` naming ``name``
    for a non-finite or non-real value."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (bool, str, bytes)):
        raise ValueError(f"{name} must be a finite real number, got {x!r}")
    if isinstance(x, int):
        return Fraction(x)
    try:
        f = float(x)  # floats and numpy scalars (exact: a float64 is a dyadic rational)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a finite real number, got {x!r}") from None
    if not math.isfinite(f):
        raise ValueError(f"{name} must be finite, got {x!r}")
    return Fraction(f)


def capped_simplex_projection(v: Sequence[Real], caps: Sequence[Real]) -> list[Fraction]:
    r"""Exact ``argmin_{lam in S(u)} ||lam - v||``, ``S(u) = {lam : sum_i lam_i = 1, 0 <= lam_i <= u_i}``.

    KKT: ``lam_i = clip(v_i - s, 0, u_i)`` for one scalar ``s`` with ``g(s) = sum_i clip(v_i - s, 0, u_i)
    = 1``.  ``g`` is continuous, non-increasing and linear between consecutive breakpoints
    ``{v_i} | {v_i - u_i}``; ``g(min breakpoint) = sum_i u_i >= 1`` and ``g(max breakpoint) = 0``.  A
    bisection over the sorted breakpoints finds the last one with ``g >= 1`` and ``s`` is the exact linear
    interpolation on the next piece.  All arithmetic is in :class:`fractions.Fraction` (floats convert
    exactly), so the result is the exact projection of the given numbers; caps above ``1`` act as ``1``.

    Parameters
    ----------
    v : the point (floats, ints or Fractions), length ``n >= 1``.
    caps : the caps ``u_i >= 0``, length ``n``, with ``sum_i min(u_i, 1) >= 1`` (a non-empty set).

    Returns
    -------
    The ``n`` weights as Fractions (``float(...)`` each for a float comparison).
    """
    if len(v) == 0 or len(v) != len(caps):
        raise ValueError(f"v and caps must be non-empty and of one length, got {len(v)} and {len(caps)}")
    V = [exact(x, f"v[{i}]") for i, x in enumerate(v)]
    U = [min(exact(c, f"caps[{i}]"), Fraction(1)) for i, c in enumerate(caps)]
    if any(u < 0 for u in U):
        raise ValueError(f"caps must be >= 0, got {list(caps)!r}")
    if sum(U, Fraction(0)) < 1:
        raise ValueError(f"caps must satisfy sum(min(caps, 1)) >= 1 (a non-empty set), got {list(caps)!r}")

    def g(s: Fraction) -> Fraction:
        return sum((min(max(vi - s, Fraction(0)), ui) for vi, ui in zip(V, U, strict=True)), Fraction(0))

    # sum(U) >= 1 gives some u_i > 0, hence two distinct breakpoints; g(bps[0]) = sum(U) >= 1 and
    # g(bps[-1]) = 0 < 1.  Invariant of the bisection: g(bps[lo]) >= 1 > g(bps[hi]).
    bps = sorted(set(V) | {vi - ui for vi, ui in zip(V, U, strict=True)})
    lo, hi = 0, len(bps) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if g(bps[mid]) >= 1:
            lo = mid
        else:
            hi = mid
    a, b = bps[lo], bps[hi]
    ga, gb = g(a), g(b)
    s = a + (ga - 1) * (b - a) / (ga - gb)  # ga >= 1 > gb: linear on [a, b]
    lam = [min(max(vi - s, Fraction(0)), ui) for vi, ui in zip(V, U, strict=True)]
    if sum(lam, Fraction(0)) != 1:  # the interpolation is exact; a failure here is a bug in this oracle
        raise AssertionError(f"oracle bug: weights sum to {sum(lam, Fraction(0))}")
    return lam
