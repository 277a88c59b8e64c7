"""Generalisation bounds (002 Thm. 3, Remark 3, Thm. G.1) and the threshold population behind them."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from scipy.stats import binom, binomtest

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
from fairtheory.bounds import generalization as G
from fairtheory.problems.threshold_population import ThresholdPopulation, ThresholdSample, default_population
from fairtheory.sets import CappedSimplex
from fairtheory.testing import qalpha_instances


# ----------------------------------------------------------------------------- population
def test_exact_risk_matches_large_sample_monte_carlo() -> None:
    pop = default_population(21)
    f = pop.risks()
    N = 200_000
    S = pop.sample(np.full(pop.n, N), np.random.default_rng(1), size=1)
    fhat = pop.empirical_risks(S)[0]
    se = np.sqrt(f * (1 - f) / N)
    assert fhat.shape == f.shape == (pop.n, 21)
    assert np.all(np.abs(fhat - f) <= 5 * se + 1e-12)


def test_exact_risk_limits() -> None:
    # noise only when w = theta; at w -> +-inf the disagreement mass is P(x > theta) / P(x < theta)
    pop = ThresholdPopulation(mu=[0.0], scale=[1.0], theta=[0.0], noise=[0.1], grid=[-60.0, 0.0, 60.0])
    f = pop.risks()[0]
    assert f == pytest.approx([0.1 + 0.8 * 0.5, 0.1, 0.1 + 0.8 * 0.5], abs=1e-15)


def _loop_sums(pop: ThresholdPopulation, S: ThresholdSample, weights: np.ndarray, groups: np.ndarray,
               G_: int, signed: bool) -> np.ndarray:
    R, M = S.x.shape
    out = np.zeros((R, G_, pop.K))
    for r in range(R):
        for j in range(M):
            for k, w in enumerate(pop.grid):
                h = 1.0 if S.x[r, j] > w else -1.0
                loss = float(h != S.y[r, j])
                out[r, groups[j], k] += weights[r, j] * ((1 - 2 * loss) if signed else loss)
    return out


@pytest.mark.parametrize("signed", [False, True])
def test_vectorised_loss_sums_match_loop(signed: bool) -> None:
    pop = default_population(9)
    rng = np.random.default_rng(2)
    m = np.array([3, 1, 4, 2])
    S = pop.sample(m, rng, size=3)
    # put a point exactly on a grid threshold: h(x) = +1 needs x > w strictly
    S.x[0, 0] = pop.grid[4]
    weights = rng.standard_normal((3, m.sum()))
    got = pop.loss_sums(S, weights, groups=S.client, n_groups=pop.n, signed=signed)
    assert np.allclose(got, _loop_sums(pop, S, weights, S.client, pop.n, signed), atol=1e-13, rtol=0)
    one = pop.loss_sums(S, weights[0], signed=signed)  # (M,) weights broadcast, one group
    ref = _loop_sums(pop, S, np.broadcast_to(weights[0], (3, m.sum())), np.zeros(m.sum(), int), 1, signed)
    assert np.allclose(one, ref, atol=1e-13, rtol=0)


def test_empirical_risks_are_per_client_means() -> None:
    pop = default_population(7)
    m = np.array([5, 1, 2, 8])
    S = pop.sample(m, np.random.default_rng(3), size=2)
    fhat = pop.empirical_risks(S)
    ref = _loop_sums(pop, S, np.broadcast_to(1.0 / m[S.client], S.x.shape), S.client, pop.n, False)
    assert np.allclose(fhat, ref, atol=1e-14, rtol=0)
    assert np.all((fhat >= 0) & (fhat <= 1 + 1e-15))


def test_sampler_layout_and_label_noise() -> None:
    pop = ThresholdPopulation(mu=[0.0, 2.0], scale=[1.0, 0.5], theta=[0.0, 2.0], noise=[0.0, 0.5],
                              grid=[0.0])
    S = pop.sample(np.array([3, 50_000]), np.random.default_rng(4), size=2)
    assert S.x.shape == S.y.shape == (2, 50_003) and S.size == 2
    assert list(S.client[:4]) == [0, 0, 0, 1]
    clean0 = np.where(S.x[:, :3] > 0.0, 1.0, -1.0)
    assert np.array_equal(S.y[:, :3], clean0)  # no noise on client 0
    clean1 = np.where(S.x[:, 3:] > 2.0, 1.0, -1.0)
    assert abs(np.mean(S.y[:, 3:] != clean1) - 0.5) < 0.01  # noise 1/2 on client 1


@pytest.mark.parametrize("kw", [dict(scale=[1.0, -1.0]), dict(noise=[0.1, 0.6]), dict(grid=[1.0, 0.0]),
                                dict(theta=[0.0]), dict(p=[0.3, 0.3])])
def test_population_validation(kw: dict) -> None:
    args = dict(mu=[0.0, 1.0], scale=[1.0, 1.0], theta=[0.0, 1.0], noise=[0.1, 0.1], grid=[0.0, 1.0]) | kw
    with pytest.raises(FairtheoryValueError):
        ThresholdPopulation(**args)


def test_sample_validation() -> None:
    pop = default_population(5)
    rng = np.random.default_rng(0)
    with pytest.raises(FairtheoryValueError):
        pop.sample(np.array([1, 0, 1, 1]), rng)
    with pytest.raises(FairtheoryTypeError):
        pop.sample([1.5, 1, 1, 1], rng)
    with pytest.raises(FairtheoryTypeError):
        pop.sample(np.array([1, 1, 1, 1]), 0)
    S = pop.sample(np.array([1, 1, 1, 1]), rng, size=2)
    with pytest.raises(FairtheoryValueError):
        pop.loss_sums(S, np.ones(3))
    with pytest.raises(FairtheoryValueError):
        pop.loss_sums(S, np.ones(4), groups=np.array([0, 1, 2, 3]), n_groups=2)


# ----------------------------------------------------------------------------- batched f_alpha
@given(qalpha_instances(max_n=8))
def test_qalpha_values_match_capped_simplex(inst: tuple) -> None:
    p, alpha, losses = inst
    F = np.stack([losses, losses[::-1], np.full_like(losses, 3.0)])
    got = G.qalpha_values(F, p, alpha)
    S = CappedSimplex.qalpha(p, alpha)
    ref = np.array([S.support(v) for v in F])
    assert np.allclose(got, ref, rtol=1e-12, atol=1e-12 * max(1.0, float(np.abs(F).max())))


def test_qalpha_values_limits_and_shape() -> None:
    p = np.array([0.1, 0.2, 0.3, 0.4])
    F = np.random.default_rng(5).random((3, 5, 4))
    assert G.qalpha_values(F, p, 1.0).shape == (3, 5)
    assert np.allclose(G.qalpha_values(F, p, 1.0), F @ p, rtol=1e-14, atol=0)  # FedAvg
    assert np.allclose(G.qalpha_values(F, p, p), F.max(axis=-1), rtol=1e-14, atol=0)  # AFL
    with pytest.raises(FairtheoryValueError):
        G.qalpha_values(F[..., :3], p, 1.0)
    with pytest.raises(FairtheoryValueError):
        G.qalpha_values(np.full(4, np.nan), p, 1.0)


# ----------------------------------------------------------------------------- bound formulas
P2, A2, M2 = [0.5, 0.5], [0.5, 1.0], np.array([2, 8])


def test_theorem3_hand_numbers() -> None:
    # sum p^2/(2 alpha^2 m) = 0.25/1 + 0.25/16 = 0.265625; log(1/delta) = 2
    delta = math.exp(-2.0)
    assert G.theorem3_concentration(P2, A2, M2, delta) == pytest.approx(math.sqrt(0.53125), rel=1e-14)
    twice = 2 * math.sqrt(0.53125)
    assert G.theorem3_concentration(P2, A2, M2, delta, B=2.0) == pytest.approx(twice, rel=1e-14)
    # tau = 1.5: 1.5*0.2 + 2*0.1 + sqrt(0.53125)
    rhs = G.theorem3_bound([0.2, 0.0], P2, A2, M2, delta, 0.1)
    assert rhs == pytest.approx([0.5 + math.sqrt(0.53125), 0.2 + math.sqrt(0.53125)], rel=1e-14)
    assert G.theorem3_concentration(P2, A2, M2, 1.0) == 0.0


def test_remark3_hand_numbers() -> None:
    # 2 d sum p^2/(alpha^2 m) = 2 (0.5 + 0.03125) = 1.0625, log(e m/d) = 1 + log 10
    ref = math.sqrt(1.0625 * (1 + math.log(10)))
    assert G.remark3_vc_bound(P2, A2, M2, 1) == pytest.approx(ref, rel=1e-14)
    assert G.remark3_vc_bound(P2, A2, M2, 2) == pytest.approx(math.sqrt(2.125 * (1 + math.log(5))), rel=1e-14)
    # single client, p = alpha = 1: the classical sqrt(2 d log(e m/d)/m)
    assert G.remark3_vc_bound([1.0], 1.0, np.array([50]), 1) == pytest.approx(
        math.sqrt(2 * (1 + math.log(50)) / 50), rel=1e-14)


def test_theorem4_hand_numbers() -> None:
    delta = 4 * math.exp(-8.0)  # log(2n/delta) = 8: sqrt(8/(2*2)) = sqrt 2, sqrt(8/16) = sqrt(1/2)
    conc = 1.0 * math.sqrt(2.0) + 0.5 * math.sqrt(0.5)
    assert G.theorem4_concentration(P2, A2, M2, delta) == pytest.approx(conc, rel=1e-14)
    # 2 sum u_i R_i = 2 (1*0.1 + 0.5*0.2) = 0.4
    assert G.theorem4_bound(0.3, P2, A2, M2, delta, [0.1, 0.2]) == pytest.approx(0.7 + conc, rel=1e-14)
    assert G.rademacher_coefficients(P2, A2, M2) == pytest.approx([0.5, 0.0625], rel=1e-15)


@pytest.mark.parametrize("call", [
    lambda: G.theorem3_concentration(P2, A2, M2, 0.0),
    lambda: G.theorem3_concentration(P2, A2, M2, 1.5),
    lambda: G.theorem3_concentration(P2, A2, np.array([2, 0]), 0.1),
    lambda: G.theorem3_concentration(P2, [0.4, 1.0], M2, 0.1),
    lambda: G.theorem3_concentration(P2, A2, M2, 0.1, B=0.0),
    lambda: G.theorem3_bound(0.1, P2, A2, M2, 0.1, -0.1),
    lambda: G.theorem3_bound(np.nan, P2, A2, M2, 0.1, 0.1),
    lambda: G.remark3_vc_bound(P2, A2, M2, 0),
    lambda: G.remark3_vc_bound(P2, A2, np.array([1, 1]), 3),
    lambda: G.theorem4_bound(0.1, P2, A2, M2, 0.1, [0.1]),
    lambda: G.theorem4_bound(0.1, P2, A2, M2, 0.1, [0.1, -0.1]),
    lambda: G.clopper_pearson(3, 2),
    lambda: G.clopper_pearson(1, 10, 1.0),
])
def test_validation_errors(call) -> None:
    with pytest.raises(FairtheoryValueError):
        call()


def test_type_errors() -> None:
    with pytest.raises(FairtheoryTypeError):
        G.theorem3_concentration(P2, A2, [2.0, 8.0], 0.1)
    with pytest.raises(FairtheoryTypeError):
        G.remark3_vc_bound(P2, A2, M2, 1.5)
    with pytest.raises(FairtheoryTypeError):
        G.weighted_rademacher(default_population(3), np.array([1, 1, 1, 1]), np.ones(4), rng=0)


# ----------------------------------------------------------------------------- Rademacher estimator
def test_rademacher_single_hypothesis_has_zero_mean() -> None:
    pop = ThresholdPopulation(mu=[0.0, 1.0], scale=[1.0, 2.0], theta=[0.0, 0.5], noise=[0.1, 0.3], grid=[0.2])
    m = np.array([4, 9])
    est = G.weighted_rademacher(pop, m, G.rademacher_coefficients([0.3, 0.7], [0.5, 0.7], m),
                                np.random.default_rng(6), 20_000)
    assert est.stderr > 0
    assert abs(est.mean) <= 4 * est.stderr
    assert est.lower() <= 0.0 <= est.upper()


def _expected_abs(c: np.ndarray) -> float:
    """E|sum_j c_j sigma_j| by enumerating all sign vectors."""
    signs = np.array(list(itertools.product((-1.0, 1.0), repeat=c.size)))
    return float(np.abs(signs @ c).mean())


def test_rademacher_two_opposite_hypotheses() -> None:
    # thresholds far outside the data: h = +1 and h = -1 everywhere, signed losses +y and -y, so
    # sup = |sum c_j sigma_j y_j|, distributed as |sum c_j sigma_j|
    pop = ThresholdPopulation(mu=[0.0, 0.0], scale=[1.0, 1.0], theta=[0.0, 1.0], noise=[0.2, 0.0],
                              grid=[-60.0, 60.0])
    m = np.array([2, 3])
    coef = G.rademacher_coefficients([0.4, 0.6], [0.8, 0.6], m)
    exact = _expected_abs(coef[np.repeat([0, 1], m)])
    est = G.weighted_rademacher(pop, m, coef, np.random.default_rng(7), 40_000, signed=True, chunk=7000)
    assert est.replicates == 40_000
    assert abs(est.mean - exact) <= 4 * est.stderr
    # one client, equal coefficients: E|2 Bin(m, 1/2) - m| / m
    m1 = np.array([7])
    pop1 = ThresholdPopulation(mu=[0.0], scale=[1.0], theta=[0.0], noise=[0.1], grid=[-60.0, 60.0])
    k = np.arange(8)
    exact1 = float(np.sum(binom.pmf(k, 7, 0.5) * np.abs(2 * k - 7)) / 7)
    est1 = G.weighted_rademacher(pop1, m1, 1.0 / m1, np.random.default_rng(8), 40_000, signed=True)
    assert abs(est1.mean - exact1) <= 4 * est1.stderr


def test_signed_rademacher_is_twice_zero_one() -> None:
    # R(1 - 2l) = 2 R(l): per replicate the difference is sum c sigma (mean zero)
    pop = default_population(11)
    m = np.array([3, 5, 2, 6])
    coef = G.rademacher_coefficients(pop.p, 0.5, m)
    a = G.weighted_rademacher(pop, m, coef, np.random.default_rng(9), 20_000)
    b = G.weighted_rademacher(pop, m, coef, np.random.default_rng(9), 20_000, signed=True)
    assert abs(b.mean - 2 * a.mean) <= 4 * math.hypot(b.stderr, 2 * a.stderr) + 1e-12


def test_per_client_rademacher_shape_and_vc() -> None:
    pop = default_population(21)
    m = np.array([5, 10, 20, 40])
    est = G.weighted_rademacher(pop, m, 1.0 / m, np.random.default_rng(10), 4000, per_client=True)
    assert est.mean.shape == est.stderr.shape == (4,)
    vc = np.array([G.remark3_vc_bound([1.0], 1.0, np.array([k]), 1) for k in m]) / 2  # 0-1 loss
    assert np.all(est.upper() <= vc)
    assert np.all(np.diff(est.mean) < 0)  # more data, smaller complexity


# ----------------------------------------------------------------------------- binomial interval
@pytest.mark.parametrize("k,N,conf", [(0, 200, 0.95), (3, 200, 0.99), (200, 200, 0.95), (17, 50, 0.999)])
def test_clopper_pearson_matches_scipy(k: int, N: int, conf: float) -> None:
    lo, hi = G.clopper_pearson(k, N, conf)
    ref = binomtest(k, N).proportion_ci(confidence_level=conf, method="exact")
    assert lo == pytest.approx(ref.low, abs=1e-12) and hi == pytest.approx(ref.high, abs=1e-12)
    if k == 0:
        assert hi == pytest.approx(1 - ((1 - conf) / 2) ** (1 / N), rel=1e-10)


# ----------------------------------------------------------------------------- the claims (quick mode)
@pytest.mark.slow
def test_generalization_claims_quick() -> None:
    from verify.claims import rcfl_generalization as C
    from verify.core import Context

    ctx = Context(quick=True, seed=0)
    for check in (C.check_theorem4, C.check_remark3):
        out = check(ctx)
        assert out.status == "verified", out.note
