"""Function classes and step oracles of the hand-written PEP builder (fairtheory.worstcase.classes / sdp).

Ground truth: closed-form tight worst cases from the literature (each cited at its test), an independent
construction (the shift ``f = h + mu/2 ||x||^2``), and explicit functions evaluated in coordinates for the
interpolation rows themselves - never the builder's own output.
"""

from __future__ import annotations

import math
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.worstcase.classes import Convex, ConvexIndicator, ConvexLipschitz, SmoothNonconvex, SmoothStronglyConvex
from fairtheory.worstcase.sdp import PEP, Scalar, Vec, _Point, sqnorm

TOL = 1e-6


def rel(a: float, b: float) -> float:
    return abs(a - b) / abs(b)


def solved(pep: PEP) -> float:
    sol = pep.solve()
    assert sol.status in ("Solved", "AlmostSolved"), sol.status
    return sol.value


# ------------------------------------------------------------------ interpolation rows on explicit functions
def _rows_at(cls, X, G, F):
    """Evaluate a class's rows at explicit points (coordinates in R^d, so the Gram matrix is the identity)."""
    pts = [_Point(Vec(np.asarray(x, float)), Vec(np.asarray(g, float)), Scalar(lin={k: 1}))
           for k, (x, g) in enumerate(zip(X, G, strict=True))]
    d = len(X[0])
    sol = SimpleNamespace(gram=np.eye(d), F=np.asarray(F, float))
    pep = PEP()
    return np.array([pep.evaluate(r, sol) for r, _ in cls.interpolation(pts)])


def _quadratic(eigs, rng, m=5):
    Q, _ = np.linalg.qr(rng.standard_normal((len(eigs), len(eigs))))
    A = Q @ np.diag(eigs) @ Q.T
    X = rng.standard_normal((m, len(eigs)))
    return X, X @ A, 0.5 * np.einsum("ki,ij,kj->k", X, A, X)


def test_smooth_strongly_convex_rows_hold_on_members_and_fail_outside() -> None:
    rng = np.random.default_rng(0)
    L, mu = 2.0, 0.5
    X, G, F = _quadratic([mu, 1.0, L], rng)                  # in the class: curvatures in [mu, L]
    assert _rows_at(SmoothStronglyConvex(L, mu), X, G, F).max() <= 1e-10
    X, G, F = _quadratic([0.1, 1.0, L], rng)                 # curvature 0.1 < mu: not mu-strongly convex
    assert _rows_at(SmoothStronglyConvex(L, mu), X, G, F).max() > 1e-6
    X, G, F = _quadratic([mu, 1.0, 3.0], rng)                # curvature 3 > L
    assert _rows_at(SmoothStronglyConvex(L, mu), X, G, F).max() > 1e-6


def test_smooth_nonconvex_rows_hold_on_a_nonconvex_member() -> None:
    # f(x) = L (1 - cos x_1) + L/2 sin(x_2)^2 ... use f = L(1 - cos x_1): gradient L sin x_1 is L-Lipschitz, f nonconvex
    rng = np.random.default_rng(1)
    L = 1.5
    X = rng.uniform(-3, 3, size=(6, 2))
    G = np.stack([L * np.sin(X[:, 0]), np.zeros(6)], axis=1)
    F = L * (1 - np.cos(X[:, 0]))
    assert _rows_at(SmoothNonconvex(L), X, G, F).max() <= 1e-10
    assert _rows_at(SmoothStronglyConvex(L, 0), X, G, F).max() > 1e-6          # and it is not convex
    X2, G2, F2 = _quadratic([-2.0 * L, 0.0], rng)                               # curvature -2L: not L-smooth
    assert _rows_at(SmoothNonconvex(L), X2, G2, F2).max() > 1e-6


def test_convex_lipschitz_rows_on_a_norm() -> None:
    rng = np.random.default_rng(2)
    M = 1.3
    X = rng.standard_normal((5, 3))
    G = M * X / np.linalg.norm(X, axis=1, keepdims=True)       # f = M ||x||: subgradients of norm M
    F = M * np.linalg.norm(X, axis=1)
    assert _rows_at(ConvexLipschitz(M), X, G, F).max() <= 1e-10
    assert _rows_at(Convex(), X, G, F).max() <= 1e-10
    assert _rows_at(ConvexLipschitz(M / 2), X, G, F).max() > 1e-6               # Lipschitz constant too small


