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


def eliminate(B: list[list[Any]], on_pivot: Callable[[int, Any, Any], None] | None = None) -> bool:
    """Whether the integer symmetric ``B >= 0`` (module doc; ``B`` is overwritten, upper triangle).  Calls
    ``on_pivot(k, a_kk, prev)`` for a kept index (its pivot is ``a_kk / prev``) and ``on_pivot(k, None, None)``
    for a dropped one."""
    n, prev = len(B), fmpz(1)
    for k in range(n):
        rowk, akk = B[k], B[k][k]
        if akk < 0 or (akk == 0 and any(rowk[j] != 0 for j in range(k + 1, n))):
            return False
        if on_pivot is not None:
            on_pivot(k, akk if akk else None, prev if akk else None)
        if akk == 0:
            continue
        for i in range(k + 1, n):
            aki, Bi = rowk[i], B[i]
            for j in range(i, n):
                Bi[j] = (Bi[j] * akk - aki * rowk[j]) // prev
        prev = akk
    return True


def is_psd(entries: Mapping[tuple[int, int], Fraction], n: int) -> bool:
    """``True`` iff the symmetric rational matrix (upper-triangle entries) is positive semidefinite (exact)."""
    return eliminate(integer_matrix(entries, n)[0])
