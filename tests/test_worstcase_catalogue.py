"""Twin tests of the function classes and step oracles of PEPit's catalogue (fairtheory.worstcase.classes / steps).

Every class and step is checked against a value computed by hand (an explicit worst-case function and the
argument that nothing does worse), a closed form from a paper at parameters other than the parity claims', or a
second formulation of the same PEP; and its rows are evaluated on explicit members (must hold) and non-members
(must fail).  Ground truth never comes from the builder under test."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.worstcase.classes import (
    BlockSmoothConvex,
    Convex,
    ConvexIndicator,
    ConvexLipschitz,
    ConvexQG,
    ConvexSupport,
    RsiEb,
    SmoothConvexLipschitz,
    SmoothQuadraticLojasiewicz,
    SmoothStronglyConvex,
    SmoothStronglyConvexQuadratic,
    StronglyConvex,
)
from fairtheory.worstcase.pepit_examples import EXAMPLES
from fairtheory.worstcase.sdp import PEP, Scalar, Vec, sqnorm
from fairtheory.worstcase.steps import (
    BlockPartition,
    Combination,
    bregman_gradient_step,
    bregman_proximal_step,
    epsilon_subgradient_step,
    exact_linesearch_step,
    inexact_gradient,
    inexact_proximal_step,
    linear_optimization_step,
)

TOL = 1e-6


def _gd(cls, gamma: float, n: int, measure: str = "value", init: str = "distance") -> float:
    pep = PEP()
    f = pep.function(cls)
    f.optimum()
    x = pep.vector()
    pep.add_le((sqnorm(x) if init == "distance" else f.value(x)) - 1)
    for _ in range(n):
        x = x - gamma * f.grad(x)
    pep.maximize(f.value(x) if measure == "value" else sqnorm(x))
    return pep.solve().value


# ------------------------------------------------------------------ rows on explicit members / non-members
def _rows_hold(cls, pts: list[tuple[np.ndarray, np.ndarray, float]], optimum: bool = True) -> float:
    """Largest row value of ``cls`` at explicit points (``x`` in R^d as coordinates): the symbolic points are the
    coordinates themselves (basis = the standard basis), so each row evaluates to a number."""
    d = pts[0][0].size
    pep = PEP()
    [pep.vector() for _ in range(d)]
    f = pep.function(cls)
    if optimum:
        f.optimum()
    for x, g, val in pts:
        f.add_point(Vec(np.asarray(x, dtype=float)), Vec(np.asarray(g, dtype=float)), Scalar(const=float(val)))
    eye = np.eye(d)
    worst = -math.inf
    for r, _ in cls.interpolation(f.points):
        v = float(r.const)
        for c, u, w in r.quad:
            uc, wc = np.zeros(d), np.zeros(d)
            uc[: u.c.size], wc[: w.c.size] = u.c, w.c
            v += float(c) * float(uc @ eye @ wc)
        worst = max(worst, v)
    return worst


def test_strongly_convex_rows_on_members_and_prox_contraction() -> None:
    rng = np.random.default_rng(0)
    mu = 0.5
    xs = rng.normal(size=(5, 3))
    # f = mu/2 ||x||^2 + |x_1|: mu-strongly convex, nonsmooth (subgradient sign(x_1) e_1)
    pts = [(x, mu * x + np.sign(x[0]) * np.eye(3)[0], mu / 2 * x @ x + abs(x[0])) for x in xs]
    assert _rows_hold(StronglyConvex(mu), pts) <= 1e-12
    # f = 0.4/2 ||x||^2 is not 0.5-strongly convex
    bad = [(x, 0.4 * x, 0.2 * x @ x) for x in xs]
    assert _rows_hold(StronglyConvex(mu), bad) > 1e-3
    # hand-computed: prox_{gamma f} of a mu-strongly convex f contracts by 1/(1 + gamma mu) towards x*, attained by
    # f = mu/2 ||x||^2; n steps, ||x0 - x*|| <= 1: ||x_n - x*||^2 = (1 + gamma mu)^(-2n)
    gamma, n = 2.0, 3
    pep = PEP()
    f = pep.function(StronglyConvex(mu))
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    for _ in range(n):
        x = f.prox(x, gamma)[0]
    pep.maximize(sqnorm(x))
    assert pep.solve().value == pytest.approx((1 + gamma * mu) ** (-2 * n), rel=TOL)


def test_smooth_convex_lipschitz_inactive_and_sandwiched() -> None:
    """Relaxation.  M >= L R: along GD (h <= 1/L) ||g_k|| <= L ||x_k - x*|| <= L R, so the Lipschitz rows are implied
    and the value is Drori & Teboulle's L R^2/(4N + 2).  M small: between Huber's value (an explicit member, a lower
    bound) and M R (f - f* <= M ||x - x*|| <= M R along nonexpansive GD)."""
    L, N = 1.0, 3
    cls = SmoothConvexLipschitz(L, 1.0)
    assert not cls.exact
    assert _gd(cls, 1 / L, N) == pytest.approx(L / (4 * N + 2), rel=TOL)
    M = 0.05
    val = _gd(SmoothConvexLipschitz(L, M), 1 / L, N)
    # Huber h(x) = M |x| - M^2/(2L) for |x| >= M/L, from x0 = 1: GD moves by M/L per step while |x| >= M/L
    x = 1.0
    for _ in range(N):
        x -= (M if abs(x) >= M / L else L * x) / L
    huber = M * abs(x) - M * M / (2 * L) if abs(x) >= M / L else L * x * x / 2
    assert huber - 1e-9 <= val <= M * 1.0 + 1e-9
    # its rows hold on the Huber function's points, fail on a gradient above M
    pts = [(np.array([t]), np.array([M * np.sign(t) if abs(t) >= M / L else L * t]),
            M * abs(t) - M * M / (2 * L) if abs(t) >= M / L else L * t * t / 2) for t in (-1.0, 0.02, 0.3, 2.0)]
    assert _rows_hold(SmoothConvexLipschitz(L, M), pts) <= 1e-12
    assert _rows_hold(SmoothConvexLipschitz(L, M / 2), pts) > 1e-4


def test_quadratic_class_spectral_max_and_members() -> None:
    """GD on quadratics mu I <= Q <= L I: the worst case of f(x_n) - f* is max_lambda lambda/2 (1 - gamma lambda)^(2n)
    over [mu, L] (x0 on one eigenvector); computed here by a dense grid plus the stationary points, at parameters other
    than the parity claim's."""
    mu, L, gamma, n = 0.1, 1.0, 1.5, 2
    lam = np.concatenate([np.linspace(mu, L, 20001), [1 / (gamma * (2 * n + 1))]])
    lam = lam[(lam >= mu) & (lam <= L)]
    truth = float(np.max(lam / 2 * (1 - gamma * lam) ** (2 * n)))
    assert _gd(SmoothStronglyConvexQuadratic(L, mu), gamma, n) == pytest.approx(truth, rel=TOL)
    # the quadratic class is a subclass of the smooth strongly convex class: its value is at most the latter's
    assert _gd(SmoothStronglyConvexQuadratic(L, mu), 1.0, 2) <= _gd(SmoothStronglyConvex(L, mu), 1.0, 2) + 1e-7


