"""Hand-written PEPs in normalised units, failures that raise, loose arguments refused (issue 35).

Ground truth: the closed forms of the cited theorems, written out here, and homogeneity - a PEP of the class
scaled by ``L = 1e8`` (or a radius ``R = 1e4``) has the ``L = 1`` (``R = 1``) value times ``L`` (``R^2``), which
the test computes from the ``L = 1`` closed form, never from the solver."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.worstcase.checked_solve import pep_units
from fairtheory.worstcase.classes import Convex, ConvexIndicator, ConvexLipschitz, SmoothNonconvex, SmoothStronglyConvex
from fairtheory.worstcase.sdp import PEP, sqnorm

RTOL = 1e-6


def rel(a: float, b: float) -> float:
    return abs(a - b) / abs(b)


def gd(L: float, h: float, n: int, R2: float = 1.0, mu: float = 0.0) -> PEP:
    """GD ``x+ = x - h grad f``, ``||x0 - x*||^2 <= R2``, objective ``f(x_n) - f*``."""
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, mu))
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - R2)
    for _ in range(n):
        x = x - h * f.grad(x)
    pep.maximize(f.value(x))
    return pep


def contraction(L: float, mu: float, h: float, n: int) -> PEP:
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, mu))
    x, y = pep.vector(), pep.vector()
    pep.add_le(sqnorm(x - y) - 1)
    for _ in range(n):
        x, y = x - h * f.grad(x), y - h * f.grad(y)
    pep.maximize(sqnorm(x - y))
    return pep


# ------------------------------------------------------------------ badly scaled classes: the L = 1 value scaled
@pytest.mark.parametrize("L", [1e8, 1e4, 1e-6])
def test_smooth_convex_gd_scales_with_L(L: float) -> None:
    """Drori & Teboulle 2014: ``f(x_N) - f* <= L R^2/(4N + 2)`` for step 1/L, tight."""
    assert rel(gd(L, 1 / L, 2).solve().value, L / 10) <= RTOL


def test_radius_scales_the_value() -> None:
    R2 = 1e8
    assert rel(gd(1.0, 1.0, 2, R2=R2).solve().value, R2 / 10) <= RTOL
    assert pep_units(gd(1.0, 1.0, 2, R2=R2)).R == 2.0 ** round(math.log2(1e4))


def test_strongly_convex_contraction_badly_scaled() -> None:
    """GD contraction on SmoothStronglyConvex(1e8, 1e7), h = 1e-8, N = 2: max(|1 - hL|, |1 - h mu|)^(2N) = 0.9^4
    (issue 35: was -8.1e-15 with status Solved)."""
    s = contraction(1e8, 1e7, 1e-8, 2).solve()
    assert s.status == "Solved" and rel(s.value, 0.9 ** 4) <= RTOL


@pytest.mark.parametrize("M", [1e3, 1e-4])
def test_lipschitz_subgradient_scales_with_M(M: float) -> None:
    """Subgradient method, step 1/(M sqrt(n+1)), ``||x0 - x*|| <= 1``: ``min_t f(x_t) - f* = M/sqrt(n+1)``."""
    n = 3
    pep = PEP()
    f = pep.function(ConvexLipschitz(M))
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    vals = []
    g, fx = f.oracle(x)
    for _ in range(n):
        vals.append(fx)
        x = x - (1 / (M * math.sqrt(n + 1))) * g
        g, fx = f.oracle(x)
    vals.append(fx)
    pep.maximize_min(vals)
    assert rel(pep.solve().value, M / math.sqrt(n + 1)) <= RTOL


@pytest.mark.parametrize("gamma", [3e-8, 3e6])
def test_convex_proximal_point_scales_with_the_step(gamma: float) -> None:
    """Proximal point: ``f(x_n) - f* = R^2/(4 gamma n)`` (Taylor, Hendrickx & Glineur 2017, SIAM J. Optim. Thm 4.1)."""
    n = 3
    pep = PEP()
    f = pep.function(Convex())
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    fx = None
    for _ in range(n):
        x, _, fx = f.prox(x, gamma)
    pep.maximize(fx)
    assert rel(pep.solve().value, 1 / (4 * gamma * n)) <= RTOL


def test_nonconvex_gd_scales_with_L() -> None:
    """GD on L-smooth f, f(x0) - f(x_n) <= 1, step 1/L: min_t ||grad f(x_t)||^2 = 4L/(3n) (Taylor 2017)."""
    L, n = 1e8, 2
    pep = PEP()
    f = pep.function(SmoothNonconvex(L))
    x = pep.vector()
    g, f0 = f.oracle(x)
    meas = [sqnorm(g)]
    fx = f0
    for _ in range(n):
        x = x - (1 / L) * g
        g, fx = f.oracle(x)
        meas.append(sqnorm(g))
    pep.add_le(f0 - fx - 1)
    pep.maximize_min(meas)
    assert rel(pep.solve().value, 4 * L / (3 * n)) <= RTOL


def test_indicator_projected_gradient_badly_scaled() -> None:
    """Projected gradient on SmoothStronglyConvex(1e8, 1e7), gamma = 1/L: max((1 - mu/L)^2, 0)^n (Taylor, Hendrickx &
    Glineur 2018, Thm 3.1; C = R^d attains it)."""
    L, mu, n = 1e8, 1e7, 2
    pep = PEP()
    f1 = pep.function(SmoothStronglyConvex(L, mu))
    f2 = pep.function(ConvexIndicator())
    pep.optimum_of_sum([f1, f2])
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    for _ in range(n):
        x = f2.project(x - (1 / L) * f1.grad(x))
    pep.maximize(sqnorm(x))
    assert rel(pep.solve().value, 0.9 ** (2 * n)) <= RTOL


# ------------------------------------------------------------------ data unchanged where already in units
def test_normalised_pep_keeps_its_data_bit_for_bit() -> None:
    """L = 1, R = 1: every unit is 1 and the solve is the engine's on the very same data (same value to the bit)."""
    assert pep_units(gd(1.0, 1.0, 3)).identity
    assert pep_units(contraction(1.0, 0.1, 1.0, 2)).identity
    a = gd(1.0, 1.0, 3).solve()
    b = gd(1.0, 1.0, 3)._solve_float(method="dense", tol_feas=1e-8, refine=True)  # the checked solve's first try
    assert a.value == b.value and np.array_equal(a.gram, b.gram) and np.array_equal(a.z, b.z)
    u = pep_units(gd(1e8, 1e-8, 2))
    assert not u.identity and np.all(np.log2(u.vec) == np.round(np.log2(u.vec)))  # powers of two: exact scaling


