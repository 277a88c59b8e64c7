"""Regression tests for the robustness round 2 (issue 18, library items): one test per cause.

* ``audit`` aborted when the aggregator raised on part of its domain (its subgradient search was
  unguarded); non-finite or wrongly shaped returns crashed it.
* The loss unit of the exact solvers was taken from rounding noise (interpolating least squares:
  ``f(w_ref) ~ 1e-31``), so ``solve_rcfl`` (n = 1, alpha = 1) stopped "uncertified" at a duality gap of
  ``1e-32`` and Clarabel reported ``unbounded``.
* ``solve_smoothed_rcfl(mu=1e-12)`` failed (Clarabel failure, Newton uncertified).
* ``project_qp`` at ``1e300`` failed in every solver and leaked OSQP's DeprecationWarning.

Every expected value is computed here independently (closed forms, plain numpy), never by the routine
under test.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
from oracles import capped_simplex_projection

from fairtheory import aggregators as agg
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.exact import capped
from fairtheory.exact.rcfl import SMOOTHED_MU_FLOOR, solve_afl, solve_fedavg, solve_rcfl, solve_smoothed_rcfl
from fairtheory.problems import LeastSquaresProblem, QuadraticProblem, random_quadratic
from fairtheory.sets import CappedSimplex
from fairtheory.testing import audit


# ================================================================================ audit
class _RaisesAbove:
    """Mean of the losses; ``value`` raises ZeroDivisionError when ``f_0 > 50`` (part of the domain)."""

    n = 3

    def value(self, f: Any) -> float:
        if f[0] > 50:
            raise ZeroDivisionError("boom")
        return float(np.mean(f))

    def weights(self, f: Any) -> np.ndarray:
        return np.full(3, 1 / 3)


class _WeightsRaiseAtTies:
    """``max f``; ``weights`` raises KeyError at a positive tie (met by the subgradient search)."""

    n = 2

    def value(self, f: Any) -> float:
        return float(np.max(f))

    def weights(self, f: Any) -> np.ndarray:
        if f[0] == f[1] and f[0] > 0:
            raise KeyError("tie")
        w = np.zeros(2)
        w[int(np.argmax(f))] = 1.0
        return w


class _NanWeights:
    n = 3

    def value(self, f: Any) -> float:
        return float(np.mean(f))

    def weights(self, f: Any) -> np.ndarray:
        return np.array([np.nan, 0.0, 1.0]) if f[1] > 10 else np.full(3, 1 / 3)


class _WrongShape:
    n = 3

    def value(self, f: Any) -> Any:
        return np.array([1.0, 2.0])

    def weights(self, f: Any) -> np.ndarray:
        return np.ones(2)


class _Strings:
    n = 2

    def value(self, f: Any) -> Any:
        return "abc"

    def weights(self, f: Any) -> Any:
        return ["a", "b"]


class _BadGrads(agg.TERM):
    def client_grads(self, f: Any, eta: Any) -> Any:
        raise IndexError("bad index")


class _BadCvxpy(agg.TERM):
    def cvxpy(self, t: Any) -> Any:
        return 1 / 0


class _BadCurvature(agg.QFFL):
    def curvature(self, f: Any) -> Any:
        return np.ones(5)


def _audit(a: Any, **kw: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return audit(a, max_examples=kw.pop("max_examples", 15), **kw)


@pytest.mark.slow
def test_audit_reports_an_aggregator_that_raises_on_part_of_its_domain() -> None:
    rep = _audit(_RaisesAbove(), properties=("defined", "subgradient", "weights_nonnegative", "monotone"))
    assert rep["defined"].status == "violated" and not rep.passed
    assert rep["defined"].counterexample["f"][0] > 50
    assert "ZeroDivisionError: boom" in rep["defined"].message
    assert rep["subgradient"].status == "violated"  # the search that used to abort
    assert rep["weights_nonnegative"].status == "held"  # the other properties still ran
    assert rep["monotone"].status == "violated" and len(rep.rows) == 4


def test_audit_subgradient_search_alone_does_not_abort() -> None:
    rep = _audit(_WeightsRaiseAtTies(), properties=("subgradient",))
    row = rep["subgradient"]
    assert row.status == "violated" and "KeyError" in row.message
    f = row.counterexample["f"]
    assert f[0] == f[1] > 0


@pytest.mark.slow
def test_audit_weights_failure_met_elsewhere_marks_defined() -> None:
    rep = _audit(_WeightsRaiseAtTies())
    assert rep["defined"].status == "violated" and "KeyError" in rep["defined"].message


@pytest.mark.parametrize("bad,needle", [(_NanWeights(), "non-finite"),
                                        pytest.param(_WrongShape(), "shape", marks=pytest.mark.slow),
                                        pytest.param(_Strings(), "not real numbers", marks=pytest.mark.slow)])
def test_audit_reports_nonfinite_and_malformed_returns(bad: Any, needle: str) -> None:
    rep = _audit(bad, properties=("defined", "subgradient"))
    assert rep["defined"].status == "violated"
    assert needle in rep["defined"].message


@pytest.mark.slow
def test_audit_guards_separable_form_cvxpy_and_curvature() -> None:
    p = np.full(3, 1 / 3)
    rep = _audit(_BadGrads(p, 1.0))
    assert rep["separable_form"].status == "violated" and "IndexError" in rep["separable_form"].message
    assert rep["defined"].status == "violated"
    rep = _audit(_BadCvxpy(p, 1.0), properties=("defined",))
    assert rep["defined"].status == "violated" and "cvxpy(t) raised ZeroDivisionError" in rep["defined"].message
    rep = _audit(_BadCurvature(p, 1.0), properties=("defined",))
    assert rep["defined"].status == "violated" and "curvature(f)" in rep["defined"].message
    # the built-ins with every capability still pass
    assert _audit(agg.QFFL(p, 1.0), properties=("defined", "separable_form")).passed
    assert _audit(agg.TERM(p, 1.0), properties=("defined", "separable_form")).passed


def test_audit_validates_attributes_by_name() -> None:
    class N:
        n = "3"
        value = weights = staticmethod(lambda f: 0.0)

    class D(_RaisesAbove):
        domain = (5.0, 1.0)

    class P(_RaisesAbove):
        p = np.array([0.5, 0.5])

    with pytest.raises(FairtheoryTypeError, match="aggregator.n"):
        audit(N())
    with pytest.raises(FairtheoryValueError, match="aggregator.domain"):
        audit(D())
    with pytest.raises(FairtheoryValueError, match="aggregator.p"):
        audit(P())


def test_audit_reports_a_nondeterministic_aggregator() -> None:
    class Flaky:
        n = 2
        calls = 0

        def value(self, f: Any) -> float:
            Flaky.calls += 1
            if Flaky.calls % 7 == 0:
                raise RuntimeError("sometimes")
            return float(np.mean(f))

        def weights(self, f: Any) -> np.ndarray:
            return np.full(2, 0.5)

    rep = _audit(Flaky(), properties=("defined", "convex"))
    assert rep["defined"].status == "violated" and "sometimes" in rep["defined"].message


# ================================================================================ loss unit floor
def _interpolating() -> tuple[LeastSquaresProblem, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 3))
    w_true = np.array([1.0, -2.0, 0.5])
    return LeastSquaresProblem(X, X @ w_true, [0, 4, 8, 12]), w_true


@pytest.mark.parametrize("solve", [solve_fedavg, solve_afl, lambda P: solve_rcfl(P, 0.5), lambda P: solve_rcfl(P, 1.0)])
def test_interpolating_least_squares_is_solved(solve: Any) -> None:
    """min = 0 at w_true (y = X w_true): the unit was the rounding noise 1e-31 (Clarabel 'unbounded')."""
    P, w_true = _interpolating()
    r = solve(P)
    assert 0.0 <= r.value <= 1e-20
    np.testing.assert_allclose(r.argmin, w_true, atol=1e-8)


def test_single_client_gap_at_float_resolution_is_certified() -> None:
    """n = 1, alpha = 1: f = 0.5 1e200 ||w - 1e-100||^2 + 1e-30; the primal point is a few ulp from the centre,
    the gap (1e-32) is the float resolution of f there, far below the loss scale f(0) = 1."""
    P = QuadraticProblem(1e200 * np.eye(2)[None], np.full((1, 2), 1e-100), [1e-30])
    r = solve_rcfl(P, 1.0)
    assert r.certificate["dual_value"] <= 1e-30 <= r.value  # the true minimum lies in the certified interval
    assert r.value - 1e-30 <= 1e-31
    np.testing.assert_allclose(r.argmin, 1e-100, rtol=1e-14)


def test_huge_curvature_tiny_loss_has_no_overflow_warning() -> None:
    P = QuadraticProblem(1e300 * np.eye(2)[None], np.zeros((1, 2)), [1e-30])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = solve_rcfl(P, 1.0)
    assert r.value == pytest.approx(1e-30, rel=1e-12)


# ================================================================================ smoothed RC-FL at small mu
def _direct_F(P: Any, w: np.ndarray, eta: float, alpha: float, mu: float) -> float:
    """``sum_i (p_i/alpha) mu log(1 + e^{(f_i - eta)/mu}) + eta`` in plain numpy (logaddexp)."""
    f = np.array([0.5 * (w - P.c[i]) @ P.H[i] @ (w - P.c[i]) + P.e[i] for i in range(P.n)])
    return float(np.sum(P.p / alpha * mu * np.logaddexp(0.0, (f - eta) / mu)) + eta)


QP5 = random_quadratic(5, 3, rng=np.random.default_rng(0))


def test_smoothed_tiny_mu_returns_a_certified_interval() -> None:
    mu, alpha = 1e-12, 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = solve_smoothed_rcfl(QP5, alpha, mu)
    r0 = solve_rcfl(QP5, alpha)
    tau = float(np.sum(QP5.p / alpha))
    assert r.extra["route"] == "unsmoothed" and mu < SMOOTHED_MU_FLOOR
    # value = F^mu at the returned point, evaluated independently
    assert r.value == pytest.approx(_direct_F(QP5, r.argmin, r.extra["eta"], alpha, mu), rel=1e-14)
    # Lemma 2: f* <= min F^mu <= value <= f_alpha(w0) + mu tau log 2
    lo = r.certificate["lower_bound"]
    assert lo <= r0.value <= r.value <= r0.value + mu * tau * math.log(2) + 1e-15
    assert r.certificate["gap"] == pytest.approx(r.value - lo, rel=1e-12)
    assert r.certificate["gap"] <= r.certificate["unsmoothed_gap"] + r.certificate["smoothing_bound"] + 1e-15


@pytest.mark.parametrize("mu", [1e-4, 1e-5])
def test_unsmoothed_route_brackets_the_regular_route(mu: float) -> None:
    """At mu where both routes work, the regular (gradient-certified) value lies in the interval."""
    alpha = 0.5
    reg = solve_smoothed_rcfl(QP5, alpha, mu)
    via = solve_smoothed_rcfl(QP5, alpha, mu, mu_floor=1.0)
    assert reg.extra["route"] == "smoothed" and via.extra["route"] == "unsmoothed"
    slack = 1e-12 * max(1.0, abs(reg.value))
    assert via.certificate["lower_bound"] - slack <= reg.value <= via.value + slack
    assert via.value - reg.value <= via.certificate["gap"] + slack
    tau = float(np.sum(QP5.p / alpha))
    assert via.certificate["gap"] <= via.certificate["unsmoothed_gap"] + mu * tau * math.log(2) + slack


def test_newton_method_small_mu_gets_the_unsmoothed_start() -> None:
    """method='newton' from the FedAvg optimum was uncertified at mu = 1e-4 (gradient 0.7)."""
    r = solve_smoothed_rcfl(QP5, 0.5, 1e-4, method="newton")
    assert r.certificate["grad_norm"] <= 1e-9 * max(1.0, abs(r.value))
    reg = solve_smoothed_rcfl(QP5, 0.5, 1e-4)
    assert r.value == pytest.approx(reg.value, rel=1e-12)


def test_mu_floor_validated() -> None:
    with pytest.raises(FairtheoryValueError, match="mu_floor"):
        solve_smoothed_rcfl(QP5, 0.5, 1e-3, mu_floor=-1.0)


# ================================================================================ project_qp
def _ref_project(v: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """Independent projection in exact rationals (the shared oracle ``tests/oracles.py``), rounded once."""
    return np.array([float(x) for x in capped_simplex_projection(v.tolist(), caps.tolist())])


def _half_sq_dist(a: np.ndarray, b: np.ndarray) -> float:
    """``0.5 ||a - b||^2`` in exact rationals, rounded once (``inf`` beyond the float range)."""
    from fractions import Fraction

    tot = sum((Fraction(float(x)) - Fraction(float(y))) ** 2 for x, y in zip(a, b, strict=True)) / 2
    try:
        return float(tot)
    except OverflowError:
        return math.inf


@pytest.mark.parametrize("scale", [1e-300, 1e-12, 1.0, 1e12, 1e300])
@pytest.mark.parametrize("caps", [[1.0, 1.0, 1.0], [0.5, 0.4, 0.3], [2 / 3, 2 / 3, 2 / 3]])
def test_project_qp_any_scale_without_warnings(scale: float, caps: list[float]) -> None:
    S = CappedSimplex(caps)
    v = np.array([1.0, 3.0, 2.0]) * scale
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # DeprecationWarning included
        r = capped.project_qp(S, v)
    gap = max(r.certificate["gap"], 0.0)
    assert gap <= 1e-9
    ref = _ref_project(v, np.asarray(caps))
    np.testing.assert_allclose(S.project(v), ref, atol=1e-12)
    assert np.linalg.norm(r.weights - ref) <= math.sqrt(2 * gap) + 1e-9
    want = _half_sq_dist(ref, v)
    if math.isfinite(want):
        # the value at the solver's weights: within the certified gap (plus rounding) of the exact minimum
        # (an interior point may sit 1e-11 outside the set, a hair below the minimum)
        assert abs(r.value - want) <= gap + 1e-9 * max(1.0, want)
    else:
        assert r.value == math.inf  # 0.5 ||lam - v||^2 ~ 1e600 does not fit float64


def test_project_qp_mixed_signs_near_the_float_range() -> None:
    S = CappedSimplex.simplex(3)
    v = np.array([1.7e308, -1.7e308, 1.6e308])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = capped.project_qp(S, v)
    np.testing.assert_allclose(r.weights, [1.0, 0.0, 0.0], atol=1e-5)


def test_project_qp_fallbacks_emit_no_warning(monkeypatch: Any) -> None:
    """OSQP's deprecation of 'polish' failed the last fallback (and leaked under warnings-as-errors)."""
    import fairtheory.exact.capped as C
    from fairtheory.exact.result import SolverError

    real = C.solve_checked
    S = CappedSimplex([0.5, 0.4, 0.3])
    v = np.array([1.0, 3.0, 2.0])
    for keep, label in (("HIGHS", "highs-qp"), ("OSQP", "osqp-polished")):
        def only(prob: Any, what: str, solver: str, keep: str = keep, **kw: Any) -> float:
            if solver != keep:
                raise SolverError(what, solver, "forced failure (test)")
            return real(prob, what, solver, **kw)

        monkeypatch.setattr(C, "solve_checked", only)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r = C.project_qp(S, v)
        assert r.extra["attempt"] == label
        assert np.max(np.abs(r.weights - S.project(v))) <= 1e-6


