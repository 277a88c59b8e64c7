"""fairtheory.worstcase: exact worst cases (PEP) of local GD / FedAvg / Scaffold, ratios and certificates."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairtheory.errors import FairtheoryValueError
from fairtheory.worstcase import local_gd_worst_case, report_value, worst_case_vs_rounds
from fairtheory.worstcase.potential import (
    certificate_bound,
    horizon_free_constants,
    round_constant,
    stepsize_region,
    theorem_round_constants,
)
from fairtheory.worstcase.ratio import sampled_ratio, theorem_coefficients, theorem_ratio
from fairtheory.worstcase.replay import (
    SmoothConvexInterpolant,
    interpolation_violation,
    replay_fedavg,
    replay_scaffold,
    simulate_local_gd,
)
from fairtheory.worstcase.scaffold import scaffold_worst_case


@pytest.mark.parametrize("N", [1, 2, 3, 5, 10, 20])
def test_drori_teboulle(N: int) -> None:
    """n = 1, kappa = 1, beta = 1/L, last iterate after N steps: L D0/(4N+2) (Drori & Teboulle 2014)."""
    L, D0 = 2.0, 3.0
    r = local_gd_worst_case(n=1, kappa=1, T_N=N - 1, lr=1.0 / L, L=L, D0=D0, rho2=0.0, output="last")
    exact = L * D0 / (4 * N + 2)
    assert abs(r.value - exact) <= 1e-6 * exact
    assert r.certified()
    assert abs(r.gap) <= 1e-6 * exact
    assert r.status in ("Solved", "AlmostSolved")


def test_scaling_units() -> None:
    """Values scale like L D0 (homogeneity); lr enters only through h = lr L."""
    kw = dict(n=2, kappa=2, T_N=2, output="average")
    a = local_gd_worst_case(lr=0.2, L=1.0, D0=1.0, rho2=0.5, **kw)
    b = local_gd_worst_case(lr=0.1, L=2.0, D0=3.0, rho2=0.5 * 4.0 * 3.0, **kw)
    assert abs(b.value - 2.0 * 3.0 * a.value) <= 1e-6 * b.value


def test_kappa1_independent_of_rho2_and_matches_gd() -> None:
    """Full participation with kappa = 1 is gradient descent on G: heterogeneity cannot matter."""
    a = local_gd_worst_case(n=2, kappa=1, T_N=3, lr=1.0, L=1.0, D0=1.0, rho2=0.0, output="last")
    b = local_gd_worst_case(n=2, kappa=1, T_N=3, lr=1.0, L=1.0, D0=1.0, rho2=5.0, output="last")
    gd = local_gd_worst_case(n=1, kappa=1, T_N=3, lr=1.0, L=1.0, D0=1.0, rho2=0.0, output="last")
    assert abs(a.value - gd.value) <= 1e-6
    assert abs(b.value - gd.value) <= 1e-6
    assert abs(gd.value - 1.0 / (4 * 4 + 2)) <= 1e-6  # N = T_N kappa + 1 = 4 steps


def test_heterogeneity_floor_grows_with_rho2() -> None:
    vals = [local_gd_worst_case(n=2, kappa=3, T_N=2, lr=0.3, L=1.0, D0=1.0, rho2=r, output="last").value
            for r in (0.0, 1.0, 10.0)]
    assert vals[0] < vals[1] < vals[2]


def test_report_value_tiny() -> None:
    assert report_value(1e-9, L=1.0, D0=1.0) == "below 1e-6 L D0"
    assert report_value(0.5, L=1.0, D0=1.0) == "0.5"


def test_input_validation() -> None:
    with pytest.raises(FairtheoryValueError, match="output"):
        local_gd_worst_case(n=2, kappa=1, T_N=1, lr=0.1, L=1.0, D0=1.0, rho2=1.0, output="bad")  # type: ignore[arg-type]
    with pytest.raises(FairtheoryValueError, match="kappa"):
        local_gd_worst_case(n=2, kappa=0, T_N=1, lr=0.1, L=1.0, D0=1.0, rho2=1.0)
    with pytest.raises(FairtheoryValueError, match="both 0"):
        local_gd_worst_case(n=2, kappa=1, T_N=1, lr=0.1, L=1.0, D0=0.0, rho2=0.0)


def test_curve_vs_rounds() -> None:
    c = worst_case_vs_rounds(T_N_values=[0, 1, 2], n=2, kappa=2, lr=0.5, L=1.0, D0=1.0, rho2=1.0)
    assert c["status_ok"].all()
    assert np.all(np.diff(c["value"]) < 0)


# ------------------------------------------------------------------------------------------ replay
@pytest.mark.parametrize("kappa,T_N,beta,rho2,out", [(2, 2, 0.5, 1.0, "average"), (3, 2, 0.3, 5.0, "last"),
                                                     (2, 3, 1 / 40, 1.0, "average")])
def test_replay_with_fedavg_reaches_pep_value(kappa: int, T_N: int, beta: float, rho2: float, out: str) -> None:
    """An extracted worst case, replayed with fairtheory.algorithms.fedavg on explicit functions, reaches the
    PEP value to 1e-4 relative (the acceptance test of the issue)."""
    r = local_gd_worst_case(n=2, kappa=kappa, T_N=T_N, lr=beta, L=1.0, D0=1.0, rho2=rho2, output=out,
                            return_instance=True)
    inst = r.instance
    assert inst is not None
    assert all(interpolation_violation(pts, inst.L) <= 1e-6 for pts in inst.points)
    assert abs(float(inst.x0 @ inst.x0) - 1.0) <= 1e-6
    rep = replay_fedavg(inst)
    assert rep["grad_G_star"] <= 1e-6
    assert abs(rep[out] - r.value) <= 1e-4 * r.value


def test_replay_path_average_output_with_simulator() -> None:
    r = local_gd_worst_case(n=2, kappa=2, T_N=2, lr=0.4, L=1.0, D0=1.0, rho2=2.0, output="path_average",
                            return_instance=True)
    inst = r.instance
    assert inst is not None
    fns = [SmoothConvexInterpolant(pts, inst.L) for pts in inst.points]
    runs = simulate_local_gd(lambda i, x: fns[i](x)[1], p=inst.p, x0=inst.x0, lr=0.4, kappa=2, T_N=2)
    (_, outs), = runs
    G = float(sum(inst.p[i] * fns[i](outs["path_average"])[0] for i in range(2)))
    assert abs(G - r.value) <= 1e-4 * r.value


def test_interpolant_is_exact_on_data_and_convex() -> None:
    rng = np.random.default_rng(3)
    Q = np.diag([1.0, 0.3])
    pts = [(x, Q @ x, 0.5 * x @ Q @ x) for x in rng.normal(size=(5, 2))]
    f = SmoothConvexInterpolant(pts, 1.0)
    for x, g, v in pts:
        val, grad = f(x)
        assert abs(val - v) <= 1e-8
        assert np.allclose(grad, g, atol=1e-6)
    # convex and 1-smooth along a line: second differences in [0, L h^2]
    d = np.array([0.6, -0.8])
    h = 0.05
    for t in np.linspace(-3, 3, 13):
        x = t * d
        sd = f(x + h * d)[0] - 2 * f(x)[0] + f(x - h * d)[0]
        assert -1e-8 <= sd <= h * h * (1 + 1e-6)


# ------------------------------------------------------------------------------------------ ratio
def test_theorem_coefficients_match_bounds() -> None:
    from fairtheory.bounds.rcfl import theorem1_bound

    a, b = theorem_coefficients(version="002", kappa=3, T_N=4, lr=0.01, L=2.0)
    full = theorem1_bound(dist0_sq=1.5, lr=0.01, T=14, kappa=3, L=2.0, rho2=0.7, mu=0.1, tau_alpha=2.0)
    assert abs(a * 1.5 + b * 0.7 + 0.1 * 2.0 - full) <= 1e-12 * full


def test_ratio_is_attained_and_dominates_samples() -> None:
    """The ratio SDP's value equals the worst case at its maximising (D0, rho2) and is >= every sample."""
    from fairtheory.bounds.rcfl import theorem1_lr_max

    lr = theorem1_lr_max(1.0, 3)
    r = theorem_ratio(version="002", kappa=3, T_N=2, lr=lr)
    assert r.certified() and r.conditions_met
    assert abs(r.a * r.D0 + r.b * r.rho2 - 1.0) <= 1e-6
    wc = local_gd_worst_case(n=2, kappa=3, T_N=2, lr=lr, L=1.0, D0=r.D0, rho2=max(r.rho2, 1e-12))
    assert abs(wc.value - r.ratio) <= 1e-5 * r.ratio
    samp = sampled_ratio(version="002", kappa=3, T_N=2, lr=lr, count=10, rng=np.random.default_rng(1))
    assert samp <= r.ratio * (1 + 1e-6)
    assert r.ratio < 1.0


