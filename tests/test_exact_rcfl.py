"""Exact RC-FL solvers agree with each other, with closed forms and with their certificates."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
from fairtheory.exact.rcfl import (
    maxmin_quadratic,
    smoothed_objective,
    solve_afl,
    solve_fedavg,
    solve_rcfl,
    solve_smoothed_rcfl,
)
from fairtheory.exact.result import SolverError
from fairtheory.problems import random_least_squares, random_logistic, random_quadratic
from fairtheory.sets import CappedSimplex


def rel(a: float, b: float) -> float:
    return abs(a - b) / max(1.0, abs(b))


@pytest.fixture(scope="module")
def quad():
    return random_quadratic(8, 3, rng=np.random.default_rng(0), spread=2.0, offset=1.0,
                            p=np.random.default_rng(1).dirichlet(np.ones(8)))


@pytest.fixture(scope="module")
def logi():
    return random_logistic(8, 3, 25, rng=np.random.default_rng(2), heterogeneity=1.5)


@pytest.mark.parametrize("alpha", [1.0, 0.6, 0.3, "p", "mixed"])
def test_maxmin_agrees_with_minmax_on_quadratics(quad, alpha):
    a = quad.p if alpha == "p" else (np.clip(np.linspace(0.2, 1, quad.n), quad.p, 1) if alpha == "mixed"
                                     else np.maximum(alpha, quad.p))
    mm = maxmin_quadratic(quad, CappedSimplex.qalpha(quad.p, a))
    r = solve_rcfl(quad, a)
    assert rel(mm.value, r.value) <= 1e-6
    assert np.linalg.norm(mm.argmin - r.argmin) <= 1e-4 * max(1, np.linalg.norm(r.argmin))
    assert mm.certificate["gap"] <= 1e-6 and r.certificate["gap"] <= 1e-6
    S = CappedSimplex.qalpha(quad.p, a)
    assert S.contains(r.weights, tol=1e-9) and S.contains(mm.weights, tol=1e-9)
    # value is the closed-form Q_alpha objective at w*, eta* its Lemma-1 minimiser
    f = quad.losses(r.argmin)
    assert r.value == S.support(f)
    eta = r.extra["eta"]
    assert rel(eta + S.caps @ np.maximum(f - eta, 0), r.value) <= 1e-12


def test_rcfl_limits_on_quadratics(quad):
    fed, afl = solve_fedavg(quad), solve_afl(quad)
    assert rel(solve_rcfl(quad, 1.0).value, fed.value) <= 1e-8
    assert rel(solve_rcfl(quad, quad.p).value, afl.value) <= 1e-8
    H = np.einsum("n,nij->ij", quad.p, quad.H)
    w_cf = np.linalg.solve(H, quad.p @ quad.r)
    assert np.linalg.norm(fed.argmin - w_cf) <= 1e-10 * max(1, np.linalg.norm(w_cf))
    assert rel(afl.value, maxmin_quadratic(quad, CappedSimplex.simplex(quad.n)).value) <= 1e-6


def test_rcfl_monotone_in_alpha(quad):
    vals = [solve_rcfl(quad, np.maximum(a, quad.p)).value for a in (1.0, 0.7, 0.4, 0.1)]
    assert all(b >= a - 1e-9 for a, b in zip(vals, vals[1:], strict=False))


def test_logistic_solvers_agree(logi):
    fed, afl = solve_fedavg(logi), solve_afl(logi)
    assert fed.certificate["grad_norm"] <= 1e-10
    r1, rp = solve_rcfl(logi, 1.0), solve_rcfl(logi, logi.p)
    assert rel(r1.value, fed.value) <= 1e-8
    assert rel(rp.value, afl.value) <= 1e-8
    r = solve_rcfl(logi, 0.4)
    assert fed.value - 1e-9 <= r.value <= afl.value + 1e-9
    assert r.certificate["gap"] <= 1e-8


def test_regularised_logistic_shared_term():
    P = random_logistic(6, 3, 20, rng=np.random.default_rng(3), l2=0.5)
    r = solve_rcfl(P, 0.5)
    f = P.losses(r.argmin)
    S = CappedSimplex.qalpha(P.p, 0.5)
    assert r.value == S.support(f)
    assert abs(r.extra["eta_solver"] - r.extra["eta"]) <= 1e-5 * max(1, abs(r.extra["eta"])) or \
        rel(r.extra["eta_solver"] + S.caps @ np.maximum(f - r.extra["eta_solver"], 0), r.value) <= 1e-7
    sm = solve_smoothed_rcfl(P, 0.5, 0.05)
    assert sm.certificate["grad_norm"] <= 1e-9


@pytest.mark.parametrize("mu", [0.1, 0.01])
def test_smoothed_solver(logi, mu):
    alpha = 0.4
    sm = solve_smoothed_rcfl(logi, alpha, mu)
    nt = solve_smoothed_rcfl(logi, alpha, mu, method="newton")
    assert sm.certificate["grad_norm"] <= 1e-9 and nt.certificate["grad_norm"] <= 1e-9
    assert rel(sm.value, nt.value) <= 1e-12
    assert np.linalg.norm(sm.argmin - nt.argmin) <= 1e-7
    F, g, H = smoothed_objective(logi, sm.argmin, sm.extra["eta"], alpha, mu)
    assert F == pytest.approx(sm.value, rel=1e-14)
    assert np.linalg.norm(g) <= 1e-9
    assert np.linalg.eigvalsh(H).min() >= -1e-10
    # 002 Lemma 2 between two independent solves: f* <= F^mu* <= f* + mu tau log 2
    fstar = solve_rcfl(logi, alpha).value
    tau = float(np.sum(logi.p / alpha))
    assert fstar - 1e-8 <= sm.value <= fstar + mu * tau * np.log(2) + 1e-8


def test_smoothed_objective_derivatives(logi):
    rng = np.random.default_rng(5)
    w, eta, mu, alpha = rng.normal(size=logi.d), 0.6, 0.05, 0.5
    F, g, H = smoothed_objective(logi, w, eta, alpha, mu)
    x = np.concatenate([w, [eta]])
    h = 1e-6

    def fun(z):
        return smoothed_objective(logi, z[:-1], z[-1], alpha, mu)

    E = np.eye(x.size)
    fd_g = np.array([(fun(x + h * e)[0] - fun(x - h * e)[0]) / (2 * h) for e in E])
    fd_H = np.stack([(fun(x + h * e)[1] - fun(x - h * e)[1]) / (2 * h) for e in E], axis=1)
    assert np.max(np.abs(fd_g - g)) <= 1e-7
    assert np.max(np.abs(fd_H - H)) <= 1e-5 * max(1, np.abs(H).max())


def test_least_squares_routes_agree():
    P = random_least_squares(6, 3, 8, rng=np.random.default_rng(4))
    for a in (1.0, 0.5, 0.2):
        a = np.maximum(a, P.p)
        mm = maxmin_quadratic(P, CappedSimplex.qalpha(P.p, a))
        r = solve_rcfl(P, a)
        assert rel(mm.value, r.value) <= 1e-6


def test_validation(quad):
    with pytest.raises(FairtheoryValueError):
        solve_rcfl(quad, 1.5)
    with pytest.raises(FairtheoryValueError):
        solve_rcfl(quad, quad.p / 2)
    with pytest.raises(FairtheoryValueError):
        solve_smoothed_rcfl(quad, 1.0, 0.0)
    with pytest.raises(FairtheoryTypeError):
        maxmin_quadratic(quad, np.ones(quad.n))
    with pytest.raises(FairtheoryTypeError):
        maxmin_quadratic(random_logistic(3, 2, 10, rng=np.random.default_rng(0)), CappedSimplex.simplex(3))
    with pytest.raises(FairtheoryTypeError):
        solve_fedavg("not a problem")
    with pytest.raises(FairtheoryTypeError):
        solve_smoothed_rcfl(quad, 1.0, 0.1, method="bfgs")


def test_uncertified_solution_raises(quad, monkeypatch):
    """A wrong multiplier (e.g. from an inaccurate solve) must fail the duality-gap certificate."""
    import fairtheory.exact.rcfl as mod

    monkeypatch.setattr(mod, "_clean_weights", lambda lam, S: S.project(np.eye(S.n)[0]))
    monkeypatch.setattr(mod, "_kkt_polish", lambda problem, S, w, lam: (w, lam))
    with pytest.raises(SolverError, match="uncertified"):
        solve_rcfl(quad, np.maximum(0.3, quad.p))