# ================================================================================ found by the round-2 sweep
def test_atkinson_huge_and_near_one_aversion() -> None:
    from fairtheory import metrics

    a = [1.0, 3.0, 2.0, 2.0, 5.0]
    mean = sum(a) / 5
    assert metrics.atkinson(a, 1e300) == pytest.approx(1 - min(a) / mean, rel=1e-15)  # was 1.0
    geo = math.exp(sum(math.log(x) for x in a) / 5)
    for eps in (1 - 1e-12, 1 + 1e-12):
        assert metrics.atkinson(a, eps) == pytest.approx(1 - geo / mean, rel=1e-9)


@pytest.mark.parametrize("s", [1e-300, 1e-20, 1e20, 1e300])
def test_smoothed_qalpha_at_any_loss_scale(s: float) -> None:
    """A_{s mu}(s f) = s A_mu(f); the eta bracket's absolute tolerance 1e-15 returned eta = max f at 1e-20."""
    p, f = [0.1, 0.2, 0.3, 0.15, 0.25], np.array([1.0, 3.0, 2.0, 2.0, 5.0])
    ref = agg.SmoothedQalpha(p, 0.5, 1e-3).value(f)
    # 002 Lemma 2 at scale one, independently: f_alpha = 3.9 (caps p/alpha, greedy), gap <= mu tau log 2
    assert 3.9 <= ref <= 3.9 + 1e-3 * 2 * math.log(2)
    assert agg.SmoothedQalpha(p, 0.5, 1e-3 * s).value(f * s) == pytest.approx(ref * s, rel=1e-12)