def test_indicator_rows_on_a_ball() -> None:
    rng = np.random.default_rng(3)
    X = rng.standard_normal((5, 2))
    X /= np.linalg.norm(X, axis=1, keepdims=True)              # points on the unit circle, normals = X
    G = 0.7 * X
    F = np.zeros(5)
    assert _rows_at(ConvexIndicator(2.0), X, G, F).max() <= 1e-10
    assert _rows_at(ConvexIndicator(0.5), X, G, F).max() > 1e-6                 # diameter 2 > 0.5
    assert _rows_at(ConvexIndicator(), X, -G, F).max() > 1e-6                   # inward normals: not a normal cone


# ------------------------------------------------------------------ structure of the rows
def test_interpolation_rows_order_shape_and_flags() -> None:
    pep = PEP()
    f = pep.function(1.0)
    h = pep.function(ConvexLipschitz(2.0))
    c = pep.function(ConvexIndicator(3.0))
    f.optimum()
    x = pep.vector()
    for fn in (f, h, c):
        fn.grad(x)
        fn.grad(x - 0.5 * pep.vector())
    rows = pep.interpolation_rows()
    assert [r for r, _ in rows] == [r for r, _ in rows]        # list of (Scalar, (i, j, k))
    assert all(isinstance(r, Scalar) and len(t) == 3 for r, t in rows)
    per = [[t for _, t in rows if t[0] == i] for i in range(3)]
    assert per[0] == [(0, j, k) for j in range(3) for k in range(3) if j != k]
    assert len(per[1]) == 2 + 2 and per[1][:2] == [(1, 0, 0), (1, 1, 1)]       # ||g||^2 <= M^2, then convexity
    assert len(per[2]) == 2 + 1                                                # normal cone (2 ordered) + diameter
    assert len(pep._interpolation()) == len(rows)
    assert SmoothStronglyConvex(1.0, 0).smooth_convex and f.cls.smooth_convex
    assert not SmoothStronglyConvex(1.0, 0.1).smooth_convex
    assert not any(k.smooth_convex for k in (Convex(), ConvexLipschitz(1.0), ConvexIndicator(), SmoothNonconvex(1.0)))
    assert f.L == 1.0 and h.L == math.inf


def _gd_old_and_new(spec, L, n, exact=False):
    pep = PEP(exact=exact)
    f = pep.function(spec)
    f.optimum()
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    x = x0
    h = Fraction(1, 1) / L if exact else 1.0 / L
    for _ in range(n):
        x = x - h * f.grad(x)
    pep.maximize(f.value(x))
    return pep


@pytest.mark.parametrize("exact", [False, True])
def test_mu_zero_class_gives_the_old_rows_exactly(exact: bool) -> None:
    L = Fraction(3, 2) if exact else 1.5
    old = _gd_old_and_new(L, L, 3, exact)
    new = _gd_old_and_new(SmoothStronglyConvex(L, 0), L, 3, exact)
    assert old.export() == new.export()
    a, b = old.solve(), new.solve()
    assert (a.rows != b.rows).nnz == 0
    assert abs(a.value - b.value) <= 1e-12 * abs(a.value)


def test_exact_mode_keeps_strongly_convex_rows_rational() -> None:
    pep = _gd_old_and_new(SmoothStronglyConvex(Fraction(2), Fraction(1, 3)), Fraction(2), 2, exact=True)
    ex = pep.export()
    coefs = [v for G, F, c in ex["rows"] for v in list(G.values()) + list(F.values()) + [c]]
    assert coefs and all(isinstance(v, Fraction) for v in coefs)
    assert ex["n_interp"] == 4 * 3                      # x*, x0, x1, x2: ordered pairs
    fl = _gd_old_and_new(SmoothStronglyConvex(2.0, 1 / 3), 2.0, 2).export()     # the float twin
    for (Ge, Fe, ce), (Gf, Ff, cf) in zip(ex["rows"], fl["rows"], strict=True):
        for key in set(Ge) | set(Gf):
            assert abs(float(Ge.get(key, 0)) - float(Gf.get(key, 0))) <= 1e-12
        assert Fe == {k: v for k, v in Ff.items()} and abs(float(ce) - float(cf)) <= 1e-12