def test_quadratic_rows_on_an_explicit_quadratic() -> None:
    """The lifted rows of an explicit quadratic are feasible: with the PEP's own points at Q's data, the equalities
    f = <x, g>/2 and symmetry hold and T = (L + mu) G^T X - G^T G - mu L X^T X is PSD; a non-symmetric 'Q' fails."""
    rng = np.random.default_rng(1)
    Q = np.diag([0.2, 0.5, 1.0])
    X = rng.normal(size=(3, 4))
    G = Q @ X
    T = (1.0 + 0.2) * G.T @ X - G.T @ G - 0.2 * X.T @ X
    assert np.allclose(T, T.T) and np.linalg.eigvalsh(T).min() >= -1e-12
    Qbad = np.array([[0.5, 0.3, 0], [0, 0.5, 0], [0, 0, 0.5]])
    Gb = Qbad @ X
    assert not np.allclose(X.T @ Gb, Gb.T @ X)
    Q2 = np.diag([0.1, 0.5, 1.0])  # eigenvalue 0.1 < mu = 0.2: T is not PSD
    G2 = Q2 @ X
    T2 = (1.2) * G2.T @ X - G2.T @ G2 - 0.2 * X.T @ X
    assert np.linalg.eigvalsh(T2).min() < -1e-6