def test_units_beyond_float64_are_refused_by_name() -> None:
    pep = PEP()
    f = pep.function(Convex())
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    x1, _, fx = f.prox(x, 1e-290)
    x2, _, fx2 = f.prox(x1, 1e290)
    pep.maximize(fx + fx2)
    with pytest.raises(FairtheoryValueError, match="units"):
        pep.solve()


# ------------------------------------------------------------------ failures raise
def test_mu_to_L_is_solved_not_refused() -> None:
    """mu -> L: Clarabel stopped (InsufficientProgress, a named SolverError) until the checked solve reparametrised the
    class (fairtheory.worstcase.nearly_quadratic: h = f - mu/2 ||x||^2 is (L - mu)-smooth convex, exactly); now the
    contraction max(|1 - h L|, |1 - h mu|)^(2n) (Taylor, Hendrickx & Glineur 2018, Thm 3.3) within 1e-7."""
    for mu in (1 - 1e-9, 1 - 1e-6):
        s = contraction(1.0, mu, 0.5, 2).solve()
        want = max(0.5, 1 - 0.5 * mu) ** 4
        assert s.status == "Solved" and abs(s.value - want) <= 1e-7 * want, (mu, s.value, want)


def test_raw_solve_still_returns_the_status() -> None:
    s = contraction(1.0, 1 - 1e-9, 0.5, 2).solve(raw=True)
    assert s.status != "Solved"


def test_solve_arguments_validated() -> None:
    with pytest.raises(FairtheoryTypeError, match="raw"):
        gd(1.0, 1.0, 1).solve(raw="yes")
    with pytest.raises(FairtheoryValueError, match="gmp"):
        gd(1.0, 1.0, 1).solve(gmp="sometimes")


# ------------------------------------------------------------------ loose arguments
@pytest.mark.parametrize("bad", ["1", b"1", None, True, [1.0], complex(1, 0)])
def test_prox_step_must_be_a_real_number(bad) -> None:
    pep = PEP()
    f = pep.function(Convex())
    with pytest.raises(FairtheoryTypeError, match="gamma"):
        f.prox(pep.vector(), bad)


@pytest.mark.parametrize("bad", ["0.1", None, False])
def test_inexactness_must_be_a_real_number(bad) -> None:
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(1.0, 0.1))
    with pytest.raises(FairtheoryTypeError, match="eps"):
        f.inexact_grad(pep.vector(), bad)