# ------------------------------------------------------------------ closed-form worst cases
@pytest.mark.parametrize("h,N", [(0.5, 1), (1.0, 2), (1.5, 2), (1.9, 1)])
def test_gd_strongly_convex_distance_rate(h: float, N: int) -> None:
    """||x_N - x*||^2 <= max((1 - h mu)^2, (1 - h L)^2)^N R^2, tight on quadratics (e.g. Polyak 1987, Sec 1.4)."""
    L, mu, R = 1.0, 0.2, 1.5
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, mu))
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - R * R)
    for _ in range(N):
        x = x - h * f.grad(x)
    pep.maximize(sqnorm(x))
    assert rel(solved(pep), max((1 - h * mu) ** 2, (1 - h * L) ** 2) ** N * R * R) <= TOL


@pytest.mark.parametrize("N,L", [(1, 1.0), (3, 2.0), (5, 0.5)])
def test_gd_smooth_convex_class_object_equals_old_builder(N: int, L: float) -> None:
    """f(x_N) - f* <= L R^2 / (4N + 2) for step 1/L (Drori & Teboulle 2014, Thm 3.1)."""
    vals = [solved(_gd_old_and_new(spec, L, N)) for spec in (L, SmoothStronglyConvex(L, 0.0))]
    assert abs(vals[0] - vals[1]) <= 1e-12 * abs(vals[0])
    assert rel(vals[1], L / (4 * N + 2)) <= TOL


@pytest.mark.parametrize("M,R,N", [(1.0, 1.0, 1), (0.5, 2.0, 4)])
def test_subgradient_method_best_iterate(M: float, R: float, N: int) -> None:
    """min_t f(x_t) - f* <= M R / sqrt(N+1) with step R/(M sqrt(N+1)), tight (Nesterov 2003, Sec 3.2.3)."""
    pep = PEP()
    f = pep.function(ConvexLipschitz(M))
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - R * R)
    step = R / (M * math.sqrt(N + 1))
    vals = []
    for _ in range(N):
        g, fx = f.oracle(x)
        vals.append(fx)
        x = x - step * g
    vals.append(f.value(x))
    t = pep.maximize_min(vals)
    sol = pep.solve()
    assert rel(sol.value, M * R / math.sqrt(N + 1)) <= TOL
    assert abs(pep.evaluate(t, sol) - sol.value) <= 1e-9


@pytest.mark.parametrize("gamma,N,R", [(1.0, 1, 1.0), (0.5, 3, 2.0)])
def test_proximal_point_rate(gamma: float, N: int, R: float) -> None:
    """f(x_N) - f* <= R^2 / (4 gamma N), tight (Taylor, Hendrickx & Glineur 2017, SIAM J. Optim., Thm 4.1)."""
    pep = PEP()
    f = pep.function(Convex())
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - R * R)
    fx = Scalar()
    for _ in range(N):
        x, g, fx = f.prox(x, gamma)
    pep.maximize(fx)
    assert rel(solved(pep), R * R / (4 * gamma * N)) <= TOL


@pytest.mark.parametrize("N", [1, 3])
def test_nonconvex_gd_min_gradient(N: int) -> None:
    """min_t ||grad f(x_t)||^2 <= 4L/(3N) (f(x_0) - f(x_N)) at step 1/L (PEPit nonconvex_optimization/
    gradient_descent, documented tight; Abbaszadehpeivasti, de Klerk & Zamani 2021)."""
    L = 2.0
    pep = PEP()
    f = pep.function(SmoothNonconvex(L))
    x = pep.vector()
    g, f0 = f.oracle(x)
    meas = [sqnorm(g)]
    fx = f0
    for _ in range(N):
        x = x - (1 / L) * g
        g, fx = f.oracle(x)
        meas.append(sqnorm(g))
    pep.add_le(f0 - fx - 1)
    pep.maximize_min(meas)
    assert rel(solved(pep), 4 * L / (3 * N)) <= TOL