def test_convex_support_one_prox_step_hand_computed() -> None:
    """One proximal step (gamma = 1) on a support function sigma_C, 0 in C inside the ball of radius M, ||x0|| <= 1:
    x1 = x0 - P_C(x0) (Moreau) and sigma_C(x1) = <c, x0 - c> with c = P_C(x0), at most max_{||c|| <= M} ||c|| - ||c||^2
    = M(1 - M) for M < 1/2, 1/4 otherwise; attained by C = [0, c] with c along x0."""
    for M, truth in ((0.3, 0.3 * 0.7), (2.0, 0.25)):
        pep = PEP()
        f = pep.function(ConvexSupport(M))
        f.optimum()
        x0 = pep.vector()
        pep.add_le(sqnorm(x0) - 1)
        _, _, f1 = f.prox(x0, 1.0)
        pep.maximize(f1)
        assert pep.solve().value == pytest.approx(truth, rel=TOL)
    # rows: sigma of the ball of radius 1 (f = ||x||) holds; a gradient outside the ball (||g|| = 2 > M = 1) fails
    xs = np.random.default_rng(2).normal(size=(4, 2))
    pts = [(x, x / np.linalg.norm(x), np.linalg.norm(x)) for x in xs]
    assert _rows_hold(ConvexSupport(1.0), pts) <= 1e-12
    assert _rows_hold(ConvexSupport(1.0), [(x, 2 * g, 2 * v) for x, g, v in pts]) > 1e-3


def test_qg_and_rsi_closed_forms_other_parameters_and_scaling() -> None:
    """Goujaud, Taylor & Dieuleveut 2022, Thm 2.2 (GD on QG+ convex) and Guille-Escuret et al. 2022 (GD on RSI/EB) at
    parameters the parity claims do not use; L = 1e8 gives the L = 1 value times L (the class scaled badly)."""
    L, gamma, n = 2.0, 0.3, 2
    assert _gd(ConvexQG(L), gamma, n) == pytest.approx(L / 2 * max(1 / (2 * n * L * gamma + 1), L * gamma), rel=TOL)
    big = 1e8
    assert _gd(ConvexQG(big), 0.2 / big, 3) == pytest.approx(big * _gd(ConvexQG(1.0), 0.2, 3), rel=TOL)
    mu, L, gamma, n = 0.3, 1.0, 0.3, 2
    assert _gd(RsiEb(mu, L), gamma, n, measure="distance") == pytest.approx((1 - 2 * gamma * mu + gamma ** 2 * L ** 2) ** n,
                                                                           rel=TOL)
    with pytest.raises(FairtheoryValueError, match="optimum"):
        pep = PEP()
        f = pep.function(ConvexQG(1.0))
        x = pep.vector()
        pep.add_le(sqnorm(x) - 1)
        pep.maximize(f.value(x - f.grad(x)))
        pep.solve()


def test_lojasiewicz_relaxation_bounds_its_subclass() -> None:
    """A relaxation: mu-strongly convex L-smooth functions are mu-Lojasiewicz, so GD's worst case over the Lojasiewicz
    relaxation is at least GD's over SmoothStronglyConvex(L, mu) (Polyak 1963 / Karimi et al. 2016, Thm 1), and the
    one-step value is the paper's closed form at gamma = 1/L (Abbaszadehpeivasti, de Klerk & Zamani 2023)."""
    L, mu = 1.0, 0.3
    relax = _gd(SmoothQuadraticLojasiewicz(L, mu), 1 / L, 1, init="value")
    sc = _gd(SmoothStronglyConvex(L, mu), 1 / L, 1, init="value")
    assert relax >= sc - 1e-8
    m = -L
    rho = ((L * 1 - 2) * (m * 1 - 2) * mu) / ((L + m - mu) - 2) + 1
    assert relax == pytest.approx(rho, rel=TOL)


