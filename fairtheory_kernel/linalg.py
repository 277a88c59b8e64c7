r"""The exact PSD test of the ``"pep-dual"`` check: one routine, integers only (python-flint ``fmpz``).

:func:`is_psd` decides whether a symmetric rational ``n x n`` matrix ``M`` (its upper-triangle entries
``{(a, b): M_ab}``, missing entries 0) is positive semidefinite by an ``L D L^T`` elimination without pivoting,
in index order, run fraction-free (Bareiss) on the integer matrix ``B = s M`` (``s`` the lcm of the
denominators, ``s > 0``, so ``B >= 0`` iff ``M >= 0``).

Soundness.  Let ``S_k`` be the Schur complement left after eliminating the kept indices before ``k``.

* A *negative* pivot ``(S_k)_kk < 0``: not PSD.  A Schur complement of a PSD matrix with respect to a positive
  definite block is PSD, and its diagonal entries are values ``x^T M x`` (``x != 0``), so they are ``>= 0``.
* A *zero* pivot with a non-zero entry left in its row: not PSD (a PSD matrix with a zero diagonal entry has a
  zero row there: the ``2 x 2`` minor ``0 * c - b^2 >= 0`` forces ``b = 0``).  With a zero row the index is
  *dropped*: it changes nothing further.
* The elimination reaches the end: ``M = L D L^T`` with ``D >= 0`` (the kept pivots positive, the dropped ones 0),
  so ``x^T M x = sum_k d_k (L^T x)_k^2 >= 0``.

Fraction-free: after the kept pivots ``p_1, ..., p_m`` the working entries are ``det(B_K) (S_k)_ij`` with
``B_K`` the kept leading block (``det(B_K) = p_m`` in Bareiss's scaling, a positive integer), so signs are the
Schur complement's, and Sylvester's identity makes every division ``// prev`` exact.  No floats.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from flint import fmpz

__all__ = ["is_psd", "integer_matrix", "eliminate"]


def integer_matrix(entries: Mapping[tuple[int, int], Fraction], n: int) -> tuple[list[list[Any]], Any]:
    """``(B, s)``: the dense symmetric ``fmpz`` matrix ``B = s M`` and ``s`` (the lcm of the denominators).  An
    index outside ``0..n-1`` raises ``ValueError``; of ``(a, b)`` and ``(b, a)`` the later entry wins."""
    ent: dict[tuple[int, int], Fraction] = {}
    for (a, b), v in entries.items():
        if not (0 <= a < n and 0 <= b < n):
            raise ValueError(f"entry ({a}, {b}) outside a {n} x {n} matrix")
        ent[(a, b) if a <= b else (b, a)] = Fraction(v)
    s = fmpz(1)
    for v in ent.values():
        if s % v.denominator:
            s = s.lcm(v.denominator)
    B = [[fmpz(0)] * n for _ in range(n)]
    for (a, b), v in ent.items():
        B[a][b] = B[b][a] = fmpz(v.numerator) * (s // v.denominator)
    return B, s


def eliminate(B: list[list[Any]], on_pivot: Callable[[int, Any, Any], None] | None = None,
              nonneg: Callable[[Any], bool] = lambda a: a >= 0, why: list[str] | None = None) -> bool:
    """Whether the integer symmetric ``B >= 0`` (module doc; ``B`` is overwritten, upper triangle).  Calls
    ``on_pivot(k, a_kk, prev)`` for a kept index (its pivot is ``a_kk / prev``) and ``on_pivot(k, None, None)``
    for a dropped one.  The same elimination decides a matrix over ``Z[t]`` on an interval
    (:func:`fairtheory_kernel.family.psd_on`): ``nonneg`` is then the pivots' sign test there (an integer's by
    default); every division is checked exact (Sylvester's identity holds in any integral domain); ``why``
    receives the reason of a refusal."""
    n, prev, why = len(B), fmpz(1), [] if why is None else why
    for k in range(n):
        rowk, akk = B[k], B[k][k]
        bad = [j for j in range(k + 1, n) if rowk[j] != 0] if akk == 0 else []
        if bad or not nonneg(akk):
            why.append(f"pivot {k} is identically 0 with a non-zero entry ({k}, {bad[0]})" if bad else f"pivot {k} is negative")
            return False
        if on_pivot is not None:
            on_pivot(k, akk if akk else None, prev if akk else None)
        if akk == 0:
            continue
        for i in range(k + 1, n):
            aki, Bi = rowk[i], B[i]
            for j in range(i, n):
                Bi[j], r = divmod(Bi[j] * akk - aki * rowk[j], prev)
                if r != 0:  # pragma: no cover - Bareiss divisions are exact
                    why.append("inexact Bareiss division")
                    return False
        prev = akk
    return True


def is_psd(entries: Mapping[tuple[int, int], Fraction], n: int) -> bool:
    """``True`` iff the symmetric rational matrix (upper-triangle entries) is positive semidefinite (exact)."""
    return eliminate(integer_matrix(entries, n)[0])
