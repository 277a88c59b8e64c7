"""fairtheory.instances.fedfv: one pinned instance per result (hand values or plain formulas)."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory._validation import FairtheoryValueError
from fairtheory.instances import InstanceResult
from fairtheory.instances import fedfv as inst
from fairtheory.problems.quadratic import random_quadratic

S2 = np.sqrt(2.0)


def test_theorem1_conflict_hand_case():
    # g1 = (1,0), g2 = (-1,1): gbar' = (1/4, 3/4), g1 . gbar' = 1/4, g2 . gbar' = 1/2, eps^2 = 1/2
    A = inst.MIN_ABSOLUTE
    r = inst.theorem1_conflict(grads=A, k=1)
    assert isinstance(r, InstanceResult)
    assert r.measured == pytest.approx(-0.25, abs=1e-15)  # conflict -g_1 . gbar'
    assert r.theory == pytest.approx(0.25, abs=1e-15)  # (eps^2/m) ||g_1|| ||g_1^(1)|| = (1/4) 1 1
    assert r.extra["hypothesis"] and r.extra["dot"] == pytest.approx(0.25, abs=1e-15)
    a = inst.theorem1_conflict(grads=A, k=2, version="absolute")
    assert a.measured == pytest.approx(0.5, abs=1e-15) and a.theory == 0.0  # the refuted printed form
    # an explicit eps replaces the default (largest |cos| = 1/sqrt 2)
    assert inst.theorem1_conflict(grads=A, k=1, eps=1.0).theory == pytest.approx(0.5, abs=1e-15)


def test_theorem2_conflict_hand_case():
    A = inst.MIN_ABSOLUTE
    r = inst.theorem2_conflict(grads=A, k=1)
    # f(2, 1, e, e) = e^2 r (1 - r)/(1 - r) = (1/2)(1/sqrt 2); times (m-1)/m max||g||^2 = (1/2) 2
    assert r.measured == pytest.approx(-0.25, abs=1e-15) and r.theory == pytest.approx(0.5 / S2, abs=1e-15)
    assert inst.theorem2_conflict(grads=A, k=2, version="absolute").theory == 0.0
    assert inst.theorem2_conflict(grads=A, k=1, eps1=0.0, eps2=1.0).theory == pytest.approx(1.0, abs=1e-15)


def test_last_target_hand_case():
    r = inst.last_target(grads=inst.MIN_LAST_TARGET)
    assert r.measured == pytest.approx(-1 / 29, abs=1e-15) and r.theory == 0.0
    assert not r.extra["hypothesis"]


def test_projection_step_and_eq7_hand_case():
    # target g1 = (1,0): g2 = (-1,1) conflicts and becomes (0,1): orthogonal, ||g'||^2/||g||^2 = 1/2
    A = inst.MIN_ABSOLUTE
    r = inst.projection_step(grads=A, target=1)
    assert r.measured == 0.0 and r.theory == 0.0 and r.extra["projected"] == 1
    n = inst.projection_norm(grads=A, target=1)
    assert n.measured == pytest.approx(0.5, abs=1e-15) and n.theory == pytest.approx(0.5, abs=1e-15)
    assert n.extra["client"] == 2
    # no conflict with the target: nothing is projected
    none = inst.projection_norm(grads=np.array([[1.0, 0.0], [1.0, 1.0]]), target=1)
    assert none.extra["projected"] == 0 and np.isnan(none.measured)


def test_alpha_limit_random_set():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(5, 3))
    losses = rng.normal(size=5)
    for rule in ("paper", "reference"):
        for alpha in (0.0, 1.0):
            r = inst.alpha_limit(grads=A, losses=losses, alpha=alpha, keep_rule=rule)
            assert r.theory == 0.0 and 0.0 <= r.measured <= 1e-12
    with pytest.raises(FairtheoryValueError, match="alpha"):
        inst.alpha_limit(grads=A, losses=losses, alpha=0.5)


def test_theorem3_descent_hand_case():
    # F_i = 0.5||theta - c_i||^2, theta = 0, eta = 1: F rises by 10/101, eq. 18 claims a drop of 90.5/101
    r = inst.theorem3_descent(**inst.MIN_THEOREM3_DESCENT)
    assert r.extra["conflict"] and r.extra["dot"] == pytest.approx(-0.1, abs=1e-15)
    assert r.measured == pytest.approx(-10 / 101, abs=1e-15)
    assert r.theory == pytest.approx(90.5 / 101, abs=1e-15)
    # F = F1 + F2 with its smoothness L = 2, eta = 1/2: the derivation's reading holds (tight here)
    s = inst.theorem3_descent(**{**inst.MIN_THEOREM3_DESCENT, "eta": 0.5}, reading="sum")
    assert s.measured >= s.theory - 1e-15


def test_eq10_direction_orthogonal_to_both():
    g1, g2 = np.array([1.0, 0.0]), np.array([-1.0, 1.0])
    d = inst.eq10_direction(g1, g2)
    # eq. 10 = g1' + g2' with g1' _|_ g2 and g2' _|_ g1
    assert np.allclose(d, [0.5, 0.5] + np.array([0.0, 1.0]), atol=1e-15)
    assert np.allclose(inst.eq10_direction(g1, np.array([1.0, 1.0])), [1.0, 0.5], atol=1e-15)  # no conflict: mean


def test_pareto_two_client_two_cycle_and_fedfv():
    q = inst.MIN_THEOREM3_PARETO
    r = inst.pareto_two_client(**q, T=300, record=True)
    assert r.theory == 0.0 and r.measured > 0.38  # the 2-cycle keeps rho away from 0
    its = r.extra["iterates"]
    assert its.shape == (301, 2) and np.allclose(its[0], q["theta0"])
    assert np.linalg.norm(its[-1] - its[-3]) <= 1e-9  # period 2
    assert r.extra["rho"][-1] == pytest.approx(r.measured, abs=1e-15)
    # FedFV itself (one local step, rescaled) with a small constant step gets close to the Pareto set
    f = inst.pareto_two_client(**{**q, "eta": 0.5}, T=300, method="fedfv")
    assert f.measured <= 1e-6
    with pytest.raises(FairtheoryValueError, match="method"):
        inst.pareto_two_client(**q, T=1, method="other")


def test_theorem4_descent_one_model():
    prob = random_quadratic(4, 3, rng=np.random.default_rng(1), mu=0.1, L=1.0, spread=2.0)
    w = np.array([3.0, -2.0, 1.0])
    r = inst.theorem4_descent(problem=prob, w=w, eta=1.0, rescaled=True)
    from fairtheory.algorithms.fedfv_aggregate import aggregate

    G = prob.grads(w)
    gp = aggregate(G, prob.losses(w), alpha=0.0)
    gbar = G.mean(axis=0)
    F = lambda v: float(np.mean(prob.losses(v)))  # noqa: E731
    assert r.measured == pytest.approx(F(w) - F(w - gp), abs=1e-12)
    assert r.theory == pytest.approx(0.0, abs=1e-15)  # eta = 1/L: eta/2 - L eta^2/2 = 0
    assert r.extra["norm_gbar"] == pytest.approx(np.linalg.norm(gbar), rel=1e-14)
    if r.extra["conditions"]:
        assert r.measured >= r.theory


def test_order_effect_one_seed_short():
    r = inst.order_effect(seed=0, replicate=0, rounds=3)
    assert set(r.extra) == {"ascending", "random", "reversed"}
    assert r.measured == r.extra["ascending"] and r.theory == min(r.extra["random"], r.extra["reversed"])
    assert all(0.0 <= v <= 0.25 for v in r.extra.values())  # variances of fractions in [0, 1]


def test_generators_and_validation():
    sets = inst.gradient_sets(np.random.default_rng(0), 8)
    again = inst.gradient_sets(np.random.default_rng(0), 8)
    assert len(sets) == 8 and all(np.array_equal(a, b) for a, b in zip(sets, again, strict=True))
    assert all(2 <= A.shape[0] <= 6 and 2 <= A.shape[1] <= 6 for A in sets)
    assert inst.noisy_simplex(4, 3, np.random.default_rng(1)).shape == (4, 3)
    prof = inst.conflict_profile(inst.MIN_ABSOLUTE)
    assert prof["projections"].shape == (3, 2, 2) and not prof["dot"].flags.writeable
    with pytest.raises(FairtheoryValueError, match="k"):
        inst.theorem1_conflict(grads=inst.MIN_ABSOLUTE, k=3)
    with pytest.raises(FairtheoryValueError, match="version"):
        inst.theorem1_conflict(grads=inst.MIN_ABSOLUTE, k=1, version="both")
    with pytest.raises(FairtheoryValueError, match="grads"):
        inst.last_target(grads=np.array([[np.nan, 1.0]]))
    with pytest.raises(FairtheoryValueError, match="reading"):
        inst.theorem3_descent(**inst.MIN_THEOREM3_DESCENT, reading="mean")