@pytest.mark.parametrize("h,N,measure", [(1.0, 2, "dist"), (1.5, 1, "value"), (0.7, 3, "value")])
def test_strongly_convex_equals_shift_construction(h: float, N: int, measure: str) -> None:
    """f is L-smooth mu-strongly convex iff h = f - mu/2 ||x||^2 is (L - mu)-smooth convex: GD on f written with
    the class and with the shift (x+ = (1 - h mu) x - h grad h(x), f = h + mu/2 ||x||^2) has one worst case."""
    L, mu = 1.0, 0.25
    vals = []
    for shift in (False, True):
        pep = PEP()
        f = pep.function(SmoothStronglyConvex(L - mu, 0) if shift else SmoothStronglyConvex(L, mu))
        f.optimum()                                     # grad f(0) = 0 and grad h(0) = grad f(0) - mu 0 = 0
        x = pep.vector()
        pep.add_le(sqnorm(x) - 1)
        for _ in range(N):
            x = (1 - h * mu) * x - h * f.grad(x) if shift else x - h * f.grad(x)
        if measure == "dist":
            pep.maximize(sqnorm(x))
        else:
            pep.maximize(f.value(x) + (0.5 * mu) * sqnorm(x) if shift else f.value(x))
        vals.append(solved(pep))
    assert rel(vals[0], vals[1]) <= TOL


@pytest.mark.parametrize("gamma,N", [(1.0, 2), (1.5, 1)])
def test_projected_gradient_rate(gamma: float, N: int) -> None:
    """Projected gradient x+ = Proj_C(x - gamma grad f(x)): ||x_N - x*||^2 <= max((1-mu gamma)^2, (1-L gamma)^2)^N,
    tight (Taylor, Hendrickx & Glineur 2018, JOTA, Thm 3.1 for any closed convex f_2; C = R^d attains it)."""
    L, mu = 1.0, 0.1
    pep = PEP()
    f, c = pep.function(SmoothStronglyConvex(L, mu)), pep.function(ConvexIndicator())
    pep.optimum_of_sum([f, c])
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    for _ in range(N):
        x = c.project(x - gamma * f.grad(x))
    pep.maximize(sqnorm(x))
    assert rel(solved(pep), max((1 - mu * gamma) ** 2, (1 - L * gamma) ** 2) ** N) <= TOL
    assert all(not p.f.lin for p in c.points)                # indicator values are the constant 0


def test_projection_is_nonexpansive_and_diameter_bounds_it() -> None:
    """max ||P(y1) - P(y2)||^2 over closed convex sets: ||y1 - y2||^2 (nonexpansive, tight for C = R^d); over sets of
    diameter D with y1, y2 free: D^2 (two points of C at distance D)."""
    for D, bound, expect in ((math.inf, 0.7, 0.7), (1.5, None, 2.25)):
        pep = PEP()
        c = pep.function(ConvexIndicator(D))
        y1, y2 = pep.vector(), pep.vector()
        if bound is not None:
            pep.add_le(sqnorm(y1 - y2) - bound)
        pep.maximize(sqnorm(c.project(y1) - c.project(y2)))
        assert rel(solved(pep), expect) <= TOL


@pytest.mark.parametrize("eps,N", [(0.1, 1), (0.1, 2), (0.3, 2)])
def test_inexact_gradient_rate(eps: float, N: int) -> None:
    """Relative inexactness ||d - grad f|| <= eps ||grad f||, step 2/(L_eps + mu_eps): f(x_N) - f* <=
    ((L_eps - mu_eps)/(L_eps + mu_eps))^{2N} (f(x_0) - f*), tight (de Klerk, Glineur & Taylor 2020, Thm 5.3)."""
    L, mu = 1.0, 0.1
    Le, me = (1 + eps) * L, (1 - eps) * mu
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, mu))
    f.optimum()
    x = pep.vector()
    pep.add_le(f.value(x) - 1)
    n_before = len(pep._ineq)
    for _ in range(N):
        x = x - (2 / (Le + me)) * f.inexact_grad(x, eps)
    assert len(pep._ineq) == n_before + N                    # one row per inexact gradient
    pep.maximize(f.value(x))
    assert rel(solved(pep), ((Le - me) / (Le + me)) ** (2 * N)) <= TOL


