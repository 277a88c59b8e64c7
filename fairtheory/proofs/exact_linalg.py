r"""Exact rational linear algebra for certificates: Python integers and :class:`fractions.Fraction` only.

* :func:`is_psd` decides ``M >= 0`` for a symmetric rational matrix exactly by an ``L D L^T``
  elimination without pivoting: the matrix is scaled to integers by the least common multiple of its
  denominators, then eliminated fraction-free (Bareiss): after ``k`` positive pivots the working matrix
  is ``det(M_k) * (Schur complement)``, so its signs are those of the Schur complement and every
  division is exact.  A negative diagonal entry means "not PSD"; a zero diagonal entry is allowed only
  when its whole remaining row is zero (that index is then dropped).  This is the exact criterion:
  ``M >= 0`` iff every Schur complement taken this way has a non-negative diagonal with zero rows at
  its zero diagonal entries.
* :func:`solve_sparse` solves a consistent sparse rational linear system ``A x = r`` changing only
  pivot unknowns chosen in a caller-given priority order (dependent rows allowed; an inconsistent
  system gives ``None``).

No floats anywhere: these functions are what a certificate checker runs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

__all__ = ["is_psd", "ldl_pivots", "solve_sparse", "lcm_denominator"]


def lcm_denominator(values: Iterable[Fraction]) -> int:
    """Least common multiple of the denominators."""
    out = 1
    for v in values:
        d = v.denominator
        if out % d:
            out = out // math.gcd(out, d) * d
    return out


def _integer_matrix(entries: Mapping[tuple[int, int], Fraction], n: int) -> list[list[int]]:
    """Dense symmetric integer matrix ``lcm * M`` from upper-triangle entries ``{(a, b): M_ab}``, ``a <= b``."""
    m = lcm_denominator(entries.values())
    A = [[0] * n for _ in range(n)]
    for (a, b), v in entries.items():
        iv = v.numerator * (m // v.denominator)
        A[a][b] = iv
        A[b][a] = iv
    return A


def ldl_pivots(entries: Mapping[tuple[int, int], Fraction], n: int) -> list[Fraction] | None:
    r"""Pivots ``d_1, d_2, ...`` of the exact ``L D L^T`` of the symmetric ``n x n`` matrix given by its
    upper-triangle entries (``{(a, b): M_ab}``, ``a <= b``, missing entries 0), in index order, with a
    ``0`` for every dropped index (zero diagonal entry with a zero remaining row).  ``None`` when the
    matrix is not PSD (a negative pivot, or a zero pivot with a non-zero remaining row)."""
    A = _integer_matrix(entries, n)
    scale = lcm_denominator(entries.values())
    active = list(range(n))
    prev = 1          # previous Bareiss pivot (a positive leading minor, scaled)
    piv: list[Fraction] = []
    while active:
        k = active[0]
        rest = active[1:]
        akk = A[k][k]
        if akk < 0:
            return None
        if akk == 0:
            if any(A[k][j] != 0 for j in rest):
                return None
            piv.append(Fraction(0))
            active = rest
            continue
        piv.append(Fraction(akk, prev * scale))
        rowk = A[k]
        for i in rest:
            aik = rowk[i]
            Ai = A[i]
            # upper triangle only (rows are read at columns after their own index)
            if aik == 0:
                for j in rest:
                    if j >= i:
                        Ai[j] = Ai[j] * akk // prev
            else:
                for j in rest:
                    if j >= i:
                        Ai[j] = (Ai[j] * akk - aik * rowk[j]) // prev
        prev = akk
        active = rest
    return piv


def is_psd(entries: Mapping[tuple[int, int], Fraction], n: int) -> bool:
    """``True`` iff the symmetric rational matrix (upper-triangle entries) is positive semidefinite (exact)."""
    return ldl_pivots(entries, n) is not None


def solve_sparse(rows: Sequence[Mapping[int, Fraction]], rhs: Sequence[Fraction],
                 priority: Sequence[int]) -> dict[int, Fraction] | None:
    r"""A solution ``x`` of ``sum_c rows[r][c] x_c = rhs[r]`` (every ``r``) with ``x_c = 0`` outside the
    pivot unknowns, exact Gaussian elimination.  Pivots are chosen as the first unknown in ``priority``
    (a list of column ids; columns not listed are never pivots) with a non-zero entry in the reduced row.
    Dependent rows are allowed; returns ``None`` when the system is inconsistent on these columns."""
    rank = {c: i for i, c in enumerate(priority)}
    prow: list[tuple[int, dict[int, Fraction], Fraction]] = []
    for row, r in zip(rows, rhs, strict=True):
        # columns outside ``priority`` stay 0, so they do not enter the system
        red = {c: Fraction(v) for c, v in row.items() if v != 0 and c in rank}
        val = Fraction(r)
        for pc, pr, pv in prow:
            f = red.get(pc)
            if f is None or f == 0:
                continue
            for c, v in pr.items():
                nv = red.get(c, Fraction(0)) - f * v
                if nv == 0:
                    red.pop(c, None)
                else:
                    red[c] = nv
            val -= f * pv
        if not red:
            if val != 0:
                return None
            continue
        pc = min(red, key=lambda c: rank[c])
        inv = 1 / red[pc]
        red = {c: v * inv for c, v in red.items()}
        prow.append((pc, red, val * inv))
    x: dict[int, Fraction] = {}
    for pc, pr, pv in reversed(prow):
        s = pv
        for c, v in pr.items():
            if c != pc:
                s -= v * x.get(c, Fraction(0))
        x[pc] = s
    return x
