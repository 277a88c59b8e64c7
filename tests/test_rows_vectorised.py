"""Array-built interpolation rows (fairtheory.worstcase.gram.RowBlock, issue 41) equal the per-row loop's rows exactly.

For every vectorised class (SmoothStronglyConvex with mu = 0 and mu > 0, float and int parameters; Convex with and
without reused gradients; ConvexLipschitz; SmoothNonconvex; StronglyConvex)
on random small PEPs: the rows' terms (built on read) are those of the loop
the classes used before (copied here as the reference), and the float data the solve reads from the block's arrays are
bitwise scalar_row's of the loop's rows, entry for entry in the same order; the assembled sparse matrix and the solve's
value are bitwise the same."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from fairtheory.worstcase.classes import Convex, ConvexLipschitz, SmoothNonconvex, SmoothStronglyConvex, StronglyConvex
from fairtheory.worstcase.gram import LazyRow, Scalar, _exact_row, scalar_row
from fairtheory.worstcase.sdp import PEP, sqnorm


# ------------------------------------------------------------------ the loops the classes ran before (reference)
def _pairs(points):
    for j, pj in enumerate(points):
        for k, pk in enumerate(points):
            if j != k:
                yield j, pj, k, pk


def _old_ssc(cls, points):
    L, mu = cls.L, cls.mu
    inv2L = Fraction(1, 2) / L if isinstance(L, (Fraction, int)) else 0.5 / L

    def div(a, b):
        ex = all(isinstance(x, (Fraction, int)) and not isinstance(x, bool) for x in (a, b))
        return Fraction(a) / b if ex else float(a) / float(b)

    c = div(mu, 2 * (1 - div(mu, L))) if mu != 0 else 0
    invL = div(1, L)
    rows = []
    for j, pj, k, pk in _pairs(points):
        dg = pj.g - pk.g
        s = pk.f - pj.f
        s.quad.append((1, pk.g, pj.x - pk.x))
        s.quad.append((inv2L, dg, dg))
        if mu != 0:
            w = (pj.x - pk.x) - invL * dg
            s.quad.append((c, w, w))
        rows.append((s, (j, k)))
    return rows


def _old_convex(points):
    rows = []
    for j, pj, k, pk in _pairs(points):
        s = pk.f - pj.f
        s.quad.append((1, pk.g, pj.x - pk.x))
        rows.append((s, (j, k)))
    return rows


def _old_lipschitz(cls, points):
    rows = [(Scalar([(1, p.g, p.g)], {}, -(cls.M * cls.M)), (j, j)) for j, p in enumerate(points)]
    return rows + _old_convex(points)


def _div(a, b):
    ex = all(isinstance(x, (Fraction, int)) and not isinstance(x, bool) for x in (a, b))
    return Fraction(a) / b if ex else float(a) / float(b)


def _old_nonconvex(cls, points):
    L = cls.L
    ex = isinstance(L, (Fraction, int)) and not isinstance(L, bool)
    qL, q4L, half = _div(L, 4), _div(1, 4 * L), (Fraction(1, 2) if ex else 0.5)
    rows = []
    for j, pj, k, pk in _pairs(points):
        dx = pj.x - pk.x
        dg = pj.g - pk.g
        s = pk.f - pj.f
        s.quad.append((-qL, dx, dx))
        s.quad.append((half, pj.g + pk.g, dx))
        s.quad.append((q4L, dg, dg))
        rows.append((s, (j, k)))
    return rows


def _old_strongly(cls, points):
    half = _div(cls.mu, 2)
    rows = []
    for j, pj, k, pk in _pairs(points):
        d = pj.x - pk.x
        s = pk.f - pj.f
        s.quad.append((1, pk.g, d))
        s.quad.append((half, d, d))
        rows.append((s, (j, k)))
    return rows


def _old(cls, points):
    if isinstance(cls, SmoothNonconvex):
        return _old_nonconvex(cls, points)
    if isinstance(cls, StronglyConvex):
        return _old_strongly(cls, points)
    if isinstance(cls, SmoothStronglyConvex):
        return _old_ssc(cls, points)
    if isinstance(cls, ConvexLipschitz):
        return _old_lipschitz(cls, points)
    return _old_convex(points)


# ------------------------------------------------------------------ random small PEPs
def _random_pep(cls_a, cls_b, seed: int, exact: bool = False) -> PEP:
    """Two functions at their joint optimum (optimum_of_sum), a random linear method of a few steps, user rows."""
    rng = np.random.default_rng(seed)
    pep = PEP(exact=exact)
    f1, f2 = pep.function(cls_a), pep.function(cls_b)
    pep.optimum_of_sum([f1, f2])
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    x, gs = x0, []
    n = int(rng.integers(2, 5))
    for t in range(n):
        f = f1 if t % 2 == 0 else f2
        g = f.grad(x)
        gs.append(g)
        steps = rng.uniform(-1.0, 1.0, size=len(gs)).round(3) if not exact else \
            [Fraction(int(v), 7) for v in rng.integers(-5, 6, size=len(gs))]
        for h, gi in zip(steps, gs, strict=True):
            x = x - h * gi
        if t == 1:
            f.grad(x)  # a repeated call at a seen point (a new subgradient for nonsmooth classes)
            f.grad(x)
    v = f1.value(x) + f2.value(x)
    pep.maximize(v)
    return pep


_CLASSES = [
    (SmoothStronglyConvex(1.0, 0), Convex()),
    (SmoothStronglyConvex(3.0, 0.25), SmoothStronglyConvex(2, 0)),
    (SmoothStronglyConvex(1, Fraction(1, 10)), Convex(reuse_gradient=True)),
    (ConvexLipschitz(2.0), SmoothStronglyConvex(1.5, 0.5)),
    (ConvexLipschitz(3), Convex()),
    (SmoothNonconvex(2.0), StronglyConvex(0.5)),
    (SmoothNonconvex(3), StronglyConvex(Fraction(1, 3))),
]


def _same_scalar(a: Scalar, b: Scalar) -> None:
    assert len(a.quad) == len(b.quad)
    for (ca, ua, va), (cb, ub, vb) in zip(a.quad, b.quad, strict=True):
        assert type(ca) is type(cb) and ca == cb
        assert np.array_equal(ua.c, ub.c) and np.array_equal(va.c, vb.c)
    assert list(a.lin.items()) == list(b.lin.items())
    assert a.const == b.const
    assert _exact_row(a) == _exact_row(b)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("pair", range(len(_CLASSES)))
def test_rows_equal_the_loop(pair: int, seed: int) -> None:
    pep = _random_pep(*_CLASSES[pair], seed)
    nG = pep.dim * (pep.dim + 1) // 2
    n_lazy = 0
    for fn in pep.functions:
        new = fn.cls.interpolation(fn.points)
        old = _old(fn.cls, fn.points)
        assert [lab for _, lab in new] == [lab for _, lab in old]
        for (s, _), (o, _) in zip(new, old, strict=True):
            if type(s) is LazyRow:
                n_lazy += 1
                assert float(s.const) == float(o.const)       # read before the terms are built
                c, v = s.float_row(nG)
                co, vo = scalar_row(o, nG)
                assert np.array_equal(c, co) and c.dtype == co.dtype
                assert np.array_equal(v, vo) and v.tobytes() == vo.tobytes()  # bitwise, same order
                pc, pv = pep._row(s, nG)                       # what the dense route reads
                assert np.array_equal(pc, co) and pv.tobytes() == vo.tobytes()
            _same_scalar(s, o)                                # the terms, built on read
            if type(s) is LazyRow:
                assert s.float_row(nG) is None                # built: read from its terms from now on
    assert n_lazy > 0


@pytest.mark.parametrize("pair", range(len(_CLASSES)))
def test_solve_data_and_value_bitwise(pair: int) -> None:
    """The dense route's assembled matrix and value are bitwise those of the loop's rows."""
    from unittest import mock

    from fairtheory.worstcase import classes

    pep_new = _random_pep(*_CLASSES[pair], 7)
    sol_new = pep_new.solve(method="dense", raw=True)

    def loop_interp(self, points):
        return _old(self, points)

    with mock.patch.object(classes.SmoothStronglyConvex, "interpolation", loop_interp), \
            mock.patch.object(classes.Convex, "interpolation", lambda self, pts: _old_convex(pts)), \
            mock.patch.object(classes.ConvexLipschitz, "interpolation", loop_interp), \
            mock.patch.object(classes.SmoothNonconvex, "interpolation", loop_interp), \
            mock.patch.object(classes.StronglyConvex, "interpolation", loop_interp):
        pep_old = _random_pep(*_CLASSES[pair], 7)
        assert not any(type(s) is LazyRow for s in pep_old._interpolation())
        sol_old = pep_old.solve(method="dense", raw=True)
    assert (sol_new.rows != sol_old.rows).nnz == 0
    assert sol_new.rows.data.tobytes() == sol_old.rows.data.tobytes()
    assert np.array_equal(sol_new.consts, sol_old.consts)
    assert sol_new.status == sol_old.status
    assert np.array_equal([sol_new.value, sol_new.dual_value], [sol_old.value, sol_old.dual_value], equal_nan=True)
    assert sol_new.gram.tobytes() == sol_old.gram.tobytes()


def test_exact_pep_keeps_the_loop() -> None:
    """Exact (rational) PEPs are not array-built: their rows are the loop's Scalars, exactly."""
    pep = _random_pep(SmoothStronglyConvex(1, 0), SmoothStronglyConvex(2, Fraction(1, 2)), 3, exact=True)
    for fn in pep.functions:
        new = fn.cls.interpolation(fn.points)
        assert not any(type(s) is LazyRow for s, _ in new)
        for (s, _), (o, _) in zip(new, _old(fn.cls, fn.points), strict=True):
            _same_scalar(s, o)