def test_block_smooth_one_block_is_smooth_convex() -> None:
    """With one block the block-smooth rows are the smooth convex ones: GD's value is L/(4N + 2); with two blocks of
    equal L the relaxation can only be larger (more candidate functions), and the partition's blocks are orthogonal."""
    pep = PEP()
    part = BlockPartition(pep, 1)
    f = pep.function(BlockSmoothConvex(part, [1.0]))
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    for _ in range(2):
        x = x - f.grad(x)
    pep.maximize(f.value(x))
    assert pep.solve().value == pytest.approx(1 / 10, rel=TOL)
    pep = PEP()
    part = BlockPartition(pep, 2)
    f = pep.function(BlockSmoothConvex(part, [1.0, 1.0]))
    f.optimum()
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    x = x0
    for i in range(2):   # cyclic block coordinate descent, step 1/L_b
        x = x - part.block(f.grad(x), i % 2)
    pep.maximize(f.value(x))
    sol = pep.solve()
    assert sol.value >= 1 / 10 - 1e-8
    g0 = f.grad(x0)
    b0, b1 = part.block(g0, 0), part.block(g0, 1)
    assert abs(pep.evaluate(Scalar([(1, b0, b1)]), sol)) <= 1e-7
    with pytest.raises(FairtheoryValueError, match="one smoothness constant per block"):
        BlockSmoothConvex(part, [1.0])


def test_cyclic_block_coordinate_descent_matches_pepit() -> None:
    """Cyclic block coordinate descent x <- x - grad_(i) f(x)/L_i on BlockSmoothConvex(L = [1, 2, 10]), 9 steps,
    ||x0 - x*|| <= 1: PEPit's example unconstrained_convex_minimization/cyclic_coordinate_descent prints 1.48928 (its
    BlockSmoothConvexFunctionCheap, the same relaxation; no closed form is known - an independent tool's value)."""
    L = [1.0, 2.0, 10.0]
    pep = PEP()
    part = BlockPartition(pep, 3)
    f = pep.function(BlockSmoothConvex(part, L))
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    for k in range(9):
        x = x - (1 / L[k % 3]) * part.block(f.grad(x), k % 3)
    pep.maximize(f.value(x))
    assert abs(pep.solve().value - 1.48928) <= 5e-6 * 1.48928


def test_indicator_radius_and_lmo_diameter() -> None:
    """Two linear-minimisation points of a set inside a ball of radius R (or of diameter D) are at most 2R (D) apart,
    attained by the ball (the segment): hand-computed 4 R^2 and D^2."""
    for cls, truth in ((ConvexIndicator(R=1.5), 9.0), (ConvexIndicator(D=0.7), 0.49),
                       (ConvexIndicator(D=0.7, R=1.5), 0.49)):
        pep = PEP()
        ind = pep.function(cls)
        d = pep.vector()
        pep.add_le(sqnorm(d) - 1)
        y1, _, _ = linear_optimization_step(ind, d)
        y2, _, _ = linear_optimization_step(ind, -d)
        pep.maximize(sqnorm(y1 - y2))
        assert pep.solve().value == pytest.approx(truth, rel=TOL)
    # a given center: the LMO point in direction d is within R of it, ||y - c||^2 <= R^2 (attained: the ball)
    pep = PEP()
    c = pep.vector()
    pep.add_le(sqnorm(c) - 4.0)
    ind = pep.function(ConvexIndicator(R=0.5, center=c))
    d = pep.vector()
    pep.add_le(sqnorm(d) - 1)
    y, _, _ = linear_optimization_step(ind, d)
    pep.maximize(sqnorm(y))
    assert pep.solve().value == pytest.approx((2.0 + 0.5) ** 2, rel=TOL)   # ||y|| <= ||c|| + R
    pep = PEP()
    with pytest.raises(FairtheoryValueError, match="indicator"):
        linear_optimization_step(pep.function(Convex()), pep.vector())
    with pytest.raises(FairtheoryTypeError, match="center"):
        ConvexIndicator(R=1.0, center=3.0)


def test_epsilon_subgradient_with_eps_zero_is_the_subgradient_method() -> None:
    """eps = 0: an eps-subgradient is a subgradient, and the method's tight value with bounded subgradients and step
    1/(M sqrt(n+1)) is M R/sqrt(n+1) (Drori & Teboulle 2016) - the ConvexLipschitz subgradient method's."""
    M, n = 1.0, 3
    gamma = 1 / (M * math.sqrt(n + 1))
    pep = PEP()
    f = pep.function(Convex())
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    meas = []
    for _ in range(n):
        x, g, fx, e = epsilon_subgradient_step(f, x, gamma)
        meas.append(fx)
        pep.add_le(e)
        pep.add_le(sqnorm(g) - M ** 2)
    g, fx = f.oracle(x)
    pep.add_le(sqnorm(g) - M ** 2)
    meas.append(fx)
    pep.maximize_min(meas)
    assert pep.solve().value == pytest.approx(M / math.sqrt(n + 1), rel=TOL)