def test_former_finding_exact_gradient_inexact_model_now_exact() -> None:
    """Formerly a recorded finding: with epsilon = 0 the row ||d - g||^2 <= 0 has no strictly feasible point and the
    float solve missed the tight value ((L - mu)/(L + mu))^4 by 1.3e-6 relative (n = 2) - an artefact of float
    accuracy, not of the model.  ``inexact_grad(x, 0)`` now returns the exact gradient (||d - g|| <= 0 iff d = g:
    facial reduction, no row), and the value meets the closed form to 1e-6.  The old formulation, kept by hand,
    still misses in floats (the demonstration that the row, not the rate, was the problem)."""
    from fairtheory.worstcase.pepit_examples import inexact_gradient_descent

    r = inexact_gradient_descent(L=1.0, mu=0.1, epsilon=0.0, n=2)
    assert r.theory == pytest.approx((0.9 / 1.1) ** 4, rel=1e-15)
    assert r.rel_diff <= 1e-6 and r.agrees
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(1.0, 0.1))
    f.optimum()
    x = pep.vector()
    assert f.inexact_grad(x, 0) is f.grad(x)                # no new vector, no row
    pep.add_le(f.value(x) - 1)
    for _ in range(2):
        g = f.grad(x)
        d = pep.vector()
        pep.add_le(sqnorm(d - g))                          # the old row, eps = 0
        x = x - (2 / 1.1) * d
    pep.maximize(f.value(x))
    assert rel(pep.solve(gmp="never").value, r.theory) > 1e-6


# ------------------------------------------------------------------ oracles
def test_nonsmooth_oracle_gives_a_new_subgradient_smooth_reuses() -> None:
    pep = PEP()
    f, h = pep.function(2.0), pep.function(Convex())
    x = pep.vector()
    assert f.grad(x) is f.grad(x)
    g1, v1 = h.oracle(x)
    g2, v2 = h.oracle(x)
    assert g1.key() != g2.key() and v1 is v2 and len(h.points) == 2
    assert h.value(x) is v1


def test_optimum_of_sum_gradients_sum_to_zero() -> None:
    pep = PEP()
    fs = [pep.function(1.0), pep.function(Convex()), pep.function(ConvexIndicator())]
    xs, gs = pep.optimum_of_sum(fs)
    total = gs[0] + gs[1] + gs[2]
    assert not np.any(total.c) and not np.any(xs.c)
    assert all(f.points[0].f.lin == {} and f.points[0].f.const == 0 for f in fs)


# ------------------------------------------------------------------ validation
@pytest.mark.parametrize("make,arg", [
    (lambda: SmoothStronglyConvex(1.0, 1.0), "mu"),
    (lambda: SmoothStronglyConvex(1.0, 2.0), "mu"),
    (lambda: SmoothStronglyConvex(1.0, -0.1), "mu"),
    (lambda: SmoothStronglyConvex(float("nan"), 0), "L"),
    (lambda: SmoothStronglyConvex(math.inf, 0), "L"),
    (lambda: SmoothStronglyConvex(0.0, 0), "L"),
    (lambda: ConvexLipschitz(0.0), "M"),
    (lambda: ConvexLipschitz(-1.0), "M"),
    (lambda: ConvexLipschitz(float("nan")), "M"),
    (lambda: ConvexIndicator(0.0), "D"),
    (lambda: ConvexIndicator(float("nan")), "D"),
    (lambda: SmoothNonconvex(-2.0), "L"),
    (lambda: PEP().function(-1.0), "L"),
])
def test_named_value_errors(make, arg: str) -> None:
    with pytest.raises(FairtheoryValueError, match=arg):
        make()


def test_named_type_errors_and_misuse() -> None:
    with pytest.raises(FairtheoryTypeError, match="M"):
        ConvexLipschitz("2")
    with pytest.raises(FairtheoryTypeError, match="L"):
        SmoothNonconvex(True)
    with pytest.raises(FairtheoryTypeError, match="instance"):
        PEP().function(Convex)
    pep = PEP()
    f, c = pep.function(1.0), pep.function(ConvexIndicator())
    x = pep.vector()
    with pytest.raises(FairtheoryValueError, match="gamma"):
        f.prox(x, 0.0)
    with pytest.raises(FairtheoryValueError, match="eps"):
        f.inexact_grad(x, -0.1)
    with pytest.raises(FairtheoryValueError, match="ConvexIndicator"):
        f.project(x)
    c.optimum()
    with pytest.raises(FairtheoryValueError, match="optimum"):
        c.optimum()
    with pytest.raises(FairtheoryValueError, match="measures"):
        pep.maximize_min([])
    with pytest.raises(FairtheoryValueError, match="funcs"):
        pep.optimum_of_sum([f, f])
