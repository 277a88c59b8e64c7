"""Regression tests for the refuted FedFV claims (004): each stored minimal counterexample still
violates the claim, recomputed with plain straightforward formulas (not the library route), and the
claims (quick mode) still report it as their counterexample."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairtheory.bounds.fedfv import all_steps_conflict, conflicts, theorem1_bound, theorem2_bound
from fairtheory.instances.fedfv import MIN_ABSOLUTE as _MIN_ABS
from fairtheory.instances.fedfv import MIN_LAST_TARGET as _MIN_LAST
from fairtheory.instances.fedfv import MIN_THEOREM3_DESCENT as _MIN_T3
from fairtheory.instances.fedfv import MIN_THEOREM3_PARETO as _MIN_T3P


def _project_in_order(A: np.ndarray) -> np.ndarray:
    """g_i projected onto g_1..g_m's normal planes in index order, on conflict, skipping itself."""
    out = []
    for i in range(len(A)):
        v = A[i].astype(float).copy()
        for j in range(len(A)):
            if j != i and v @ A[j] < 0:
                v = v - (v @ A[j]) / (A[j] @ A[j]) * A[j]
        out.append(v)
    return np.array(out)


def test_last_target_counterexample():
    # App. A.1: "the final gradient gbar' will not conflict with g_m" - false for FedFV's rule.
    A = _MIN_LAST
    gbar = _project_in_order(A).mean(axis=0)
    assert np.isclose(A[-1] @ gbar, -1 / 29, atol=1e-15)  # hand value (see the constant's doc)
    assert A[-1] @ gbar < 0
    assert np.isclose(conflicts(A)[-1], -1 / 29, atol=1e-15)


def test_absolute_bounds_counterexample():
    # Thm. 1/2 printed with |.|: bound is 0 at k = m, but g_2 . gbar' = 1/2 (inside the hypothesis).
    A = _MIN_ABS
    assert all_steps_conflict(A) and A[0] @ A[1] < 0
    gbar = _project_in_order(A).mean(axis=0)
    assert np.allclose(gbar, [0.25, 0.75])
    assert abs(A[1] @ gbar) > theorem1_bound(A)[1] == 0.0
    assert abs(A[1] @ gbar) > theorem2_bound(A)[1] == 0.0
    # the one-sided versions hold there
    assert A[1] @ gbar >= -theorem1_bound(A)[1] and A[0] @ gbar >= -theorem1_bound(A)[0]


def test_theorem3_descent_counterexample():
    # F_i = 0.5||theta - a_i||^2, L = 1, eta = 1/L: printed eq. 18 claims a decrease, F increases.
    a1, a2, th, eta = (np.array(_MIN_T3[k]) for k in ("c1", "c2", "theta", "eta"))
    assert np.array_equal(_MIN_T3["H1"], np.eye(2)) and np.array_equal(_MIN_T3["H2"], np.eye(2))
    F = lambda w: 0.25 * (np.sum((w - a1) ** 2) + np.sum((w - a2) ** 2))  # noqa: E731
    g1, g2 = th - a1, th - a2
    c = g1 @ g2
    assert c < 0
    d = g1 + g2 - c / (g1 @ g1) * g1 - c / (g2 @ g2) * g2
    cos2 = c * c / (g1 @ g1) / (g2 @ g2)
    new = th - eta * d
    assert F(new) > F(th)  # not even a descent step
    assert F(new) > F(th) - eta / 2 * (1 - cos2) * np.sum((g1 + g2) ** 2)
    # the reading F = F1 + F2 with L = 2 (its smoothness), eta = 1/2 satisfies the printed form
    Fs = lambda w: 2 * F(w)  # noqa: E731
    assert Fs(th - 0.5 * d) <= Fs(th) - 0.5 / 2 * (1 - cos2) * np.sum((g1 + g2) ** 2) + 1e-15


def _eq10_step(w, H1, H2, c1, c2, eta):
    g1, g2 = H1 @ (w - c1), H2 @ (w - c2)
    c = g1 @ g2
    d = 0.5 * (g1 + g2) if c >= 0 else g1 + g2 - c / (g1 @ g1) * g1 - c / (g2 @ g2) * g2
    return w - eta * d