def test_exact_line_search_on_quadratics_is_kantorovich() -> None:
    """One exact line search step on quadratics mu I <= Q <= L I: f(x_1) - f* <= ((L - mu)/(L + mu))^2 (f(x_0) - f*),
    Kantorovich's inequality, attained by a two-eigenvalue quadratic (Luenberger & Ye 2008, Sec 8.2) - a second
    formulation (the quadratic class) of de Klerk, Glineur & Taylor's rate."""
    L, mu = 1.0, 0.25
    pep = PEP()
    f = pep.function(SmoothStronglyConvexQuadratic(L, mu))
    f.optimum()
    x0 = pep.vector()
    g0, f0 = f.oracle(x0)
    pep.add_le(f0 - 1)
    _, _, f1 = exact_linesearch_step(f, x0, [g0])
    pep.maximize(f1)
    assert pep.solve(gmp="always").value == pytest.approx(((L - mu) / (L + mu)) ** 2, rel=TOL)
    with pytest.raises(FairtheoryValueError, match="direction"):
        exact_linesearch_step(f, x0, [])


def test_bregman_gradient_step_second_formulation() -> None:
    """NoLips (Dragomir, Taylor, d'Aspremont & Bolte 2021, Thm 1: f(x_n) - f* <= D_h(x*, x0)/(gamma n), tight) written a
    second way: the mirror h a leaf (convex, one gradient per point) and d = L h - f the derived function, whose points
    (x, L grad h - grad f, L h - f) are added by hand - instead of h = (d + f)/L as a Combination (the parity claim)."""
    L, gamma, n = 1.0, 0.5, 2
    pep = PEP()
    h = pep.function(Convex(reuse_gradient=True), "h")
    f = pep.function(Convex(reuse_gradient=True), "f")
    d = pep.function(Convex(reuse_gradient=True), "d")
    ind = pep.function(ConvexIndicator(), "C")
    pep.optimum_of_sum([f, ind])

    def tie(x: Vec) -> None:       # d's point at x from h's and f's
        gh, hx = h.oracle(x)
        gf, fx = f.oracle(x)
        d.add_point(x, L * gh - gf, L * hx - fx)

    xs = pep.zero()
    ghs, hs = h.oracle(xs)
    tie(xs)
    x = pep.vector()
    gh, hx = h.oracle(x)
    tie(x)
    pep.add_le(hs - hx - Scalar([(1, gh, xs - x)]) - 1)
    fx = Scalar()
    for _ in range(n):
        gf = f.grad(x)
        x, sx, _ = bregman_gradient_step(Combination([(1, ind), (1, h)]), gh, gf, gamma)
        gh = h.grad(x)
        tie(x)
        fx = f.value(x)
    pep.maximize(fx)
    assert pep.solve().value == pytest.approx(1 / (gamma * n), rel=TOL)


def test_bregman_proximal_step_mirror_as_a_combination() -> None:
    """Bregman proximal point (Teboulle 2018, Thm 4.1: f(x_n) - f* <= D_h(x*, x0)/(gamma n), tight) with the mirror
    h = (h_1 + h_2)/2 of two convex leaves (every convex h is one: h = h/2 + h/2) - the same class, the same value."""
    gamma, n = 2.0, 3
    pep = PEP()
    f = pep.function(Convex(), "f")
    h1, h2 = pep.function(Convex(), "h1"), pep.function(Convex(), "h2")
    h = Combination([(0.5, h1), (0.5, h2)])
    f.optimum()
    xs = pep.zero()
    ghs, hs = h.oracle(xs)
    x0 = pep.vector()
    gh, h0 = h.oracle(x0)
    pep.add_le(hs - h0 - Scalar([(1, gh, xs - x0)]) - 1)
    fx = Scalar()
    for _ in range(n):
        _, gh, _, _, fx = bregman_proximal_step(h, f, gh, gamma)
    pep.maximize(fx)
    assert pep.solve().value == pytest.approx(1 / (gamma * n), rel=TOL)


