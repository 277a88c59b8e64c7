r"""Trusted kernel: the exact PSD test of certificate checks, integers and rationals only (python-flint).

PSD test.  For a symmetric rational ``n x n`` matrix ``M`` (given by its upper-triangle entries
``{(a, b): M_ab}``, ``a <= b``, missing entries 0) the reference criterion is an ``L D L^T`` elimination
without pivoting, in index order: a negative diagonal entry of the current Schur complement means "not
PSD"; a zero one is allowed only when its whole remaining row is zero (that index is then *dropped*).
``M >= 0`` iff the elimination runs to the end, and then ``M = L D L^T`` with ``D >= 0``.  The arithmetic
is fraction-free (Bareiss) on an integer matrix ``B = s D_d M D_d`` (``s`` a positive integer, ``D_d`` a
positive integer diagonal): congruence by a positive diagonal keeps the signs, the pivots of ``B`` are
``s d_k^2`` times those of ``M``, and after ``k`` positive pivots the working matrix is ``det(B_k)`` times
the Schur complement, so every division is exact.  That reference elimination on Python integers lives outside
the kernel (:mod:`fairtheory.proofs.exact_linalg`, ``backend="python"``; tests compare the two on thousands of
matrices).  :func:`is_psd` decides the same question without computing the (often huge) pivots:

1. exact necessary conditions: ``M_kk >= 0``, and ``M_kk = 0`` only with a zero row ``k``; zero rows are
   removed;
2. the exact rank ``r`` and the pivot columns ``S`` of the reduced row echelon form (FLINT's certified
   multimodular ``rref``).  ``M[S, S]`` is nonsingular (rows ``S`` span the row space of a symmetric
   matrix), so the Schur complement of ``M[S, S]`` has rank ``r - |S| = 0``: it is zero, ``M`` is congruent
   to ``diag(M[S, S], 0)``, and ``M >= 0`` iff ``M[S, S] > 0``;
3. ``K = M[S, S] > 0`` is certified by a congruence ``N = Y K Y^T`` with ``Y`` an integer lower-triangular
   matrix with a positive diagonal (an approximate ``L^{-1}`` from a fixed-point ``L D L^T`` of ``K``, in
   ``p``-bit integers): ``N`` is computed exactly, and

   * some ``N_ii <= 0`` proves ``K`` is not ``> 0`` (``y_i^T K y_i <= 0``, ``y_i != 0``), hence ``M`` is
     not PSD (``K`` is nonsingular);
   * ``N_ii c_i > sum_{j != i} |N_ij| c_j`` for all ``i`` (powers of two ``c_i ~ N_ii^{-1/2}``) makes
     ``C N C`` strictly diagonally dominant with a positive diagonal, hence ``N > 0`` and ``K > 0``;
   * otherwise the precision ``p`` grows; past the last one the exact Bareiss signs of ``K`` decide.

   Every "yes" and "no" is an exact integer inequality; the fixed-point step only chooses ``Y``.

On a PSD matrix the dropped indices of the elimination are exactly the non-pivot columns of the rref
(``b_k`` in the span of the earlier kept vectors of a Gram factorisation ``M = G^T G`` iff column ``k`` of
``M`` is), so the two criteria agree exactly.

No floats anywhere: these functions are what a certificate checker runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import flint as _flint  # python-flint: GMP/FLINT integers and certified multimodular linear algebra

__all__ = ["is_psd"]

_PRECISIONS = (64, 256, 1024)  # bits of the fixed-point L D L^T tried before the exact Bareiss signs


def _symmetric(entries: Mapping[tuple[int, int], Fraction], n: int) -> dict[tuple[int, int], Fraction]:
    """Entries keyed ``(min, max)``; the last of ``(a, b)`` / ``(b, a)`` wins, as in a symmetric fill.
    An index outside ``0..n-1`` raises ``ValueError`` (it would otherwise be ignored or wrap around)."""
    out: dict[tuple[int, int], Fraction] = {}
    for (a, b), v in entries.items():
        if not (0 <= a < n and 0 <= b < n):
            raise ValueError(f"entry ({a}, {b}) outside a {n} x {n} matrix")
        out[(a, b) if a <= b else (b, a)] = v
    return out


def _scaled_fmpz(ent: Mapping[tuple[int, int], Fraction], idx: Sequence[int]) -> tuple[list[list[Any]], Any, list[Any]]:
    r"""Integer symmetric ``B = s D_d M[idx, idx] D_d`` (lists of ``fmpz``) and ``(s, d)``, ``s, d_i > 0``.

    Two candidates, the one with the fewer bits wins: ``s = lcm`` of all denominators with ``d = 1`` (best
    for a common denominator), or ``s = 1`` with ``den(M_ij) | d_i d_j``: ``d_i = sqrt(den M_ii)`` when that
    is an integer, else ``c_i * den(M_ii) / gcd(den M_ii, c_i^2)`` with ``c_i = lcm_j gcd(den M_ij, den M_ii)``
    (so ``den M_ii | d_i^2``), then for each off-diagonal entry the missing factor
    ``den(M_ij) / gcd(den(M_ij), d_i d_j)`` multiplies the smaller of ``d_i``, ``d_j`` (growing a ``d``
    keeps every earlier entry integral).  The second is exact for ``M = D^{-1} P D^{-1}`` (``P`` integer)
    and has ``~n`` factors per ``d_i`` when the denominators are unrelated (the lcm then has ``~n^2/2``)."""
    fmpz = _flint.fmpz
    m = len(idx)
    pos = {k: i for i, k in enumerate(idx)}
    loc: list[tuple[int, int, Fraction]] = []
    for (a, b), v in ent.items():
        if v != 0 and a in pos and b in pos:
            loc.append((pos[a], pos[b], v))
    dens = {v.denominator for _, _, v in loc}
    glob = fmpz(1)
    for q in dens:
        if glob % q:
            glob = glob.lcm(q)
    d = [fmpz(1)] * m
    diag_q: dict[int, Any] = {}
    for i, j, v in loc:
        if i == j and v.denominator != 1:
            diag_q[i] = fmpz(v.denominator)
    guess: dict[int, Any] = {}
    for i, j, v in loc:  # gcd(den M_ij, den M_ii) is d_i times a cofactor when M = D^{-1} P D^{-1}
        q = v.denominator
        if i != j and q != 1:
            for k in (i, j):
                if k in diag_q:
                    g = diag_q[k].gcd(q)
                    if g != 1:
                        guess[k] = guess[k].lcm(g) if k in guess else g
    for i, q in diag_q.items():
        rt = q.isqrt()
        if rt * rt == q:
            d[i] = rt
        else:
            c = guess.get(i, fmpz(1))
            d[i] = c * (q // q.gcd(c * c))  # the smallest multiple of the guess with den M_ii | d_i^2
    for i, j, v in loc:
        q = v.denominator
        if i != j and q != 1:
            g = q // fmpz(q).gcd(d[i])
            g = g // g.gcd(d[j])
            if g != 1:
                k = i if d[i].bit_length() <= d[j].bit_length() else j
                d[k] = d[k] * g
    one = fmpz(1)
    zero = fmpz(0)
    use_global = glob.bit_length() * m <= 2 * sum(x.bit_length() for x in d)
    B = [[zero] * m for _ in range(m)]
    for i, j, v in loc:
        f = glob if use_global else d[i] * d[j]
        x = fmpz(v.numerator) * (f // v.denominator)
        B[i][j] = x
        B[j][i] = x
    if use_global:
        return B, glob, [one] * m
    return B, one, d


def _bareiss_fmpz(B: list[list[Any]], on_pivot: Any = None) -> bool:
    r"""Fraction-free symmetric elimination of the integer matrix ``B`` (modified in place, upper triangle),
    with the reference rule (negative pivot: not PSD; zero pivot: only with a zero remaining row).  Calls
    ``on_pivot(k, a_kk, prev)`` for a kept index (pivot ``a_kk / prev``) and ``on_pivot(k, None, None)`` for a
    dropped one; returns whether ``B >= 0``."""
    n = len(B)
    fmpz = _flint.fmpz
    prev = fmpz(1)
    for k in range(n):
        rowk = B[k]
        akk = rowk[k]
        if akk < 0:
            return False
        if akk == 0:
            if any(rowk[j] != 0 for j in range(k + 1, n)):
                return False
            if on_pivot is not None:
                on_pivot(k, None, None)
            continue
        if on_pivot is not None:
            on_pivot(k, akk, prev)
        for i in range(k + 1, n):
            aki = rowk[i]
            Bi = B[i]
            if aki == 0:
                if akk != prev:
                    for j in range(i, n):
                        bij = Bi[j]
                        if bij != 0:
                            Bi[j] = bij * akk // prev
            else:
                for j in range(i, n):
                    Bi[j] = (Bi[j] * akk - aki * rowk[j]) // prev
        prev = akk
    return True


def _prechecks(ent: Mapping[tuple[int, int], Fraction], n: int) -> list[int] | None:
    """Exact necessary conditions of ``M >= 0``: ``M_kk >= 0``, and a zero ``M_kk`` only with a zero row.
    Returns the indices with ``M_kk > 0`` (the others have zero rows and do not matter), or ``None``."""
    diag: dict[int, Fraction] = {}
    offdiag: set[int] = set()
    for (a, b), v in ent.items():
        if a == b:
            diag[a] = v
        elif v != 0:
            offdiag.add(a)
            offdiag.add(b)
    keep = []
    for k in range(n):
        d = diag.get(k, 0)
        if d < 0 or (d == 0 and k in offdiag):
            return None
        if d > 0:
            keep.append(k)
    return keep


def _pivot_columns(R: Any, rank: int, m: int) -> list[int]:
    """Pivot columns of a reduced row echelon form (first non-zero of each of the first ``rank`` rows)."""
    if rank == m:
        return list(range(m))
    cols = []
    j = 0
    for i in range(rank):
        while R[i, j] == 0:
            j += 1
        cols.append(j)
        j += 1
    return cols


def _congruence_pd(K: list[list[Any]], prec: int) -> bool | None:
    r"""Decide ``K > 0`` (``K`` a nonsingular symmetric integer matrix, positive diagonal) by an exact
    congruence, or ``None`` when the ``prec``-bit approximation is too coarse (see the module doc).

    ``W = diag(2^{s_i})`` equilibrates the diagonal; a fixed-point ``L D L^T`` of ``W K W`` rounded to
    ``prec`` bits gives ``X ~ 2^prec L^{-1}`` (integer, unit diagonal ``2^prec``); ``Y = X W`` and
    ``N = Y K Y^T`` is exact."""
    fmpz_mat = _flint.fmpz_mat
    r = len(K)
    bits = [K[i][i].bit_length() for i in range(r)]
    top = max(bits)
    s = [(top - b) // 2 for b in bits]
    big = max(K[i][j].bit_length() + s[i] + s[j] for i in range(r) for j in range(i, r))
    t = big - prec
    A = [[0] * r for _ in range(r)]
    for i in range(r):
        Ki, Ai, si = K[i], A[i], s[i] - t
        for j in range(i, r):
            kij = Ki[j]
            if kij != 0:
                sh = si + s[j]
                Ai[j] = int(kij << sh if sh >= 0 else kij >> -sh)
    one = 1 << prec
    X = [[0] * r for _ in range(r)]
    for i in range(r):
        X[i][i] = one
    for k in range(r):
        rowk = A[k]
        akk = rowk[k]
        if akk <= 0:
            break  # y_k = x_k is tested exactly below; later rows stay unit rows
        xk = X[k]
        nzk = [j for j in range(k + 1) if xk[j]]
        for i in range(k + 1, r):
            aki = rowk[i]
            if aki == 0:
                continue
            Ai = A[i]
            for j in range(i, r):
                akj = rowk[j]
                if akj:
                    Ai[j] -= aki * akj // akk
            lik = (aki << prec) // akk
            xi = X[i]
            for j in nzk:
                xi[j] -= (lik * xk[j]) >> prec
    # N = X (W K W) X^T = Y K Y^T, column by column (FLINT's product of a small and a huge matrix is far
    # slower than r products with a vector)
    Xm = fmpz_mat(X)
    Kw = fmpz_mat([[K[i][j] << (s[i] + s[j]) for j in range(r)] for i in range(r)])
    cols = [Xm * (Kw * fmpz_mat(r, 1, x)) for x in X]
    N = [[cols[j][i, 0] for j in range(r)] for i in range(r)]
    diag = [N[i][i] for i in range(r)]
    if any(d <= 0 for d in diag):
        return False
    e = [d.bit_length() // 2 for d in diag]
    emax = max(e)
    c = [1 << (emax - ei) for ei in e]
    for i in range(r):
        rhs = 0
        for j in range(r):
            if j != i:
                nij = N[i][j]
                if nij != 0:
                    rhs += abs(nij) * c[j]
        if diag[i] * c[i] <= rhs:
            return None
    return True


def _is_psd_flint(ent: Mapping[tuple[int, int], Fraction], n: int) -> bool:
    """:func:`is_psd` by the certified rank + congruence decision (see the module doc)."""
    keep = _prechecks(ent, n)
    if keep is None:
        return False
    if not keep:
        return True
    B, _s, _d = _scaled_fmpz(ent, keep)
    m = len(keep)
    if m == 1:
        return True  # positive diagonal
    _R, _den, rank = _flint.fmpz_mat(B).rref()
    S = _pivot_columns(_R, rank, m)
    K = [[B[i][j] for j in S] for i in S]
    for prec in _PRECISIONS:
        verdict = _congruence_pd(K, prec)
        if verdict is not None:
            return verdict
    # exact signs: K is nonsingular, so K > 0 iff every Bareiss pivot is positive
    ok = [True]

    def positive(_k: int, akk: Any, _prev: Any) -> None:
        if akk is None:
            ok[0] = False

    return _bareiss_fmpz(K, positive) and ok[0]


def is_psd(entries: Mapping[tuple[int, int], Fraction], n: int) -> bool:
    """``True`` iff the symmetric rational matrix (upper-triangle entries) is positive semidefinite (exact: rank +
    congruence certificate, module doc)."""
    return _is_psd_flint(_symmetric(entries, n), n)