def test_export_unchanged() -> None:
    """PEP.export (the exact data of the certificates) is the loop's."""
    pep = _random_pep(SmoothStronglyConvex(1.0, 0.1), ConvexLipschitz(2.0), 5)
    rows = pep.export()["rows"]
    old = [_exact_row(s) for s in pep._eq] + [_exact_row(o) for fn in pep.functions for o, _ in
                                              _old(fn.cls, fn.points)] + [_exact_row(s) for s in pep._ineq]
    assert rows == old


@pytest.mark.parametrize("pair", range(len(_CLASSES)))
def test_row_arrays_is_the_per_row_assembly(pair: int) -> None:
    """PEP.row_arrays (block segments copied whole) equals PEP._row row by row, bitwise and in order."""
    pep = _random_pep(*_CLASSES[pair], 11)
    nG = pep.dim * (pep.dim + 1) // 2
    rows = pep._eq + pep._interpolation() + pep._ineq
    ptr, cols, vals, consts = pep.row_arrays(nG, rows)
    assert ptr.size == len(rows) + 1
    for r, s in enumerate(rows):
        c, v = pep._row(s, nG)
        assert np.array_equal(cols[ptr[r]:ptr[r + 1]], c) and vals[ptr[r]:ptr[r + 1]].tobytes() == v.tobytes()
        assert consts[r] == -float(s.const)
    rows[3].quad  # noqa: B018 - building one row's terms: it is then read from them, the rest still from the block
    ptr2, cols2, vals2, consts2 = pep.row_arrays(nG, rows)
    assert np.array_equal(ptr, ptr2) and np.array_equal(cols, cols2) and vals.tobytes() == vals2.tobytes()


