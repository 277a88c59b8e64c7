"""Every worst case is bracketed: ``lower`` (a replayed instance) <= ``value`` <= ``upper`` (rigorous), ``value_is``
says which one ``value`` is, and a certified value is a rigorous upper bound (issue 24).

The independent check: ``n`` identical clients ``f = L x^2 / 2`` satisfy every constraint of the class (``rho2 = 0``
suffices: they share their minimiser), and FedAvg with ``kappa`` local steps of size ``lr`` maps ``x0`` to
``(1 - lr L)^(kappa R) x0``, so the worst case is at least ``L D0 (1 - lr L)^(2 kappa R) / 2``."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairtheory.algorithms import fedavg, scaffold
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError, SolverError
from fairtheory.worstcase import PEPProblem, local_gd_worst_case, worst_case
from fairtheory.worstcase.bracket import REPLAY_RTOL


def quadratic_lower(L: float, D0: float, lr: float, kappa: int, rounds: int) -> float:
    return L * D0 * (1.0 - lr * L) ** (2 * kappa * rounds) / 2.0


def check_bracket(wc) -> None:
    assert wc.value_is in ("upper", "lower")
    assert math.isfinite(wc.lower) and wc.lower <= wc.upper * (1 + 1e-9) + 1e-12 * wc.scale
    assert wc.lower <= wc.value <= wc.upper
    if wc.certified():
        assert wc.value_is == "upper" and wc.value == wc.upper
    if wc.value_is == "lower":
        assert wc.value == wc.lower and not wc.certified()


def test_issue_case_lr100_is_not_certified_low() -> None:
    """Reported: lr = 100, 2 rounds, n = 2 gave 47,889,200.8 'certified' while x^2/2 reaches 48,029,800.5."""
    wc = worst_case(fedavg.make, 2, n=2, L=1, D0=1, rho2=0, lr=100)
    q = quadratic_lower(1, 1, 100, 1, 2)
    assert q == 48_029_800.5
    check_bracket(wc)
    assert wc.upper >= q
    assert wc.value >= q * (1 - (1e-12 if wc.certified() else REPLAY_RTOL))


def test_issue_case_lr30_three_rounds() -> None:
    wc = worst_case(fedavg.make, 3, n=1, L=1, D0=1, rho2=0, lr=30)
    check_bracket(wc)
    assert wc.value >= quadratic_lower(1, 1, 30, 1, 3) * (1 - (1e-12 if wc.certified() else REPLAY_RTOL))


SETTINGS = [(int(r), int(n), float(lr), int(k)) for r, n, lr, k in zip(
    np.random.default_rng(24).integers(1, 4, 24), np.random.default_rng(25).integers(1, 3, 24),
    np.concatenate([[100.0, 50.0, 7.0, 2.5], 10 ** np.random.default_rng(26).uniform(-1.5, 2.0, 20)]),
    np.random.default_rng(27).integers(1, 3, 24), strict=True)]


def test_random_settings_bracket_and_quadratic() -> None:
    """24 seeded (lr, n, rounds, kappa) settings, lr L from 0.03 to 100: each returns lower <= value <= upper with no
    value (nor rigorous upper bound) below what the quadratic instance reaches, or refuses with a SolverError that
    says the PEP is too badly conditioned; at least 20 return."""
    assert max(lr for _, _, lr, _ in SETTINGS) >= 100 and min(lr for _, _, lr, _ in SETTINGS) < 0.1
    returned = 0
    for rounds, n, lr, kappa in SETTINGS:
        try:
            wc = worst_case(fedavg.make, rounds, n=n, L=1.0, D0=1.0, rho2=0.0, lr=lr, kappa=kappa)
        except SolverError as exc:
            assert "neither certified" in str(exc) and lr > 10
            continue
        returned += 1
        check_bracket(wc)
        q = quadratic_lower(1.0, 1.0, lr, kappa, rounds)
        assert wc.upper >= q * (1 - 1e-12)
        # a certified value is a rigorous upper bound; a replayed one is within REPLAY_RTOL of the solver's
        assert wc.value >= q * (1 - (1e-12 if wc.certified() else REPLAY_RTOL))
    assert returned >= 20


@pytest.mark.parametrize("eta_l", [0.3, 5.0])
def test_scaffold_and_local_gd_bracketed(eta_l) -> None:
    wc = worst_case(scaffold.make, 2, n=2, L=1.0, D0=1.0, rho2=0.5, kappa=2, lr=eta_l)
    check_bracket(wc)
    hw = local_gd_worst_case(n=2, kappa=2, T_N=1, lr=eta_l, L=1.0, D0=1.0, rho2=0.5)
    check_bracket(hw)


def test_certified_is_rigorous_at_moderate_steps() -> None:
    """Gradient descent at lr = 1/L, N = 4: certified, value a rigorous upper bound of L D0/(4N + 2)."""
    wc = worst_case(fedavg.make, 4, n=1, L=2.0, D0=3.0, rho2=0.0, lr=0.5)
    assert wc.certified() and wc.value_is == "upper"
    exact = 2.0 * 3.0 / 18
    assert exact <= wc.value <= exact * (1 + 1e-6)


@pytest.mark.parametrize("c", [math.nan, math.inf, -math.inf])
def test_nonfinite_coefficients_refused(c) -> None:
    pr = PEPProblem(2, L=1, D0=1, rho2=0)
    with pytest.raises(FairtheoryValueError, match="non-finite"):
        pr.x0 * c
    with pytest.raises(FairtheoryValueError, match="non-finite"):
        pr.x0 / c if not math.isnan(c) else pr.x0 + pr.x0 * c


def test_overflowing_coefficients_refused() -> None:
    pr = PEPProblem(2, L=1, D0=1, rho2=0)
    with pytest.raises(FairtheoryValueError):
        (pr.x0 * 1e300) * 1e300


@pytest.mark.parametrize("L", [1e-300, 1e300])
def test_extreme_L_is_homogeneous(L) -> None:
    """The worst case scales with L D0 (rho2 = 0): extreme L gives L times the L = 1 value, no raw error."""
    one = worst_case(fedavg.make, 2, n=2, L=1.0, D0=1.0, rho2=0.0, lr=0.5)
    wc = worst_case(fedavg.make, 2, n=2, L=L, D0=1.0, rho2=0.0, lr=0.5 / L)
    assert abs(wc.value / L - one.value) <= 1e-6 * one.value


def test_units_beyond_float_refused() -> None:
    with pytest.raises(FairtheoryValueError, match="beyond float64"):
        worst_case(fedavg.make, 2, n=2, L=1e-300, D0=1.0, rho2=1.0, lr=0.5)


def test_huge_sizes_refused_up_front() -> None:
    with pytest.raises(FairtheoryValueError, match="n must"):
        PEPProblem(10**9, L=1, D0=1, rho2=0)
    with pytest.raises(FairtheoryValueError, match="MAX_SOLVE_SECONDS"):
        local_gd_worst_case(K=5, n=2, kappa=1, T_N=1, lr=1, L=1, D0=1, rho2=1)


@pytest.mark.parametrize("start", ["x", 3, {"nope": 1}])
def test_bad_start_is_named(start) -> None:
    with pytest.raises(FairtheoryTypeError, match="start"):
        worst_case(fedavg.make, 2, n=2, L=1, D0=1, rho2=0, lr=0.5, start=start)


OTHER = [("scaffold", 2, 2, 0.4), ("scaffold", 1, 1, 30.0), ("scaffold", 2, 2, 100.0), ("local_gd", 2, 2, 0.7),
         ("local_gd", 3, 1, 12.0), ("local_gd", 2, 2, 100.0), ("fedavg_K", 2, 2, 0.5), ("fedavg_K", 2, 2, 60.0)]


@pytest.mark.parametrize("method,rounds,n,lr", OTHER)
def test_other_methods_bracketed(method, rounds, n, lr) -> None:
    """Scaffold (traced), the hand-written local-GD PEP and FedAvg with sampled clients (K = 1, expectation over
    the draws), lr L up to 100: lower <= value <= upper, or a SolverError saying the PEP is too badly
    conditioned (only at large steps)."""
    try:
        if method == "scaffold":
            wc = worst_case(scaffold.make, rounds, n=n, L=1.0, D0=1.0, rho2=0.5, kappa=2, lr=lr)
        elif method == "local_gd":
            wc = local_gd_worst_case(n=n, kappa=2, T_N=rounds - 1, lr=lr, L=1.0, D0=1.0, rho2=0.5)
        else:
            wc = worst_case(fedavg.make, rounds, n=n, L=1.0, D0=1.0, rho2=0.5, lr=lr, K=1)
    except SolverError as exc:
        assert "neither certified" in str(exc) and lr > 10
        return
    check_bracket(wc)


def test_dyadic_dot_is_exact() -> None:
    """``rigorous_upper``'s exact residual ``c0 - sum_i x_i y_i``: the same rational as term-by-term fractions,
    including cancellations far below double precision and values spanning 2^-1000 .. 2^1000."""
    from fractions import Fraction

    from fairtheory.worstcase.bracket import _dyadic_dot

    rng = np.random.default_rng(20261202)
    for _ in range(50):
        k = int(rng.integers(0, 12))
        xs = rng.standard_normal(k) * np.ldexp(1.0, rng.integers(-1000, 1000, k))
        ys = rng.standard_normal(k) * np.ldexp(1.0, rng.integers(-20, 20, k))
        c0 = float(rng.standard_normal())
        want = Fraction(c0) - sum((Fraction(float(x)) * Fraction(float(y)) for x, y in zip(xs, ys, strict=True)), Fraction(0))
        assert _dyadic_dot(c0, xs, ys) == want
        assert _dyadic_dot(c0, xs, ys, sign=1) == Fraction(c0) + sum(
            (Fraction(float(x)) * Fraction(float(y)) for x, y in zip(xs, ys, strict=True)), Fraction(0))
    # 1 - (1 + 2^-52)(1 - 2^-52) = 2^-104 exactly (a float product would give 0)
    assert _dyadic_dot(1.0, np.array([1 + 2.0 ** -52]), np.array([1 - 2.0 ** -52])) == Fraction(1, 2 ** 104)


def test_bracket_memo_never_serves_other_data() -> None:
    """The bracket kept on a solution is reused only for the very same PEP, data and levels: another level, another
    Gram matrix or another PEP object gets its own bracket (a stale bound would be a wrong certificate)."""
    import dataclasses

    from fairtheory.worstcase.bracket import bracket
    from fairtheory.worstcase.gram import sqnorm
    from fairtheory.worstcase.local_gd import build_local_gd, rho2_expr

    def built():
        p = np.full(2, 0.5)
        b = build_local_gd(n=2, p=p, lr=0.1, kappa=2, T_N=1, output="average", K=None, first_steps=1)
        b.pep.add_le(sqnorm(b.x0) - 0.5)
        b.pep.add_le(rho2_expr(b, p) - 0.5)
        b.pep.maximize(b.objective)
        return b, p

    b, p = built()
    sol = b.pep.solve(raw=True)
    kw = {"x0": b.x0, "n": 2, "p": p, "rho2_level": 0.5}
    first = bracket(b.pep, sol, b.objective, D0_level=0.5, **kw)
    again = bracket(b.pep, sol, b.objective, D0_level=0.5, **kw)
    assert (again.lower, again.upper) == (first.lower, first.upper) and again is not first
    again.upper = -1.0  # a caller's edit of its copy never reaches the memo
    assert bracket(b.pep, sol, b.objective, D0_level=0.5, **kw).upper == first.upper
    # a larger level: a larger a-priori trace bound, so another upper end
    other = bracket(b.pep, sol, b.objective, D0_level=2.0, **kw)
    assert other.info["trace_bound"] > first.info["trace_bound"]
    # another Gram matrix (a scaled copy of the solution) and another PEP object: computed afresh
    moved = dataclasses.replace(sol, gram=np.asarray(sol.gram) * 0.5)
    assert bracket(b.pep, moved, b.objective, D0_level=0.5, **kw).lower != first.lower
    b2, _ = built()
    assert sol._bracket_memo[0][0] is b.pep
    fresh = bracket(b2.pep, sol, b2.objective, D0_level=0.5, x0=b2.x0, n=2, p=p, rho2_level=0.5)
    assert sol._bracket_memo[0][0] is b2.pep and fresh.upper == first.upper