def test_theorem3_pareto_two_cycle():
    # eq. 10 with eta = 1/L cycles with period 2 away from the Pareto set (rho ~ 0.389).
    H1, H2, c1, c2 = (np.array(_MIN_T3P[k]) for k in ("H1", "H2", "c1", "c2"))
    eta = _MIN_T3P["eta"]
    assert eta <= 1 / max(np.linalg.eigvalsh(H1).max(), np.linalg.eigvalsh(H2).max())
    w = np.array(_MIN_T3P["theta0"])
    assert np.array_equal(w, [3.0, 3.0])
    for _ in range(300):
        w = _eq10_step(w, H1, H2, c1, c2, eta)
    w2 = _eq10_step(_eq10_step(w, H1, H2, c1, c2, eta), H1, H2, c1, c2, eta)
    assert np.linalg.norm(w2 - w) < 1e-9  # a 2-cycle
    g1, g2 = H1 @ (w - c1), H2 @ (w - c2)
    lam = np.clip((g2 - g1) @ g2 / ((g1 - g2) @ (g1 - g2)), 0, 1)
    rho = np.linalg.norm(lam * g1 + (1 - lam) * g2)
    assert rho > 0.38


@settings(max_examples=40)
@given(st.floats(0.05, 1.0), st.floats(0.0, np.pi))
def test_theorem3_descent_fails_for_small_conflicts(frac, phi):
    # isotropic F_i, conflict angle slightly over 90 degrees: printed eq. 18 fails for every eta
    # above 2|c|/(L(S + 2|c|)); pick |c| small enough that eta = frac/L exceeds it.
    g1 = np.array([1.0, 0.0])
    ang = np.pi / 2 + 1e-3 * (1 + phi)
    g2 = np.array([np.cos(ang), np.sin(ang)])
    c = g1 @ g2
    S = g1 @ g1 + g2 @ g2
    eta = frac
    assert eta > 2 * abs(c) / (S + 2 * abs(c))
    cos2 = c * c  # both unit vectors
    d = g1 + g2 - c * g1 - c * g2
    # exact change of F = (||th - a1||^2 + ||th - a2||^2)/4 with g_i = th - a_i, L = 1
    change = -eta * 0.5 * (g1 + g2) @ d + 0.5 * eta ** 2 * d @ d
    assert change > -eta / 2 * (1 - cos2) * np.sum((g1 + g2) ** 2)


# ----------------------------------------------------------------------------- the claims report them
@pytest.fixture(scope="module")
def outcomes():
    from verify.claims import fedfv as claims
    from verify.core import Context

    ctx = Context(quick=True, seed=0)
    return {name: getattr(claims, name)(ctx) for name in (
        "theorem1_absolute", "theorem2_absolute", "theorem1_last_target", "theorem3_descent", "theorem3_pareto")}


@pytest.mark.parametrize("name", ["theorem1_absolute", "theorem2_absolute"])
def test_claims_report_minimal_absolute_counterexample(outcomes, name):
    o = outcomes[name]
    assert o.status == "refuted" and o.relation == "<="
    cx = o.counterexample
    assert np.array_equal(cx["grads"], _MIN_ABS) and cx["k"] == 2
    assert cx["measured"] == pytest.approx(0.5, abs=1e-15) and cx["bound"] == 0.0


def test_claim_reports_minimal_last_target_counterexample(outcomes):
    o = outcomes["theorem1_last_target"]
    assert o.status == "refuted" and o.relation == ">=" and o.tightness is None
    assert np.array_equal(o.counterexample["grads"], _MIN_LAST)
    assert o.counterexample["measured"] == pytest.approx(-1 / 29, abs=1e-15)
    assert o.details["inside_hypothesis"]["violations"] == 0  # inside Thm. 1's hypothesis it holds


def test_claim_reports_minimal_theorem3_descent_counterexample(outcomes):
    o = outcomes["theorem3_descent"]
    assert o.status == "refuted" and o.relation == ">="
    cx = o.counterexample
    assert np.array_equal(cx["c1"], _MIN_T3["c1"]) and np.array_equal(cx["c2"], _MIN_T3["c2"]) and cx["eta"] == 1.0
    assert cx["measured"] == pytest.approx(-10 / 101, abs=1e-15)  # F increases by 10/101
    assert cx["bound"] == pytest.approx(90.5 / 101, abs=1e-15)  # the claimed decrease
    assert o.details["sum_reading"]["status"] == "verified"


def test_claim_reports_theorem3_two_cycle(outcomes):
    o = outcomes["theorem3_pareto"]
    assert o.status == "refuted" and o.relation == "=="
    cx = o.counterexample
    assert np.array_equal(cx["H1"], _MIN_T3P["H1"]) and np.array_equal(cx["theta0"], _MIN_T3P["theta0"])
    assert cx["measured"] > 0.38 and cx["bound"] == 0.0