def test_lazy_rows_pickle_and_copy_as_their_scalar() -> None:
    import copy
    import pickle

    pep = _random_pep(SmoothStronglyConvex(1.0, 0.2), ConvexLipschitz(2.0), 2)
    fn = pep.functions[0]
    for (s, _), (o, _) in zip(fn.cls.interpolation(fn.points), _old(fn.cls, fn.points), strict=True):
        for t in (pickle.loads(pickle.dumps(s)), copy.deepcopy(s), copy.copy(s)):
            assert type(t) is Scalar
            assert _exact_row(t) == _exact_row(o)


# ------------------------------------------------------------------ operator classes (the pair rows of _inner_row)
def _operator_pep(mk, seed: int, exact: bool = False) -> PEP:
    from fairtheory.worstcase import operators as O

    rng = np.random.default_rng(seed)
    pep = PEP(exact=exact)
    A = O.operator(pep, mk(), "A")
    O.declare_fixed_point(A)
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    x = x0
    for _ in range(int(rng.integers(2, 6))):
        w = Fraction(int(rng.integers(1, 5)), 7) if exact else float(rng.uniform(0.1, 0.9))
        x = x - w * O.apply(A, x)
    pep.maximize(sqnorm(O.apply(A, x)))
    return pep


def _old_operator_rows(cls, points):
    """The per-pair loop of the operator classes (every unordered pair ``j < k``, ``j`` outer)."""
    from fairtheory.worstcase import operators as O

    if isinstance(cls, O.LipschitzStronglyMonotone):
        cs = [(-1, 0, cls.mu), (0, 1, -(cls.L * cls.L))]
    elif isinstance(cls, O.CocoerciveStronglyMonotone):
        cs = [(-1, cls.beta, 0), (-1, 0, cls.mu)]
    elif isinstance(cls, O.Lipschitz):
        cs = [(0, 1, -(cls.L * cls.L))]
    elif isinstance(cls, O.StronglyMonotone):
        cs = [(-1, 0, cls.mu)]
    elif isinstance(cls, O.Cocoercive):
        cs = [(-1, cls.beta, 0)]
    elif isinstance(cls, O.NegativelyComonotone):
        cs = [(-1, -cls.rho, 0)]
    else:
        assert type(cls) is O.Monotone
        cs = [(-1, 0, 0)]
    return [(O._inner_row(*c, pj, pk), (j, k)) for j, pj, k, pk in _pairs(points) if j < k for c in cs]


