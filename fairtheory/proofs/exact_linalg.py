r"""Exact rational linear algebra outside the checker: ``L D L^T`` pivots, the reference PSD test, sparse solves.

The PSD *decision* a certificate check runs is :func:`fairtheory_kernel.linalg.is_psd` (the trusted kernel,
python-flint).  This module adds what the untrusted search and the tests use:

* :func:`is_psd` with a ``backend``: the kernel's test, or the reference fraction-free ``L D L^T`` elimination on
  Python integers, written independently of the kernel (the same criterion; it needs no python-flint; tests
  compare the two on thousands of matrices);
* :func:`ldl_pivots`: the pivots of the exact ``L D L^T`` (the kernel's elimination on FLINT integers, its pivots
  recorded; or the reference), or ``None``;
* :func:`solve_sparse`: a consistent sparse rational linear system ``A x = r`` solved changing only pivot
  unknowns chosen in a caller-given priority order (dependent rows allowed; an inconsistent system gives
  ``None``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from fairtheory_kernel import linalg as _k

try:
    import flint as _flint  # noqa: F401 - whether python-flint imports (the kernel needs it)
except ImportError:  # pragma: no cover - exercised by the pure-Python backend tests
    _flint = None

__all__ = ["is_psd", "ldl_pivots", "solve_sparse", "lcm_denominator", "HAVE_FLINT"]

HAVE_FLINT: bool = _flint is not None


def lcm_denominator(values: Iterable[Fraction]) -> int:
    """Least common multiple of the denominators."""
    out = 1
    for v in values:
        d = v.denominator
        if out % d:
            out = out // math.gcd(out, d) * d
    return out


def _backend(backend: str | None) -> str:
    if backend is None:
        return "flint" if HAVE_FLINT else "python"
    if backend not in ("flint", "python"):
        raise ValueError(f"backend must be 'flint', 'python' or None, not {backend!r}")
    if backend == "flint" and not HAVE_FLINT:
        raise ImportError("backend='flint' needs python-flint")
    return backend


def _integer_matrix(entries: Mapping[tuple[int, int], Fraction], n: int) -> list[list[int]]:
    """Dense symmetric integer matrix ``lcm * M`` from upper-triangle entries ``{(a, b): M_ab}``, ``a <= b``."""
    m = lcm_denominator(entries.values())
    A = [[0] * n for _ in range(n)]
    for (a, b), v in entries.items():
        iv = v.numerator * (m // v.denominator)
        A[a][b] = iv
        A[b][a] = iv
    return A


def _symmetric(entries: Mapping[tuple[int, int], Fraction], n: int) -> dict[tuple[int, int], Fraction]:
    """Entries keyed ``(min, max)`` (the later of ``(a, b)``, ``(b, a)`` wins); an index outside ``0..n-1`` raises
    ``ValueError``."""
    out: dict[tuple[int, int], Fraction] = {}
    for (a, b), v in entries.items():
        if not (0 <= a < n and 0 <= b < n):
            raise ValueError(f"entry ({a}, {b}) outside a {n} x {n} matrix")
        out[(a, b) if a <= b else (b, a)] = v
    return out


def _ldl_pivots_python(entries: Mapping[tuple[int, int], Fraction], n: int) -> list[Fraction] | None:
    """Reference ``L D L^T`` pivots: Bareiss on ``lcm * M`` in Python integers (see the module doc)."""
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


def _ldl_pivots_flint(ent: Mapping[tuple[int, int], Fraction], n: int) -> list[Fraction] | None:
    """:func:`ldl_pivots` by the kernel's elimination (:func:`fairtheory_kernel.linalg.eliminate`), pivots recorded."""
    B, s = _k.integer_matrix(ent, n)
    piv: list[Fraction] = []

    def record(_k_: int, akk: Any, prev: Any) -> None:
        piv.append(Fraction(0) if akk is None else Fraction(int(akk), int(prev * s)))

    return piv if _k.eliminate(B, record) else None


def ldl_pivots(entries: Mapping[tuple[int, int], Fraction], n: int, *, backend: str | None = None) -> list[Fraction] | None:
    r"""Pivots ``d_1, d_2, ...`` of the exact ``L D L^T`` of the symmetric ``n x n`` matrix given by its
    upper-triangle entries (``{(a, b): M_ab}``, ``a <= b``, missing entries 0), in index order, with a
    ``0`` for every dropped index (zero diagonal entry with a zero remaining row).  ``None`` when the
    matrix is not PSD (a negative pivot, or a zero pivot with a non-zero remaining row).

    The pivots of a PSD matrix are ratios of leading principal minors of ``M[S, S]`` (``S`` the kept
    indices) and can be far larger than the entries; a caller that needs only the decision should use
    :func:`is_psd`.  ``backend``: ``"flint"``, ``"python"`` or ``None`` (FLINT when it imports)."""
    ent = _symmetric(entries, n)
    if _backend(backend) == "flint":
        return _ldl_pivots_flint(ent, n)
    return _ldl_pivots_python(ent, n)


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


def is_psd(entries: Mapping[tuple[int, int], Fraction], n: int, *, backend: str | None = None) -> bool:
    """``True`` iff the symmetric rational matrix (upper-triangle entries) is positive semidefinite (exact).
    ``backend``: ``"flint"`` (the kernel's rank + congruence certificate,
    :func:`fairtheory_kernel.linalg.is_psd`), ``"python"`` (the reference elimination) or ``None`` (FLINT when
    it imports)."""
    if _backend(backend) == "flint":
        return _k.is_psd(entries, n)
    return _ldl_pivots_python(_symmetric(entries, n), n) is not None