def test_theorem2_ratio_tiny() -> None:
    from fairtheory.bounds.rcfl import theorem2_lr_max

    lr = theorem2_lr_max(1.0, 2, 1)
    r = theorem_ratio(version="002", kappa=2, T_N=1, lr=lr, K=1)
    assert r.certified() and r.extra["branches"] == 4
    samp = sampled_ratio(version="002", kappa=2, T_N=1, lr=lr, K=1, count=10, rng=np.random.default_rng(2))
    assert samp <= r.ratio * (1 + 1e-6)


# ------------------------------------------------------------------------------------------ potential
def test_round_constant_gd() -> None:
    """kappa = 1 (gradient descent): a certificate with C = 0 exists for a <= 2 beta at beta L = 1/2 and none
    for large a; with a = beta/2 it exists iff beta L <= 7/4."""
    assert round_constant(kappa=1, lr=0.5, a=0.25).C <= 1e-9
    assert not round_constant(kappa=1, lr=0.5, a=5.0).exists
    assert round_constant(kappa=1, lr=1.7, a=0.85).exists
    assert not round_constant(kappa=1, lr=1.8, a=0.9).exists


@pytest.mark.slow
def test_horizon_free_bound_dominates_finite_horizon_pep() -> None:
    """The certificate's bound holds at every T_N: compare with the exact finite-horizon worst case."""
    beta, kappa = 0.2, 3
    hf = horizon_free_constants(kappa=kappa, lr=beta, grid=6)
    assert hf.C_at_a_thm <= hf.C_thm
    for T_N in (0, 2, 4):
        for D0, rho2 in ((1.0, 0.0 + 1e-9), (1.0, 1.0), (0.2, 5.0)):
            wc = local_gd_worst_case(n=2, kappa=kappa, T_N=T_N, lr=beta, L=1.0, D0=D0, rho2=rho2, output="average")
            for use in ("theorem_a", "a_max"):
                assert wc.value <= certificate_bound(hf, T_N=T_N, D0=D0, rho2=rho2, use=use) * (1 + 1e-5) + 1e-8


