"""cvxpy twins of the capped-simplex closed forms (fairtheory.exact.capped) against the closed forms."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairtheory.exact import (
    ExactResult,
    SolverError,
    integrated_support_lp,
    lower_lp,
    project_qp,
    qalpha_dual_lp,
    qalpha_sup_lp,
    support_lp,
)
from fairtheory.exact.capped import LP_SOLVER
from fairtheory.sets import CappedSimplex, IntegratedSet
from fairtheory.testing import capped_simplices, integrated_sets, qalpha_instances

TOL = 1e-8


def close(a: float, b: float, scale: float) -> bool:
    return abs(a - b) <= TOL * max(1.0, abs(b), scale)


def values(n: int):
    return st.lists(st.floats(-1e4, 1e4, allow_subnormal=False), min_size=n, max_size=n).map(np.asarray)


@st.composite
def set_and_vector(draw, max_n: int = 8):
    S = draw(capped_simplices(max_n=max_n))
    return S, draw(values(S.n))


# ------------------------------------------------------------------ hand values and result shape
def test_support_lp_hand_value_and_result_fields():
    S = CappedSimplex.cvar(4, 0.5)
    v = np.array([1.0, 4.0, 2.0, 3.0])
    r = support_lp(S, v)
    assert isinstance(r, ExactResult)
    assert r.solver == LP_SOLVER == "HIGHS" and r.status == "optimal"
    assert r.value == pytest.approx(3.5, abs=1e-9)
    assert np.allclose(r.weights, [0, 0.5, 0, 0.5], atol=1e-9)
    assert r.certificate["gap"] == pytest.approx(0.0, abs=1e-9)
    assert r.certificate["primal_infeasibility"] <= 1e-9
    low = lower_lp(S, v)
    assert low.value == pytest.approx(1.5, abs=1e-9)
    assert low.certificate["dual_bound"] <= low.value + 1e-9  # a lower bound for a minimum


def test_project_qp_hand_value():
    r = project_qp(CappedSimplex([0.4, 0.4, 0.4]), [1.0, 0.0, 0.0])
    assert r.solver == "CLARABEL" and r.status == "optimal" and r.extra["attempt"] == "clarabel"
    assert np.allclose(r.weights, [0.4, 0.3, 0.3], atol=1e-7)
    assert 0 <= r.certificate["gap"] <= 1e-8


def test_qalpha_lps_hand_value():
    p = np.array([0.5, 0.25, 0.25])
    f = np.array([3.0, -1.0, 7.0])
    assert qalpha_sup_lp(f, p, 0.5).value == pytest.approx(5.0, abs=1e-9)
    d = qalpha_dual_lp(f, p, 0.5)
    assert d.value == pytest.approx(5.0, abs=1e-9)
    assert f.min() - 1e-9 <= d.extra["eta"] <= f.max() + 1e-9  # Lemma 1: minimiser in [min f, max f]
    assert np.allclose(qalpha_sup_lp(f, p, 0.5).extra["q"] * p, qalpha_sup_lp(f, p, 0.5).weights)


def test_integrated_lp_hand_value_phi_zero_and_positive():
    A, B = CappedSimplex.simplex(3), CappedSimplex.simplex(3)
    v = np.array([1.0, 2.0, 4.0])
    r = integrated_support_lp(IntegratedSet(A, B, 0.5), v)
    assert r.value == pytest.approx(7.0, abs=1e-9)
    assert np.allclose(r.weights, [-1.0, 0.0, 2.0], atol=1e-9)
    assert r.weights.sum() == pytest.approx(1.0, abs=1e-12)
    assert integrated_support_lp(IntegratedSet(A, B, 0.0), v).value == pytest.approx(4.0, abs=1e-9)


def test_solver_error_is_raised_on_non_optimal_status(monkeypatch):
    """Every non-optimal status raises SolverError naming solver and status."""
    import cvxpy as cp

    def fake_solve(self, *args, **kwargs):
        self._status = "infeasible"  # what cvxpy reports through Problem.status
        return float("nan")

    monkeypatch.setattr(cp.Problem, "solve", fake_solve)
    monkeypatch.setattr(cp.Problem, "status", property(lambda self: "infeasible"))
    with pytest.raises(SolverError) as info:
        support_lp(CappedSimplex.simplex(3), [1.0, 2.0, 3.0])
    assert info.value.solver == "HIGHS" and info.value.status == "infeasible"
    with pytest.raises(SolverError):
        project_qp(CappedSimplex.simplex(3), [1.0, 2.0, 3.0])  # every fallback fails too


def test_q_coordinates_finding_is_avoided():
    """Regression: the paper's q-coordinate LP was badly scaled on this Hypothesis instance and HiGHS
    returned 'optimal' with a value above max f; the lam-coordinate LP must match the closed form."""
    p = np.array(
        [
            3.3333332e-13,
            3.3333332e-01,
            3.3333332e-01,
            3.3333332e-09,
            3.3333332e-09,
            3.3333332e-12,
            3.3333332e-10,
            3.3333332e-12,
            3.3333332e-12,
            3.3333332e-12,
            3.3333332e-01,
            3.3333332e-08,
        ]
    )
    p = p / p.sum()
    alpha = np.maximum(
        np.array(
            [
                3.84336012e-01,
                1.0,
                3.33333320e-01,
                3.33333320e-09,
                1.0,
                3.33333320e-12,
                3.33333320e-10,
                1.74675622e-02,
                6.62044744e-01,
                1.0,
                3.33333320e-01,
                3.80019727e-01,
            ]
        ),
        p,
    )
    f = np.array(
        [
            1.0,
            1.42980010e5,
            7.36910969e5,
            2.88426227e5,
            5.04867053e5,
            9.50862241e-271,
            7.02072542e5,
            3.13272694e-20,
            1.0e-300,
            1.0e6,
            5.0e5,
            1.0,
        ]
    )
    closed = CappedSimplex.qalpha(p, alpha).support(f)
    r = qalpha_sup_lp(f, p, alpha)
    assert r.value <= f.max() * (1 + 1e-12)
    assert close(closed, r.value, f.max())


# ------------------------------------------------------------------ properties: closed form vs LP/QP
@settings(max_examples=25)
@given(qalpha_instances(max_n=8))
def test_qalpha_closed_form_equals_both_lps(inst):
    p, alpha, f = inst
    closed = CappedSimplex.qalpha(p, alpha).support(f)
    scale = float(np.max(np.abs(f)))
    assert close(closed, qalpha_sup_lp(f, p, alpha).value, scale)
    assert close(closed, qalpha_dual_lp(f, p, alpha).value, scale)


@settings(max_examples=25)
@given(set_and_vector())
def test_support_lower_argmax_vs_lp(sv):
    S, v = sv
    scale = float(np.max(np.abs(v)))
    r = support_lp(S, v)
    assert close(S.support(v), r.value, scale)
    assert close(float(S.argmax(v) @ v), r.value, scale)
    assert close(S.lower(v), lower_lp(S, v).value, scale)
    assert r.certificate["dual_bound"] >= r.value - TOL * max(1.0, scale)  # weak duality


@settings(max_examples=25)
@given(set_and_vector())
def test_projection_vs_qp(sv):
    """Objective values agree; weights lie within the certified distance sqrt(2 gap_qp) + rounding."""
    S, v = sv
    x = S.project(v)
    r = project_qp(S, v)
    f_cf = 0.5 * float(np.sum((x - v) ** 2))
    assert f_cf <= r.value + TOL * max(1.0, r.value)  # closed form never worse than the solver
    assert abs(f_cf - r.value) <= TOL * max(1.0, r.value)
    assert np.linalg.norm(x - r.weights) <= np.sqrt(2 * max(r.certificate["gap"], 0.0)) + 1e-6 * max(
        1.0, abs(v).max()
    )


@settings(max_examples=20)
@given(integrated_sets(max_n=6), st.data())
def test_integrated_support_vs_lp(I, data):
    v = data.draw(values(I.n))
    r = integrated_support_lp(I, v)
    scale = float(np.max(np.abs(v))) * (1 + I.phi) / (1 - I.phi)
    assert close(I.support(v), r.value, scale)
    assert abs(r.weights.sum() - 1.0) <= 1e-9 / (1 - I.phi)
    lam = I.argmax(v)
    assert close(float(lam @ v), r.value, scale)


def test_project_qp_highs_fallback_agrees(monkeypatch) -> None:
    """The HiGHS QP fallback gives the same projection as the closed form."""
    import fairtheory.exact.capped as C
    from fairtheory.exact.result import SolverError

    rng = np.random.default_rng(3)
    S = CappedSimplex(rng.uniform(0.1, 0.6, size=7))
    v = rng.normal(size=7)
    real = C.solve_checked

    def fail_unless_highs(prob, what, solver, **kw):
        if solver != "HIGHS":
            raise SolverError(what, solver, "forced failure (test)")
        return real(prob, what, solver, **kw)

    monkeypatch.setattr(C, "solve_checked", fail_unless_highs)
    r = C.project_qp(S, v)
    assert r.extra["attempt"] == "highs-qp"
    assert np.max(np.abs(r.weights - S.project(v))) <= 1e-7