def _inexact_pp(opt: str, eps: float, gamma: float = 2.0, n: int = 2) -> float:
    pep = PEP()
    f = pep.function(Convex())
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    fx = Scalar()
    for _ in range(n):
        x, _, fx, _, _, _, e = inexact_proximal_step(f, x, gamma, opt=opt)
        pep.add_le(e - eps)
    pep.maximize(fx)
    return pep.solve().value


def test_inexact_prox_gap_notions_nest_and_tend_to_the_proximal_point_method() -> None:
    """The three gap notions of Barre, Taylor & Bach 2023: PD_gapII (w = x, v = g) and PD_gapIII (e = 0) are special
    cases of PD_gapI at the same eps, so their worst cases are at most PD_gapI's; every one is at least the exact proximal
    point method's R^2/(4 gamma n) (Taylor, Hendrickx & Glineur 2017) and tends to it as eps -> 0 (I and II like
    sqrt(eps): the error ||e|| <= sqrt(2 eps); III like eps).  eps = 0 itself is a face without strictly feasible points
    (the float and GMP solves stall there), hence the limit."""
    exact = 1 / (4 * 2.0 * 2)
    for eps in (1e-2, 1e-6):
        v1, v2, v3 = (_inexact_pp(o, eps) for o in ("PD_gapI", "PD_gapII", "PD_gapIII"))
        assert v2 <= v1 + 1e-7 and v3 <= v1 + 1e-7
        assert min(v1, v2, v3) >= exact - 1e-7
    assert v1 - exact <= 1e-3 and v2 - exact <= 1e-3 and v3 - exact <= 1e-5
    pep = PEP()
    f = pep.function(Convex())
    with pytest.raises(FairtheoryValueError, match="opt"):
        inexact_proximal_step(f, pep.vector(), 1.0, opt="gap")


def test_absolute_inexact_gradient_hand_computed() -> None:
    """One step x1 = x0 - d/L with ||d - grad f(x0)|| <= eps on L-smooth convex f, ||x0 - x*|| <= 1: ||x0 - g/L - x*|| <=
    ||x0 - x*|| (the gradient step is nonexpansive towards x*), so ||x1 - x*|| <= 1 + eps/L, attained by f = 0 with d
    along x0: (1 + eps/L)^2."""
    L, eps = 2.0, 0.3
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, 0))
    f.optimum()
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    x1 = x0 - (1 / L) * inexact_gradient(f, x0, eps, notion="absolute")
    pep.maximize(sqnorm(x1))
    assert pep.solve().value == pytest.approx((1 + eps / L) ** 2, rel=TOL)
    assert inexact_gradient(f, x0, 0.0) is f.grad(x0)
    with pytest.raises(FairtheoryValueError, match="notion"):
        inexact_gradient(f, x0, 0.1, notion="other")
    with pytest.raises(FairtheoryTypeError, match="eps"):
        inexact_gradient(f, x0, "0.1")


def test_block_partition_and_combination_validation() -> None:
    pep = PEP()
    with pytest.raises(FairtheoryValueError, match="blocks"):
        BlockPartition(pep, 0)
    part = BlockPartition(pep, 3)
    v = pep.vector()
    parts = part.split(v)
    total = parts[0] + parts[1] + parts[2]
    assert total.key() == v.key() and part.split(v) is parts
    with pytest.raises(FairtheoryValueError, match="block"):
        part.block(v, 3)
    f = pep.function(Convex())
    with pytest.raises(FairtheoryValueError, match="nonzero"):
        Combination([(0.0, f)])
    with pytest.raises(FairtheoryValueError, match="distinct"):
        Combination([(1.0, f), (2.0, f)])
    with pytest.raises(FairtheoryTypeError, match="function of the PEP"):
        Combination([(1.0, "f")])


