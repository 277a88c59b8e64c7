"""Instance functions of relative fairness (001, reconstructed): one pinned instance per result.

The claims ``relfair.*`` sweep these functions and the figures ``relfair_*`` plot them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairtheory.instances import InstanceResult
from fairtheory.instances import relative as rel
from fairtheory.problems.quadratic import QuadraticProblem, random_quadratic
from fairtheory.sets import CappedSimplex


def test_worst_step():
    assert rel.worst_step([0.0, 1.0, 1.5, 3.0], increasing=True) == 1
    assert rel.worst_step([3.0, 1.0, 1.5, 0.0], increasing=False) == 1


def test_prop9_by_hand():
    S = CappedSimplex.simplex(3)
    res = rel.prop9_majorization(losses=[1.0, 2.0, 4.0], A=S, B=S, c_factor=0.5, C_factor=2.0, phis=[0.0, 0.5])
    assert isinstance(res, InstanceResult)
    ratio, upper, x = res
    assert (x["U"], x["V"], x["c"], x["C"]) == (4.0, 1.0, 0.5, 2.0)
    assert ratio == 4.0 and upper == 7.5  # phi + (U - phi V)/c at phi = 0.5
    assert np.array_equal(x["lower"], [2.0, 2.25]) and np.array_equal(x["upper"], [8.0, 7.5])
    assert x["tightest_lower"] == 2.25 <= ratio <= upper


def test_lemma8_attained_on_extremal_instance_and_bound_holds():
    Sn = CappedSimplex.simplex(3)
    P = rel.lemma8_extremal_problem(mu=0.5, L=2.0, n=3, d=2)
    m, t, x = rel.lemma8_strong_convexity(problem=P, A=Sn, B=Sn, phi=0.2)
    assert t == pytest.approx(0.125, abs=1e-15)
    assert abs(m - t) <= 1e-12 and x["method"] == "vertices"
    Q = random_quadratic(4, 2, rng=np.random.default_rng(0), mu=0.4, L=1.5)
    m, t, _ = rel.lemma8_strong_convexity(problem=Q, A=CappedSimplex.cvar(4, 0.5), B=Sn.simplex(4), phi=0.3)
    assert m >= t - 1e-12


def test_routes_agree_one_instance():
    P = random_quadratic(3, 2, rng=np.random.default_rng(1), mu=0.8, L=2.0, spread=1.5, offset=1.0)
    A = CappedSimplex.cvar(3, 0.5)
    gs, sdp, x = rel.routes_agree(problem=P, A=A, B=A, phi=0.2, rng=0)
    assert abs(gs - sdp) <= 1e-6 * max(1.0, abs(sdp))
    assert 0 <= x["certified_gap"] <= 1e-6


def _common_hessian_instance(seed=2, n=4, d=2):
    rng = np.random.default_rng(seed)
    H = np.broadcast_to(np.diag([1.0, 2.0]), (n, d, d)).copy()
    return QuadraticProblem(H, 2.0 * rng.normal(size=(n, d)), rng.uniform(0.05, 1.0, size=n))


def test_theorem1_monotone_one_instance_and_curve_reuse():
    P = _common_hessian_instance()
    A = CappedSimplex.cvar(4, 0.5)
    phis = np.linspace(0.0, 0.9, 5)
    inc, allow, x = rel.theorem1_monotone(problem=P, A=A, B=A, phis=phis)
    assert np.all(x["increase"] <= x["allowance"]) and inc <= allow
    assert x["curve"]["uncertified"] == 0 and np.all(x["curve"]["index"] >= 1.0 - 1e-12)
    again = rel.theorem1_monotone(problem=P, A=A, B=A, phis=phis, curve=x["curve"])
    assert (again.measured, again.theory) == (inc, allow)


def test_monotone_allowance_zero_for_exact_solutions():
    assert rel.monotone_allowance(3.0, 1.0, 1.2, 0.0, 0.0, 0.1, 0.5) == 0.0
    assert rel.monotone_allowance(3.0, 1.0, 1.2, 1e-9, 1e-9, 0.1, 0.5) > 0.0


def test_theorem2_strict_one_instance_and_assumption_failing():
    P = _common_hessian_instance()
    A = CappedSimplex.cvar(4, 0.5)
    phis = np.linspace(0.0, 0.9, 5)
    m, bound, x = rel.theorem2_strict(problem=P, A=A, B=A, phis=phis)
    assert x["moved"] and x["allowance"] > 0 and m <= bound and x["decrease"] > 0
    # a singleton set: w*_phi does not depend on phi, the imbalance assumption fails
    S = CappedSimplex.singleton(np.full(4, 0.25))
    m, bound, x = rel.theorem2_strict(problem=P, A=S, B=S, phis=phis)
    assert not x["moved"] and math.isnan(m) and math.isnan(bound)


def test_penguins_curve_delta3():
    phis = rel.penguins_phi_grid(True)
    inc, allow, x = rel.penguins_curve(sets="Delta_3", phis=phis)
    c = x["curve"]
    assert c["uncertified"] == 0 and inc <= allow
    assert c["index"][0] > 3.5 and abs(c["index"][-1] - 1.0) <= 1e-5  # losses equalised for phi > 0
    assert x["losses"].shape == (phis.size, 3)


def test_theorem3_rate_deterministic_one_instance():
    P = random_quadratic(4, 2, rng=np.random.default_rng(3), mu=1.0, L=2.0, spread=2.0, offset=1.0)
    slope, theory, x = rel.theorem3_rate(problem=P, A=CappedSimplex.cvar(4, 0.5), phi=0.2, rounds=300, mu=1.0, L=2.0)
    assert theory == -2.0 and slope <= theory + 0.25
    assert x["error_curve"].shape == (300,) and x["floor"] >= 1e-16


def test_skewness_monotone_simplex_closed_form():
    S = CappedSimplex.simplex(3)
    phis = np.array([0.0, 0.25, 0.5])
    s_next, s_prev, x = rel.skewness_monotone(A=S, B=S, phis=phis)
    ref = 3 * (1 + phis ** 2) / (1 - phis) ** 2  # vertex (e_i - phi e_j)/(1 - phi), i != j
    assert np.allclose(x["skewness"], ref, rtol=1e-14, atol=0)
    assert x["pair"] == 0 and (s_next, s_prev) == (x["skewness"][1], x["skewness"][0]) and s_next >= s_prev