@pytest.mark.parametrize("bad", [1e-320, 0.0, -1.0, math.inf, math.nan, 1e305])
def test_prox_step_out_of_range_refused(bad: float) -> None:
    pep = PEP()
    f = pep.function(Convex())
    with pytest.raises(FairtheoryValueError, match="gamma"):
        f.prox(pep.vector(), bad)


def test_string_coefficients_refused() -> None:
    pep = PEP()
    with pytest.raises(FairtheoryTypeError, match="real number"):
        _ = pep.vector() * "2"


# ------------------------------------------------------------------ class parameters vs method hyper-parameters
def test_class_and_method_keywords_are_separate() -> None:
    """worst_case(mu=) is always the method's hyper-parameter: the class's strong convexity is class_mu= /
    function_class=; the removed spelling (mu= for the class, a method without a mu) is refused naming class_mu."""
    from fairtheory.algorithms import fedavg
    from fairtheory.worstcase import worst_case

    with pytest.raises(FairtheoryTypeError, match=r"fedavg.* takes none; the function class's strong convexity is class_mu="):
        worst_case(fedavg.make, 2, n=1, L=1.0, mu=0.1, D0=1.0, rho2=0.0, lr=0.5)
    new = worst_case(fedavg.make, 2, n=1, L=1.0, class_mu=0.1, D0=1.0, rho2=0.0, lr=0.5)
    cls = worst_case(fedavg.make, 2, n=1, function_class=SmoothStronglyConvex(1.0, 0.1), D0=1.0, rho2=0.0, lr=0.5)
    assert new.value == cls.value and new.params["mu"] == 0.1
    # GD with step 1/2 on L = 1, mu = 0.1 (one client): contraction max(|1 - h mu|, |1 - h L|)^2N = 0.95^4 on the distance;
    # the value is below L/2 of it
    assert 0 < new.value <= 0.5 * 0.95 ** 4 + 1e-9
    with pytest.raises(FairtheoryValueError, match="once"):
        worst_case(fedavg.make, 1, n=1, L=1.0, function_class=SmoothStronglyConvex(1.0, 0.1), D0=1.0, rho2=0.0, lr=0.5)
    # any class of fairtheory.worstcase.classes is a traced client's class now (issue 35; Convex() included, whose
    # worst case here is unbounded); what is not a class object is refused by name
    with pytest.raises(FairtheoryTypeError, match="function_class"):
        worst_case(fedavg.make, 1, n=1, function_class="Convex()", D0=1.0, rho2=0.0, lr=0.5)
    with pytest.raises(FairtheoryTypeError, match="function class"):
        worst_case(fedavg.make, 1, n=1, D0=1.0, rho2=0.0, lr=0.5)


# ------------------------------------------------------------------ the rigorous bracket of hand-written PEPs
def test_bracket_of_a_badly_scaled_hand_written_pep() -> None:
    """GD, L = 1e4, step 1/L, N = 3: lower (replayed) <= L/(4N + 2) <= upper (exact multipliers, weak duality),
    both within 1e-5 - in the caller's units."""
    L = 1e4
    b = gd(L, 1 / L, 3).bracket()
    truth = L / 14
    assert b.lower <= truth * (1 + 1e-12) and truth <= b.upper
    assert rel(b.lower, truth) <= 1e-5 and rel(b.upper, truth) <= 1e-5
    assert b.info["lower_route"] == "replay" and "upper_route" in b.info


def test_bracket_for_a_nonsmooth_class_has_a_rigorous_upper_and_no_replay() -> None:
    M, n = 1e3, 3
    pep = PEP()
    f = pep.function(ConvexLipschitz(M))
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    vals = []
    g, fx = f.oracle(x)
    for _ in range(n):
        vals.append(fx)
        x = x - (1 / (M * 2)) * g
        g, fx = f.oracle(x)
    vals.append(fx)
    pep.maximize_min(vals)
    b = pep.bracket()
    assert math.isnan(b.lower) and "lower_error" in b.info
    assert M / 2 <= b.upper <= M / 2 * (1 + 1e-5)


def test_bracket_upper_is_not_fooled_by_a_wrong_solution() -> None:
    """A forged solution value far from the optimum: no exact certificate is within rtol of it, so the upper bound
    is inf (never a bound below the true worst case)."""
    pep = gd(1.0, 1.0, 2)
    sol = pep.solve()
    sol.value = 0.5 * sol.value
    b = pep.bracket(sol, deadline_s=20.0)
    assert b.upper == math.inf or b.upper >= 1 / 10
