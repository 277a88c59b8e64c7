"""The dense route's fast paths (issue 41, parity speed) compute exactly what the paths they replace computed.

* ``Vec`` sums / differences of different lengths: bitwise the zero-padded arithmetic (signed zeros included: the
  dedup key of a point is its bytes);
* :func:`fairtheory.worstcase.gram.scalar_rows` (one batch for plain scalars) inside ``PEP.row_arrays``: bitwise
  :func:`~fairtheory.worstcase.gram.scalar_row` row by row, float and exact PEPs;
* the assembly shared by the solves of one checked solve (``pep._assembly_cache``): the raw solve's numbers are
  bitwise those of a fresh assembly, the cache is dropped when the call returns, and a PEP extended between two
  calls is solved with its new rows;
* :func:`fairtheory.worstcase.checked_solve.pep_units` (the bisection on the rows' monomials): the units of the
  per-term evaluation it replaced (that evaluation kept here as the reference), at scales 1e-6 .. 1e6;
* the dense route's sparse matrices written from arrays (``solvers._summed_csr``, the CSC matrix of
  ``solvers._assemble``): bitwise, index types and flags included, the matrices scipy's constructors built from the
  same coordinates (those constructions kept here as the reference), rows longer than scipy's insertion-sort
  threshold and cancelling duplicates included; ``_unsvec`` with its cached layout and ``scalar_rows`` in several
  batches likewise.
No timing is asserted."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from fairtheory.worstcase import checked_solve as cs
from fairtheory.worstcase import operators as O
from fairtheory.worstcase.classes import ConvexLipschitz, SmoothStronglyConvex
from fairtheory.worstcase.gram import Scalar, Vec, scalar_row, scalar_rows
from fairtheory.worstcase.sdp import PEP, sqnorm


# ----------------------------------------------------------------------------------------------- Vec arithmetic
def _padded(a: np.ndarray, b: np.ndarray, op: str) -> np.ndarray:
    m = max(a.size, b.size)
    x = np.concatenate([a, np.zeros(m - a.size)])
    y = np.concatenate([b, np.zeros(m - b.size)])
    return x + y if op == "+" else x - y


def test_vec_sum_and_difference_are_the_padded_ones_bitwise() -> None:
    rng = np.random.default_rng(7)
    vals = np.array([0.0, -0.0, 1.5, -2.25, 1e-300, 3.0])
    for na in range(4):
        for nb in range(4):
            for _ in range(60):
                a, b = rng.choice(vals, na), rng.choice(vals, nb)
                assert (Vec(a) + Vec(b)).c.tobytes() == _padded(a, b, "+").tobytes()
                assert (Vec(a) - Vec(b)).c.tobytes() == _padded(a, b, "-").tobytes()
    a = np.array([1.0, 2.0])
    s = Vec(a) - Vec(np.array([1.0]))
    s.c[1] = 9.0
    assert a[1] == 2.0  # a new array, never a view of an operand


# ----------------------------------------------------------------------------------------------- row assembly
def _halpern(n: int, exact: bool = False) -> PEP:
    pep = PEP(exact=exact)
    T = O.operator(pep, O.Nonexpansive(), "T")
    O.declare_fixed_point(T)
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    x = x0
    for t in range(n):
        w = Fraction(1, t + 2) if exact else 1 / (t + 2)
        x = w * x0 + (1 - w) * O.apply(T, x)
    pep.maximize(sqnorm(x - O.apply(T, x)))
    return pep


def _gd_lipschitz(n: int) -> PEP:
    pep = PEP()
    f = pep.function(ConvexLipschitz(2.0))
    g = pep.function(SmoothStronglyConvex(1.0, 0.1))
    f.optimum()
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    pep.add_le(g.value(x0) - 3)
    x = x0
    for _ in range(n):
        x = x - 0.3 * f.grad(x) - 0.2 * g.grad(x)
    pep.maximize(f.value(x) + g.value(x))
    return pep


@pytest.mark.parametrize("build", [lambda: _halpern(4), lambda: _halpern(3, exact=True), lambda: _gd_lipschitz(3)])
def test_row_arrays_batch_is_scalar_row_bitwise(build) -> None:
    pep = build()
    nG = pep.dim * (pep.dim + 1) // 2
    rows = pep._eq + pep._interpolation() + pep._ineq
    assert any(type(s) is Scalar for s in rows)
    ptr, cols, vals, consts = pep.row_arrays(nG, rows)
    for r, s in enumerate(rows):
        c, v = pep._row(s, nG)
        assert np.array_equal(cols[ptr[r]:ptr[r + 1]], c) and vals[ptr[r]:ptr[r + 1]].tobytes() == v.tobytes()
        assert consts[r] == -float(s.const)


def test_scalar_rows_edge_cases() -> None:
    z = Vec(np.zeros(0))
    e0, e1 = Vec(np.array([1.0])), Vec(np.array([0.0, -2.0]))
    rows = [Scalar(), Scalar([(3.0, z, e0)]), Scalar([(0.5, e0, e1), (2.0, e1, e1)], {2: -1.0, 0: 4.0}, 5.0),
            Scalar(lin={1: 2.0})]
    ptr, cols, vals = scalar_rows(rows, 3)
    assert ptr.tolist()[0] == 0 and ptr.size == len(rows) + 1
    for r, s in enumerate(rows):
        c, v = scalar_row(s, 3)
        assert np.array_equal(cols[ptr[r]:ptr[r + 1]], c) and vals[ptr[r]:ptr[r + 1]].tobytes() == v.tobytes()
    p0, c0, v0 = scalar_rows([], 3)
    assert p0.tolist() == [0] and c0.size == 0 and v0.size == 0


# ----------------------------------------------------------------------------------------------- assembly cache
def _fields(s) -> tuple:
    return (s.value, s.dual_value, s.status, s.iterations, s.gram.tobytes(), s.F.tobytes(), s.z.tobytes(),
            s.rows.data.tobytes(), s.objective_row.tobytes())


def test_shared_assembly_gives_the_fresh_assembly_bitwise() -> None:
    pep = _gd_lipschitz(3)
    U = cs.pep_units(pep)
    kw = {"method": "dense", "scale": U.vec * 4.0, "fscale": U.val * 2.0, "row_units": True}
    fresh = [pep._solve_float(**kw), pep._solve_float(trace_weight=1e-3, tol=1e-6, **kw)]
    pep._assembly_cache = {}
    try:
        shared = [pep._solve_float(**kw), pep._solve_float(trace_weight=1e-3, tol=1e-6, **kw)]
        assert len(pep._assembly_cache) == 1
    finally:
        pep._assembly_cache = None
    for a, b in zip(fresh, shared, strict=True):
        assert _fields(a) == _fields(b)


def test_assembly_cache_lives_for_one_checked_solve() -> None:
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(1.0, 0))
    f.optimum()
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    x1 = x0 - 1.0 * f.grad(x0)
    pep.maximize(f.value(x1))
    first = pep.solve()
    assert pep._assembly_cache is None
    assert abs(first.value - 1 / 6) <= 1e-7 / 6  # L/(4 N h + 2), N = 1
    x2 = x1 - 1.0 * f.grad(x1)  # one more step: new rows, a new objective
    pep.maximize(f.value(x2))
    second = pep.solve()
    assert pep._assembly_cache is None
    assert abs(second.value - 1 / 10) <= 1e-7 / 10  # N = 2
    assert second.rows.shape[0] > first.rows.shape[0]


# ----------------------------------------------------------------------------------------------- pep_units
def _reference_units_logs(pep: PEP) -> list[float]:
    """The bisection as it was: every step evaluates the scalar term by term (checked_solve._mag)."""
    cv, dv, cf, df, _ = cs._monomials(pep)
    logs = []
    with np.errstate(over="ignore", invalid="ignore"):
        for s in pep._ineq + pep._eq:
            c = abs(float(s.const))
            if c == 0 or not math.isfinite(c):
                continue

            def h(t: float, s: Scalar = s) -> float:
                R = 2.0 ** t
                return cs._mag(s, cv * R ** dv, cf * R ** df)

            lo, hi = -400.0, 400.0
            if not (h(lo) <= c <= h(hi)) or h(lo) == h(hi):
                continue
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                if h(mid) < c:
                    lo = mid
                else:
                    hi = mid
            logs.append(0.5 * (lo + hi))
    return logs


def _scaled_gd(L: float, R: float, n: int = 3) -> PEP:
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, 0))
    f.optimum()
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - R * R)
    x = x0
    for _ in range(n):
        x = x - (1 / L) * f.grad(x)
    pep.maximize(f.value(x))
    return pep


@pytest.mark.parametrize("L, R", [(1.0, 1.0), (3e6, 1.0), (1e-6, 1e3), (1e6, 1e-6), (2.0, 1e6)])
def test_pep_units_bisection_on_monomials_matches_the_term_by_term_one(L: float, R: float) -> None:
    for pep in (_scaled_gd(L, R), _gd_lipschitz(2), _halpern(3)):
        ref = _reference_units_logs(pep)
        cv, dv, cf, df, _ = cs._monomials(pep)
        got = []
        for s in pep._ineq + pep._eq:
            c = abs(float(s.const))
            if c == 0 or not math.isfinite(c):
                continue
            h = cs._mag_poly(s, cv, dv, cf, df)
            lo, hi = -400.0, 400.0
            if not (h(lo) <= c <= h(hi)) or h(lo) == h(hi):
                continue
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                lo, hi = (mid, hi) if h(mid) < c else (lo, mid)
            got.append(0.5 * (lo + hi))
        assert len(got) == len(ref)
        assert all(abs(a - b) <= 1e-9 * max(1.0, abs(b)) for a, b in zip(got, ref, strict=True))
        if ref:
            assert round(float(np.mean(got))) == round(float(np.mean(ref)))


# ----------------------------------------------------------------------------------------------- sparse from arrays
def _same_sparse(x, y) -> None:
    assert type(x) is type(y) and x.shape == y.shape
    assert x.indptr.dtype == y.indptr.dtype and x.indices.dtype == y.indices.dtype and x.data.dtype == y.data.dtype
    assert x.indptr.tobytes() == y.indptr.tobytes() and x.indices.tobytes() == y.indices.tobytes()
    assert x.data.tobytes() == y.data.tobytes()
    assert x.has_canonical_format == y.has_canonical_format and x.has_sorted_indices == y.has_sorted_indices


@pytest.mark.parametrize("routines", [True, False])
def test_summed_csr_is_scipys_coordinates_to_csr_bitwise(routines: bool, monkeypatch) -> None:
    import scipy.sparse as sp

    from fairtheory.worstcase import solvers
    from fairtheory.worstcase.solvers import _summed_csr

    assert solvers._csr_routines() is not None
    if not routines:  # a scipy without its compiled routines importable: the constructors themselves
        monkeypatch.setattr(solvers, "_csr_routines", lambda: None)
    rng = np.random.default_rng(5)
    order_mattered = 0
    for t in range(400):
        m, n = int(rng.integers(0, 7)), int(rng.integers(1, 30))
        cnt = rng.integers(0, 50, size=m)  # rows beyond 16 entries: scipy's row sort is then not stable
        ptr = np.concatenate([[0], np.cumsum(cnt)]).astype(np.int64)
        cols = rng.integers(0, int(rng.integers(1, n + 1)), size=int(ptr[-1])).astype(np.int64)
        if t % 4 == 0:
            cols = np.sort(cols)  # sorted with duplicates: summed without a sort
        vals = rng.standard_normal(cols.size) * 2.0 ** rng.integers(-40, 40, cols.size)
        rid = np.repeat(np.arange(m), cnt)
        ref = sp.csr_matrix((vals, (rid, cols)), shape=(m, n))
        ref.sum_duplicates()
        got = _summed_csr(ptr, cols, vals, (m, n))
        _same_sparse(got, ref)
        # the order duplicates are added in matters to the last bit: a plain in-order sum differs somewhere
        naive = np.zeros((m, n))
        np.add.at(naive, (rid, cols), vals)
        order_mattered += int(naive[tuple(np.array(ref.nonzero()))].tobytes() != ref.data[ref.data != 0].tobytes())
    assert order_mattered > 0


def _reference_rows_and_A(pep: PEP, scale, fscale, row_units: bool):
    """The rows and Clarabel's matrix as scipy's coordinate constructors built them (the assembly before issue 41's
    array-built matrices)."""
    import scipy.sparse as sp

    from fairtheory.worstcase.gram import _SQRT2

    dim, nf = pep.dim, pep.nf
    nG = dim * (dim + 1) // 2
    nx = nG + nf
    ptr, cat, vals, consts = pep.row_arrays(nG, pep._eq + pep._interpolation() + pep._ineq)
    r = int(consts.size)
    rows = sp.csr_matrix((vals, (np.repeat(np.arange(r), np.diff(ptr)), cat)), shape=(r, nx))
    rows.sum_duplicates()
    ia, ib = np.triu_indices(dim)
    svec_idx = ib * (ib + 1) // 2 + ia
    to_svec = np.ones(nx)
    to_svec[svec_idx[ia != ib]] = 1.0 / _SQRT2
    colscale = np.ones(nx)
    if scale is not None:
        colscale[svec_idx] = np.asarray(scale)[ia] * np.asarray(scale)[ib]
    if fscale is not None:
        colscale[nG:] = fscale
    row_of = np.repeat(np.arange(r), np.diff(rows.indptr))
    data = rows.data * (to_svec * colscale)[rows.indices]
    cols = rows.indices
    nz = data != 0
    row_of, data, cols = row_of[nz], data[nz], cols[nz]
    rscale = np.ones(r)
    if row_units and r:
        big = np.zeros(r)
        np.maximum.at(big, row_of, np.abs(data))
        big = np.maximum(big, np.abs(consts))
        ok = (big > 0) & np.isfinite(big)
        rscale[ok] = np.ldexp(1.0, np.round(np.log2(big[ok])).astype(np.int64))
        data = data * (1.0 / rscale)[row_of]
    A = sp.csc_matrix((np.concatenate([data, -np.ones(nG)]),
                       (np.concatenate([row_of, r + np.arange(nG)]), np.concatenate([cols, np.arange(nG)]))),
                      shape=(r + nG, nx))
    return rows, A, rscale, np.concatenate([consts / rscale, np.zeros(nG)])


def _cancelling() -> PEP:
    """User rows whose entries cancel (a stored zero in ``rows``, none in Clarabel's matrix; a row left without
    entries) and a long row (more entries than scipy's insertion-sort threshold, with duplicates)."""
    pep = _gd_lipschitz(3)
    x = pep.vector()
    y = pep.vector()
    pep.add_le(sqnorm(x) - sqnorm(x) - 2.0)
    pep.add_le(sqnorm(x + y) - sqnorm(x) + sqnorm(x - 3.0 * y) - 5.0)
    z = Vec(np.linspace(0.5, 3.0, pep.dim))
    pep.add_le(sqnorm(z) + 0.25 * sqnorm(z - x) - 7.0)
    return pep


@pytest.mark.parametrize("build", [lambda: _halpern(4), lambda: _gd_lipschitz(3), _cancelling])
def test_assembled_matrices_are_scipys_constructions_bitwise(build) -> None:
    from fairtheory.worstcase import solvers

    pep = build()
    rng = np.random.default_rng(2)
    settings = [(None, None, False), (None, None, True),
                (2.0 ** rng.integers(-6, 6, pep.dim), 2.0 ** rng.integers(-6, 6, pep.nf) if pep.nf else None, True),
                (rng.uniform(0.5, 2.0, pep.dim), None, False)]
    for scale, fscale, row_units in settings:
        asm = solvers._assemble(pep, scale, fscale, row_units)
        rows, A, rscale, b = _reference_rows_and_A(pep, scale, fscale, row_units)
        _same_sparse(asm[0], rows)
        _same_sparse(asm[4], A)
        assert asm[5].tobytes() == rscale.tobytes()
        assert asm[13].tobytes() == b.tobytes()
        P = asm[12]
        assert P.shape == (A.shape[1], A.shape[1]) and P.nnz == 0


def test_unsvec_and_batched_scalar_rows() -> None:
    from fairtheory.worstcase import gram
    from fairtheory.worstcase.gram import _SQRT2, _unsvec

    rng = np.random.default_rng(4)
    for dim in (0, 1, 2, 5, 9, 5):
        x = rng.standard_normal(dim * (dim + 1) // 2)
        G = np.zeros((dim, dim))
        for b in range(dim):
            for a in range(b + 1):
                v = x[b * (b + 1) // 2 + a]
                G[a, b] = G[b, a] = v if a == b else v / _SQRT2
        assert _unsvec(x, dim).tobytes() == G.tobytes()
    pep = _halpern(4)
    nG = pep.dim * (pep.dim + 1) // 2
    rows = [Scalar(list(s.quad), dict(s.lin), s.const) for s in pep._eq + pep._interpolation() + pep._ineq]
    one = scalar_rows(rows, nG)
    saved = gram._BATCH_ENTRIES
    try:
        gram._BATCH_ENTRIES = 1  # one term per batch
        many = scalar_rows(rows, nG)
    finally:
        gram._BATCH_ENTRIES = saved
    assert all(a.tobytes() == b.tobytes() for a, b in zip(one, many, strict=True))
    assert len(rows) > gram._FEW_ROWS
    for k in range(len(rows) + 1):  # a few rows are assembled row by row, more in a batch: the same entries
        ptr, cols, vals = scalar_rows(rows[:k], nG)
        assert ptr.size == k + 1 and cols.dtype == np.int64 and vals.dtype == np.float64
        for r, s in enumerate(rows[:k]):
            c, v = scalar_row(s, nG)
            assert np.array_equal(cols[ptr[r]:ptr[r + 1]], c) and vals[ptr[r]:ptr[r + 1]].tobytes() == v.tobytes()