def test_new_classes_validate_and_flag_exactness() -> None:
    exact = [StronglyConvex(1), SmoothStronglyConvexQuadratic(1, 0.5), ConvexSupport(), ConvexQG(1), Convex(),
             ConvexLipschitz(1), ConvexIndicator(R=1)]
    relax = [SmoothConvexLipschitz(1, 1), RsiEb(0.5, 1), SmoothQuadraticLojasiewicz(1, 0.5)]
    assert all(c.exact for c in exact) and not any(c.exact for c in relax)
    for bad in (lambda: StronglyConvex(0), lambda: SmoothStronglyConvexQuadratic(1, 2), lambda: RsiEb(2, 1),
                lambda: SmoothQuadraticLojasiewicz(1, 0), lambda: ConvexQG(-1), lambda: SmoothConvexLipschitz(1, "2")):
        with pytest.raises((FairtheoryValueError, FairtheoryTypeError)):
            bad()
    with pytest.raises(FairtheoryTypeError, match="reuse_gradient"):
        Convex(reuse_gradient=1)


def test_catalogue_claims_registered() -> None:
    """At least 30 base.pepit.* claims, every example registered, the bound-type ones labelled."""
    import verify.claims.pepit_parity as pp
    from verify.core import REGISTRY

    assert len(pp.CLAIM_IDS) >= 30 and len(EXAMPLES) == len(pp.CLAIM_IDS)
    assert all(i in REGISTRY for i in pp.CLAIM_IDS)
    bounds = {n for n, e in EXAMPLES.items() if e.kind == "bound"}
    assert bounds == {"frank_wolfe", "epsilon_subgradient_method", "relatively_inexact_proximal_point_algorithm"}
    assert "at most" in REGISTRY["base.pepit.frank_wolfe"].statement


#: "PEPit guarantee" printed in the examples' docstrings (PEPit + MOSEK, 6 significant digits) at the quick parameters
#: where they coincide with PEPit's published ones: an independent tool's value (never our ground truth: the claims
#: compare to the papers' closed forms)
PEPIT_PRINTED = {"frank_wolfe": 0.0782895, "epsilon_subgradient_method": 1.01916, "gradient_exact_line_search": 0.448125,
                 "conjugate_gradient": 0.0618942, "gradient_descent_qg_convex": 0.192308,
                 "subgradient_method_rsi_eb": 0.960596, "gradient_descent_quadratics": 0.0649574,
                 "no_lips_in_function_value": 0.666667, "bregman_proximal_point": 0.0666667,
                 "online_gradient_descent": 0.707107, "gradient_flow_strongly_convex": -0.2}


@pytest.mark.parametrize("name", sorted(PEPIT_PRINTED))
def test_new_examples_match_pepit_printed_values(name: str) -> None:
    ex = EXAMPLES[name]
    r = ex.run(**ex.quick[0])
    assert r.agrees
    assert abs(r.ours - PEPIT_PRINTED[name]) <= 5e-6 * abs(PEPIT_PRINTED[name])


# ------------------------------------------------------------------ the tracer accepts any class
def test_traced_method_on_qg_class_equals_hand_written_pep() -> None:
    """worst_case(fedavg, n = 1, kappa = 1) is gradient descent: on ConvexQG(1) with lr = 0.2, T = 4 it equals the
    hand-written PEP and Goujaud, Taylor & Dieuleveut's closed form (L/2) max(1/(2 T L lr + 1), L lr)."""
    from fairtheory.algorithms import fedavg
    from fairtheory.worstcase import worst_case

    w = worst_case(fedavg.make, 4, n=1, D0=1.0, rho2=0.0, function_class=ConvexQG(1.0), lr=0.2)
    hand = EXAMPLES["gradient_descent_qg_convex"].run(L=1.0, gamma=0.2, n=4)
    assert w.value == pytest.approx(hand.ours, rel=TOL) and w.value == pytest.approx(hand.theory, rel=TOL)
    assert w.value_is == "solver" and w.params["function_class"] == ["ConvexQG(L=1.0)"]
    # the units: D0 = 4 scales the value by 4 (f - f* <= L/2 ||x - x*||^2 is homogeneous of degree 2)
    w4 = worst_case(fedavg.make, 4, n=1, D0=4.0, rho2=0.0, function_class=ConvexQG(1.0), lr=0.2)
    assert w4.value == pytest.approx(4 * hand.theory, rel=TOL)


