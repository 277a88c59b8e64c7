"""One pinned instance per function of fairtheory.instances.rcfl (the functions the RC-FL claims sweep)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairtheory.errors import FairtheoryValueError
from fairtheory.instances import InstanceResult
from fairtheory.instances import rcfl as I
from fairtheory.problems.quadratic import QuadraticProblem, random_quadratic

# p = (0.5, 0.3, 0.2), alpha = 0.5: caps (1, 0.6, 0.4), tau_alpha = 2; f = (1, 2, 3):
# greedy fill 0.4 * 3 + 0.6 * 2 = 2.4; eta* = 1 (mass above 1 is exactly 1); E_pi f = 1.7
P3, A3, F3 = [0.5, 0.3, 0.2], 0.5, [1.0, 2.0, 3.0]


def test_qalpha_closed_form_against_lp() -> None:
    r = I.qalpha_closed_form(p=P3, alpha=A3, losses=F3)
    assert isinstance(r, InstanceResult)
    assert r.measured == pytest.approx(2.4, rel=1e-15)
    assert r.theory == pytest.approx(2.4, rel=1e-8)
    assert r.extra["scale"] == 3.0


def test_qalpha_limits() -> None:
    m, t, _ = I.qalpha_limit(p=P3, losses=F3, limit="fedavg")
    assert t == pytest.approx(1.7, rel=1e-15) and m == pytest.approx(t, rel=1e-15)
    m, t, x = I.qalpha_limit(p=[0.5, 0.5, 0.0], losses=[1.0, 2.0, 9.0], limit="afl")
    assert (m, t) == (2.0, 2.0)  # the client with p = 0 is out of the maximum
    assert list(x["alpha"]) == [0.5, 0.5, 1.0]
    with pytest.raises(FairtheoryValueError, match="limit"):
        I.qalpha_limit(p=P3, losses=F3, limit="median")


def test_qalpha_midpoint_convexity() -> None:
    # f_1 = w^2/2, f_2 = (w - 2)^2/2, alpha = 1: f_alpha = average; ends 1 and 1, midpoint 1/2
    prob = QuadraticProblem(np.array([[[1.0]], [[1.0]]]), np.array([[0.0], [2.0]]), p=[0.5, 0.5])
    m, t, x = I.qalpha_midpoint(problem=prob, alpha=1.0, a=[0.0], b=[2.0])
    assert (m, t) == (pytest.approx(0.5, rel=1e-15), pytest.approx(1.0, rel=1e-15))
    assert x["f_alpha_a"] == pytest.approx(1.0) and x["f_alpha_b"] == pytest.approx(1.0)


def test_lemma1_dual() -> None:
    m, t, x = I.lemma1_dual(p=P3, alpha=A3, losses=F3, lp=True)
    assert m == pytest.approx(2.4, rel=1e-15) and t == pytest.approx(2.4, rel=1e-15)
    assert x["eta"] == 1.0 and x["g_min"] == pytest.approx(2.4, rel=1e-15)
    assert x["tau_alpha"] == pytest.approx(2.0, rel=1e-15)
    assert x["lp_value"] == pytest.approx(2.4, rel=1e-8)


def test_lemma1_hcvar_ru() -> None:
    m, t, x = I.lemma1_hcvar(p=P3, alpha=A3, losses=F3, reading="ru")
    assert x["beta"] == pytest.approx(0.5, rel=1e-15)
    assert m == pytest.approx(2.4, rel=1e-14) and t == pytest.approx(2.4, rel=1e-15)
    assert x["cvar_integral"] == pytest.approx(2.4, rel=1e-14)


def test_remark1_cvar() -> None:
    # uniform p, chi = 1/2: CVaR_{1/2} = mean of the top half of (1, 2, 3, 4) = 3.5
    m, t, x = I.remark1_cvar(p=[0.25] * 4, chi=0.5, losses=[1.0, 2.0, 3.0, 4.0])
    assert m == pytest.approx(3.5, rel=1e-15) and t == pytest.approx(3.5, rel=1e-15)
    assert x["uniform_cvar_set"] == pytest.approx(3.5, rel=1e-15)


def test_remark2_eta() -> None:
    m, t, x = I.remark2_eta(p=P3, alpha=A3, losses=F3, B=4.0)
    assert (m, t, x["eta"]) == (0.25, 1.0, 1.0)


def test_deviation_agreement() -> None:
    m, t, x = I.deviation_agreement(p=P3, alpha=A3, losses=F3)
    assert m == pytest.approx(0.7, rel=1e-14) and t == pytest.approx(0.7, rel=1e-14)
    assert x["mean"] == pytest.approx(1.7, rel=1e-15) and x["f_alpha"] == pytest.approx(2.4, rel=1e-15)
    assert abs(x["const_d000"]) <= 1e-15 and abs(x["const_d002"]) <= 1e-15


def test_softplus_smoothness() -> None:
    m, t, x = I.smoothness_of_softplus(mu=1.0, x=np.linspace(-5.0, 5.0, 101))
    assert t == 1.0
    assert m == pytest.approx(0.25, abs=1e-6)  # finite differences at x = 0
    assert x["analytic"] == 0.25 and x["x_analytic"] == 0.0


def test_prop1_softplus() -> None:
    m, t, x = I.prop1_softplus(mu=2.0, x=np.linspace(-10.0, 10.0, 201))
    assert t == 2.0 and m == pytest.approx(2.0 * math.log(2.0), rel=1e-15) and x["x_max"] == 0.0
    assert x["tight"] == pytest.approx(m, rel=1e-15) and x["min_gap"] >= 0.0


def test_lemma2_gap_tight_at_constant_losses() -> None:
    # every f_i = eta: gap = tau_alpha mu log 2 (tau_alpha = 1 at alpha = 1)
    m, t, x = I.lemma2_gap(p=[0.5, 0.5], alpha=1.0, losses=[1.0, 1.0], eta=1.0, mu=0.1)
    assert t == pytest.approx(0.1, rel=1e-15)
    assert m == pytest.approx(0.1 * math.log(2.0), rel=1e-15) == x["tight"]
    assert x["public_mismatch"] <= 1e-15


def test_lemmaC1_smoothness() -> None:
    from fairtheory.problems.generators import random_logistic

    P = random_logistic(4, 3, 20, rng=np.random.default_rng(1))
    m, L, x = I.lemmaC1_smoothness(problem=P, w=np.array([0.3, -0.2, 0.1]), eta=float(P.losses(np.zeros(3))[0]),
                                   alpha=0.5, mu=0.1)
    assert 0.0 < m <= L and 0.0 < x["F_norm"] <= L
    assert L == pytest.approx((x["L1"] + (x["L2"] ** 2 + 1.0) / 0.1) * 2.0, rel=1e-14)
    assert x["min_relative_eigenvalue"] >= -1e-12


@pytest.fixture(scope="module")
def theorem_case():
    from fairtheory.problems.generators import random_logistic

    prob = random_logistic(5, 3, 20, rng=np.random.default_rng(0))
    alpha = np.maximum(np.full(prob.n, 0.5), prob.p)
    return prob, alpha, I.theorem_setup(prob, alpha, 0.1)


def test_theorem_setup_meets_the_assumptions(theorem_case) -> None:
    prob, alpha, s = theorem_case
    assert I.check_assumptions(prob, [np.zeros(prob.d), s["w_star"], s["w_rcfl"]]) is None
    assert s["f_star"] <= s["f_star_upper"] <= s["f_star"] + 1e-6 * max(1.0, abs(s["f_star"]))
    assert s["D0"] == pytest.approx(float(s["w_star"] @ s["w_star"] + s["eta_star"] ** 2), rel=1e-15)
    assert s["tau"] == pytest.approx(float(np.sum(prob.p / alpha)), rel=1e-15)


def test_theorem1_gap_one_instance(theorem_case) -> None:
    from fairtheory.algorithms.rfedfair import run_rfedfair
    from fairtheory.bounds.rcfl import theorem1_lr_max

    prob, alpha, s = theorem_case
    lr = theorem1_lr_max(s["L"], 5)
    r = I.rfedfair_theorem1_gap(prob, alpha=alpha, mu=0.1, lr=lr, kappa=5, T=52, version="002", setup=s)
    assert r.extra["conditions_met"] and r.extra["T_N"] == 10
    assert 0.0 <= r.measured <= r.theory
    assert r.theory == pytest.approx(sum(r.extra["terms"].values()), rel=1e-15)
    # the same number from a direct run of the algorithm
    res = run_rfedfair(prob, T=52, lr=lr, mu=0.1, alpha=alpha, kappa=5, w0=np.zeros(prob.d))
    direct = s["S"].support(prob.losses(np.asarray(res.w))) - s["f_star"]
    assert abs(direct - r.measured) <= 1e-13
    r0 = I.rfedfair_theorem1_gap(prob, alpha=alpha, mu=0.1, lr=lr, kappa=5, T=52, version="000", setup=s)
    assert 0.0 <= r0.measured <= r0.theory
    with pytest.raises(FairtheoryValueError, match="divisible"):
        I.rfedfair_theorem1_gap(prob, alpha=alpha, mu=0.1, lr=lr, kappa=5, T=53, setup=s)
    with pytest.raises(FairtheoryValueError, match="setup"):
        I.rfedfair_theorem1_gap(prob, alpha=alpha, mu=0.2, lr=lr, kappa=5, T=52, setup=s)


def test_theorem2_gap_one_instance(theorem_case) -> None:
    from fairtheory.bounds.rcfl import theorem2_lr_max

    prob, alpha, s = theorem_case
    lr = theorem2_lr_max(s["L"], 5, 2)
    r = I.rfedfair_theorem2_gap(prob, alpha=alpha, mu=0.1, lr=lr, kappa=5, K=2, T=12, seeds=[1, 2, 3, 4],
                                setup=s)
    x = r.extra
    assert x["conditions_met"] and x["reps"] == 4 and x["samples"].shape == (4,)
    assert x["mean"] == pytest.approx(float(x["samples"].mean()), rel=1e-15)
    assert x["mean"] <= r.measured <= r.theory  # upper end of the t-interval, below the 002 Thm. 2 bound
    assert r.theory == pytest.approx(sum(x["terms"].values()), rel=1e-15)
    assert x["terms"]["sampling"] == pytest.approx(12 / 2 * lr * 25 * s["rho2"], rel=1e-14)


def test_fedavg_converges() -> None:
    rng = np.random.default_rng(3)
    P = random_quadratic(5, 3, rng=rng, mu=0.2, L=2.0, spread=2.0, p=rng.dirichlet(np.ones(5)))
    m, t, x = I.fedavg_converges(problem=P)
    assert abs(m - t) <= 1e-9 * max(1.0, abs(t))
    assert x["rounds"] >= 1 and x["dist"] <= 1e-5