def test_theorem_round_constants() -> None:
    a, C = theorem_round_constants(kappa=3, lr=0.01, L=2.0)
    assert a == 0.005 and math.isclose(C, 13 * 2.0 * 0.01**3 * 4 * 3)


def test_stepsize_region_kappa1() -> None:
    reg = stepsize_region(kappa=1, rtol=1e-3)
    assert abs(reg["theorem_a"] - 1.75) <= 5e-3
    assert reg["exists"] >= 1.99


# ------------------------------------------------------------------------------------------ scaffold
def test_scaffold_matches_fedavg_without_heterogeneity_and_replays() -> None:
    s = scaffold_worst_case(kappa=2, R=2, lr=0.5, L=1.0, D0=1.0, rho2=0.0)
    f = local_gd_worst_case(n=2, kappa=2, T_N=1, lr=0.5, L=1.0, D0=1.0, rho2=0.0, output="last", schedule="fedavg")
    assert abs(s.value - f.value) <= 1e-6
    assert abs(s.value - 1.0 / (4 * 4 * 0.5 + 2)) <= 1e-6
    h = scaffold_worst_case(kappa=2, R=3, lr=0.5, L=1.0, D0=1.0, rho2=4.0, return_instance=True)
    assert h.instance is not None
    rep = replay_scaffold(h.instance)
    assert abs(rep["last"] - h.value) <= 1e-4 * h.value


def test_large_step_certificate_holds_on_sampled_quadratics() -> None:
    """Sanity check of a certificate far outside the theorem's step-size region (beta L = 1.5, kappa = 4):
    the one-round inequality with the exact C(beta/2) holds on random convex quadratic instances."""
    from fairtheory.worstcase.ratio import random_quadratic_instance

    beta, kappa = 1.5, 4
    a = beta / 2
    rc = round_constant(kappa=kappa, lr=beta, a=a)
    assert rc.exists
    rng = np.random.default_rng(7)
    p = np.array([0.5, 0.5])
    for _ in range(100):
        q = random_quadratic_instance(rng, n=2, d=3, L=1.0, p=p)
        H, c, ts = q["H"], q["c"], q["theta"]

        def G(x: np.ndarray, H: np.ndarray = H, c: np.ndarray = c) -> float:
            return float(sum(p[i] * 0.5 * (x - c[i]) @ H[i] @ (x - c[i]) for i in range(2)))

        theta = ts + rng.normal(size=3) * 10.0 ** rng.uniform(-2, 2)
        Y = [theta.copy(), theta.copy()]
        for _k in range(kappa):
            Y = [Y[i] - beta * H[i] @ (Y[i] - c[i]) for i in range(2)]
        plus = p[0] * Y[0] + p[1] * Y[1]
        lhs = a * (G(theta) - G(ts)) + (plus - ts) @ (plus - ts)
        rhs = (theta - ts) @ (theta - ts) + rc.C * q["rho2"]
        assert lhs <= rhs * (1 + 1e-7) + 1e-12


@pytest.mark.slow
def test_partial_participation_certificate_dominates_expected_worst_case() -> None:
    """Theorem 2 setting (K = 1 draw): the per-round certificate in expectation over the draws, plus the
    first averaging's C0, bounds the exact worst expected suboptimality at small horizons."""
    beta, kappa, K = 0.1, 2, 1
    a = beta / 2
    C = round_constant(kappa=kappa, lr=beta, a=a, K=K).C
    C0 = round_constant(kappa=1, lr=beta, a=0.0, K=K).C
    assert math.isfinite(C) and math.isfinite(C0) and C0 > 0
    for T_N in (0, 1):
        for D0, rho2 in ((1.0, 0.5), (0.3, 3.0)):
            wc = local_gd_worst_case(n=2, kappa=kappa, T_N=T_N, lr=beta, L=1.0, D0=D0, rho2=rho2, K=K)
            bound = D0 / (a * (T_N + 1)) + (C + C0 / (T_N + 1)) / a * rho2
            assert wc.value <= bound * (1 + 1e-5)