def test_traced_per_client_classes_equal_hand_written_pep() -> None:
    """Two clients of different classes (ConvexLipschitz(1) and SmoothStronglyConvex(1, 0)), FedAvg with one local step
    (x+ = x - lr sum_i p_i g_i(x)), sum_i p_i ||g_i(x*)||^2 <= rho2: the traced worst case equals the PEP written by hand
    with the builder (optimum gradients g_1* = -g_2*, p uniform)."""
    from fairtheory.algorithms import fedavg
    from fairtheory.worstcase import worst_case

    lr, T, rho2 = 0.5, 2, 1.0
    w = worst_case(fedavg.make, T, n=2, D0=1.0, rho2=rho2, function_class=[ConvexLipschitz(1.0),
                                                                         SmoothStronglyConvex(1.0, 0)], lr=lr)
    pep = PEP()
    f1, f2 = pep.function(ConvexLipschitz(1.0)), pep.function(SmoothStronglyConvex(1.0, 0))
    star = pep.vector()
    f1.add_point(pep.zero(), star, Scalar())
    f2.add_point(pep.zero(), -star, Scalar())
    pep.add_le(0.5 * sqnorm(star) + 0.5 * sqnorm(-star) - rho2)
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1.0)
    for _ in range(T):
        x = x - lr * (0.5 * f1.grad(x) + 0.5 * f2.grad(x))
    pep.maximize(0.5 * f1.value(x) + 0.5 * f2.value(x))
    assert w.value == pytest.approx(pep.solve().value, rel=TOL)


def test_traced_general_classes_refusals_and_old_path_unchanged() -> None:
    from fairtheory.algorithms import fedavg
    from fairtheory.worstcase import worst_case
    from fairtheory.worstcase.classes import rescale

    with pytest.raises(FairtheoryValueError, match="own minimiser"):
        worst_case(fedavg.make, 1, n=2, D0=1.0, rho2=1.0, function_class=ConvexQG(1.0), lr=0.5)
    with pytest.raises(FairtheoryValueError, match="certificate"):
        worst_case(fedavg.make, 1, n=1, D0=1.0, rho2=0.0, function_class=ConvexQG(1.0), lr=0.5, certificate=True)
    with pytest.raises(FairtheoryValueError, match="once"):
        worst_case(fedavg.make, 1, n=1, L=1.0, D0=1.0, rho2=0.0, function_class=ConvexQG(1.0), lr=0.5)
    with pytest.raises(FairtheoryTypeError, match="rescaled"):
        rescale(BlockSmoothConvex(BlockPartition(PEP(), 2), [1.0, 1.0]), 1.0, 1.0)
    # rescale: x' = x/a, f' = f/b - curvature c a^2/b, gradient bounds M a/b, distances D/a
    assert rescale(ConvexQG(2.0), 2.0, 4.0).L == pytest.approx(2.0)
    assert rescale(ConvexLipschitz(3.0), 2.0, 4.0).M == pytest.approx(1.5)
    assert rescale(ConvexIndicator(D=3.0), 2.0, 4.0).D == pytest.approx(1.5)
    # SmoothStronglyConvex through function_class keeps the historical path (bit-identical data): same value as L=
    a = worst_case(fedavg.make, 2, n=2, D0=1.0, rho2=0.5, function_class=SmoothStronglyConvex(1.0, 0), lr=0.5)
    b = worst_case(fedavg.make, 2, n=2, L=1.0, D0=1.0, rho2=0.5, lr=0.5)
    assert a.value == b.value


def test_prox_on_large_M_class_is_scaled() -> None:
    """One prox step (gamma = 1) from ||x0|| <= 1 on an M-Lipschitz / support function with M = 3e7: ||x1 - x0||^2 <= 1
    (x1 - x0 = -g with g in df(x1), and ||x1 - x0|| <= ||x0 - x*|| by firm nonexpansiveness), attained by f = M ||x||
    (x1 = 0).  The solve returned -18559 (ConvexLipschitz) / 37122 (ConvexSupport) with status Solved while
    pep_units gave the prox-created gradient the unit M; now min(M, R/gamma)."""
    for cls in (ConvexLipschitz(3e7), ConvexSupport(3e7)):
        pep = PEP()
        f = pep.function(cls)
        f.optimum()
        x0 = pep.vector()
        pep.add_le(sqnorm(x0) - 1)
        x1 = f.prox(x0, 1.0)[0]
        pep.maximize(sqnorm(x1 - x0))
        assert pep.solve().value == pytest.approx(1.0, rel=TOL)