_OPERATORS = ["Monotone()", "StronglyMonotone(0.3)", "Lipschitz(1.7)", "Nonexpansive()",
              "LipschitzStronglyMonotone(2.0, 0.5)", "Cocoercive(0.7)", "CocoerciveStronglyMonotone(0.5, 0.25)",
              "NegativelyComonotone(0.2)", "StronglyMonotone(Fraction(1, 3))", "Lipschitz(3)"]


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("op", _OPERATORS)
def test_operator_rows_are_the_pair_loops(op: str, exact: bool) -> None:
    """The float data the dense route reads for an operator class's rows (array-built or not) are bitwise
    ``scalar_row`` of the per-pair loop's rows, in order; the exact rows are the loop's; the assembled matrix and the
    solve are those of the loop's rows."""
    from unittest import mock

    from fairtheory.worstcase import operators as O

    def mk():
        return eval(op, {**vars(O), "Fraction": Fraction})  # noqa: S307 - the fixed list above

    for seed in range(3):
        pep = _operator_pep(mk, seed, exact=exact)
        nG = pep.dim * (pep.dim + 1) // 2
        for fn in pep.functions:
            new = fn.cls.interpolation(fn.points)
            old = _old_operator_rows(fn.cls, fn.points)
            assert [lab for _, lab in new] == [lab for _, lab in old]
            for (s, _), (o, _) in zip(new, old, strict=True):
                assert np.float64(-float(s.const)).tobytes() == np.float64(-float(o.const)).tobytes()
                c, v = pep._row(s, nG)
                co, vo = scalar_row(o, nG)
                assert np.array_equal(c, co) and c.dtype == co.dtype and v.tobytes() == vo.tobytes()
                assert _exact_row(s) == _exact_row(o)
    if exact:
        return
    sol_new = _operator_pep(mk, 1).solve(method="dense", raw=True)
    names = [n for n in ("Monotone", "StronglyMonotone", "Lipschitz", "LipschitzStronglyMonotone", "Cocoercive",
                         "CocoerciveStronglyMonotone", "NegativelyComonotone") if "interpolation" in vars(getattr(O, n))]
    patches = [mock.patch.object(getattr(O, n), "interpolation", _old_operator_rows) for n in names]
    for p in patches:
        p.start()
    try:
        pep_old = _operator_pep(mk, 1)
        assert not any(type(s) is LazyRow for s in pep_old._interpolation())
        sol_old = pep_old.solve(method="dense", raw=True)
    finally:
        for p in patches:
            p.stop()
    assert (sol_new.rows != sol_old.rows).nnz == 0 and sol_new.rows.data.tobytes() == sol_old.rows.data.tobytes()
    assert sol_new.consts.tobytes() == sol_old.consts.tobytes()
    assert sol_new.status == sol_old.status
    assert np.array_equal([sol_new.value, sol_new.dual_value], [sol_old.value, sol_old.dual_value], equal_nan=True)
    assert np.array_equal(sol_new.gram, sol_old.gram, equal_nan=True)