def test_qffl_exact_at_huge_losses_and_interpolation() -> None:
    from fairtheory.exact.qffl import solve_qffl

    A = np.array([1.5, -0.5])
    s = 1e100
    P = QuadraticProblem(s * np.stack([np.eye(2)] * 2), np.stack([A, -A]), p=[0.5, 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # overflow in the gradient norms leaked RuntimeWarnings
        r = solve_qffl(P, 1.0)
    assert r.value == pytest.approx((1.25 * s) ** 2 / 2, rel=1e-9)  # optimum w = 0: F = 1.25 s each
    L, w_true = _interpolating()
    r = solve_qffl(L, 1.0)  # was uncertified: grad_rel is a ratio of vanishing terms at a zero minimum
    np.testing.assert_allclose(r.argmin, w_true, atol=1e-8)
    assert r.certificate["max_loss"] <= 1e-20


@pytest.mark.parametrize("sw", [1e-50, 1e-8, 1e8, 1e50])
def test_model_scale_of_quadratic_centres(sw: float) -> None:
    """Centres +-sw A: optimum w = 0 with value sw^2 W (Clarabel failed for sw = 1e-8 and 1e-50; the max-min
    SDP, q-FFL and the smoothed certificate at 1e-8 or 1e8)."""
    A = np.array([1.5, -0.5])
    P = QuadraticProblem(np.stack([np.eye(2)] * 2), np.stack([sw * A, -sw * A]), p=[0.5, 0.5])
    want = sw * sw * 0.5 * float(A @ A)
    from fairtheory.exact.qffl import solve_qffl
    from fairtheory.exact.rcfl import maxmin_quadratic

    for r in (solve_afl(P), solve_rcfl(P, 0.7), maxmin_quadratic(P, CappedSimplex.simplex(2))):
        assert r.value == pytest.approx(want, rel=1e-7)
        assert np.max(np.abs(r.argmin)) <= 1e-6 * sw
    if sw in (1e-8, 1e8):  # q-FFL (q = 1: sum p F^2 / 2 with F = want each) and the smoothed problem
        assert solve_qffl(P, 1.0).value == pytest.approx(want * want / 2, rel=1e-7)
        mu = 0.1 * sw * sw
        sm = solve_smoothed_rcfl(P, 0.7, mu)  # 002 Lemma 2: f* <= min F^mu <= f* + mu tau log 2, tau = 1/0.7
        assert want * (1 - 1e-9) <= sm.value <= want + mu / 0.7 * math.log(2) + 1e-9 * want


def test_project_qp_radius_covers_the_interior_point() -> None:
    """The gap was a difference of two values of order one: -7e-16 at a point 1.8e-9 from the projection,
    so the certified radius sqrt(2 gap) was 0 (verify's peers.flgo.afl then failed)."""
    v = np.array([0.6689749, 0.04844579, 0.08208267, 0.11680867, 0.09427472, 0.01215695])
    S = CappedSimplex.simplex(6)
    r = capped.project_qp(S, v)
    assert r.certificate["gap"] >= 0
    assert np.linalg.norm(r.weights - _ref_project(v, np.ones(6))) <= math.sqrt(2 * r.certificate["gap"])


def test_smoothed_qalpha_threshold_beyond_float_resolution() -> None:
    """Losses 1e300 apart: the float spacing there (1e284) is far coarser than mu, no float eta solves the
    threshold equation; the weights of the tied clients came out c_i sigma(0) (sum 1.2)."""
    a = agg.SmoothedQalpha([0.2, 0.3, 0.5], 0.5, 0.1)
    w = a.weights([1e300, -1e300, -1e300])
    # caps c = p/alpha = (0.4, 0.6, 1.0): the top client takes its cap 0.4, the tied pair shares 0.6 in
    # proportion to their caps (same sigma): 0.6 * (0.6, 1.0)/1.6
    np.testing.assert_allclose(w, [0.4, 0.225, 0.375], rtol=1e-12)


def test_smoothed_qalpha_value_without_cancellation() -> None:
    """f = (0, 2^31, -4.3e16): A_mu = 0.6 * 2^31 up to e^{-1e17} (F is flat between the losses); the
    direct sum against eta* ~ -4e16 was 3.2 too large, and audit flagged the subgradient inequality."""
    a = agg.SmoothedQalpha([0.2, 0.3, 0.5], 0.5, 0.1)
    assert a.value([0.0, 2.0**31, -4.32278124e16]) == pytest.approx(0.6 * 2.0**31, rel=1e-15)
    rep = _audit(a, properties=("subgradient",), min_loss=-1e300, max_loss=1e300, max_examples=30)
    assert rep["subgradient"].status == "held"


@pytest.mark.parametrize("lo,hi", [pytest.param(-1e300, 1e300, marks=pytest.mark.slow), (0.0, 1e308),
                                   pytest.param(1e300, 1.7e308, marks=pytest.mark.slow)])
def test_audit_builtins_hold_over_extreme_ranges(lo: float, hi: float) -> None:
    """No false violation from the audit's own arithmetic (eta bracket overflow, derivative steps coarser
    than mu, client terms beyond the float range) for aggregators that satisfy every property."""
    p = np.array([0.2, 0.3, 0.5])
    for a in (agg.SmoothedQalpha(p, 0.5, 0.1), agg.TERM(p, 1.0), agg.fedavg(p), agg.cvar(3, 0.5)):
        rep = _audit(a, min_loss=lo, max_loss=hi, max_examples=20,
                     properties=("defined", "subgradient", "weights_nonnegative", "monotone", "convex", "separable_form"))
        assert rep.passed, rep.table()


def test_smoothed_qalpha_threshold_residual_resolved() -> None:
    """f = (0, 1, -3.7e27), caps (0.4, 0.6, 1): the two top caps fill the mass, A_mu = 0.6 up to e^{-1e28}.
    The threshold residual 1 + 1.6e-28 rounded to 1, leaving the far client a weight 1.6e-28 whose loss
    times it took 0.6 off the value (A_mu came out -1e-7)."""
    a = agg.SmoothedQalpha([0.2, 0.3, 0.5], 0.5, 0.1)
    f = [0.0, 1.0, -3.74109007e27]
    assert a.value(f) == pytest.approx(0.6, rel=1e-15)
    np.testing.assert_allclose(a.weights(f), [0.4, 0.6, 0.0], atol=1e-300)


def test_solve_aggregator_rescales_term_smoothed_and_qffl() -> None:
    """Non-set aggregators were solved as written: losses 1e-12 or 1e12 made Clarabel fail."""
    from fairtheory.exact.aggregate import solve_aggregator

    A = np.array([1.5, -0.5])
    for s in (1e-100, 1e-12, 1e12, 1e100):
        P = QuadraticProblem(s * np.stack([np.eye(2)] * 2), np.stack([A, -A]), p=[0.5, 0.5])
        f_opt = 1.25 * s  # every client's loss at the optimum w = 0
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert solve_aggregator(P, agg.TERM(P.p, 1.0 / s)).value == pytest.approx(f_opt, rel=1e-9)
            assert solve_aggregator(P, agg.QFFL(P.p, 1.0)).value == pytest.approx(f_opt**2 / 2, rel=1e-9)
            sm = solve_aggregator(P, agg.SmoothedQalpha(P.p, 0.7, 0.1 * s)).value
        assert f_opt <= sm <= f_opt + 0.1 * s / 0.7 * math.log(2) * (1 + 1e-9)  # 002 Lemma 2


def test_highs_banner_stays_off_the_console() -> None:
    """HiGHS printed its copyright banner (two lines, C-level stdout) on the first LP of a process."""
    import subprocess
    import sys

    code = ("from fairtheory.exact import capped\nfrom fairtheory.sets import CappedSimplex\n"
            "S = CappedSimplex([0.5, 0.4, 0.3])\n"
            "capped.support_lp(S, [1.0, 3.0, 2.0]); capped.project_qp(S, [1.0, 3.0, 2.0])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout == "" and "HiGHS" not in out.stderr
