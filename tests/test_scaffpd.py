"""Scaff-PD / Scaff-PD-IA (001 Sec. 5, reconstructed): exactness, dual projections, backends, validation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
from fairtheory.algorithms import scaffpd
from fairtheory.backend import to_numpy
from fairtheory.problems.quadratic import random_quadratic
from fairtheory.sets import CappedSimplex, IntegratedSet
from verify.claims.baselines_dro import _safe_steps, certified_distance


def _problem(seed: int = 0, n: int = 5, d: int = 3):
    return random_quadratic(n, d, rng=np.random.default_rng(seed), mu=1.0, L=2.0, spread=2.0, offset=1.0)


def _run(P, I, rounds, rng, **hyper):
    st = scaffpd.init(P, I)
    for _ in range(rounds):
        st = scaffpd.step(st, P, rng, iset=I, **hyper)
    return st


def test_scaffpd_ia_reaches_exact_saddle_point_phi_positive():
    """Acceptance: distance < 1e-6 to the saddle point of problem (8) with phi = 0.3 > 0."""
    from fairtheory.exact.relative import solve_integrated_minimax

    P = _problem(0)
    A = CappedSimplex.cvar(P.n, 0.5)
    I = IntegratedSet(A, A, 0.3)
    mu_eff = (1.0 - 0.3 * 2.0) / (1.0 - 0.3)
    ex = solve_integrated_minimax(P, I)
    st = _run(P, I, 1500, np.random.default_rng(0), **_safe_steps(P, 0.3))
    w = np.asarray(st.w)
    # rigorous closed-form duality-gap bound on ||w - w*|| (no solver involved)
    assert certified_distance(P, I, w, st.a, st.b, mu_eff) < 1e-6
    # and agreement with the exact SDP solution within its own certified accuracy
    unc = certified_distance(P, I, ex.argmin, ex.extra["a"], ex.extra["b"], mu_eff)
    assert np.linalg.norm(w - ex.argmin) < 1e-6 + unc
    assert abs(I.support(P.losses(w)) - ex.value) <= 1e-8 * max(1.0, abs(ex.value))
    lam = np.asarray(st.lam)
    assert abs(lam.sum() - 1.0) < 1e-12
    assert lam.min() < 0  # the integrated set really uses negative weights here


def test_scaffpd_phi_zero_matches_plain_dro_and_capped_simplex_input():
    from fairtheory.exact.rcfl import solve_afl

    P = _problem(1, n=4, d=2)
    A = CappedSimplex.simplex(P.n)
    h = _safe_steps(P)
    s1 = _run(P, A, 1500, np.random.default_rng(0), **h)
    s2 = _run(P, IntegratedSet(A, A, 0.0), 1500, np.random.default_rng(0), **h)
    assert np.array_equal(np.asarray(s1.w), np.asarray(s2.w))
    ex = solve_afl(P)
    assert certified_distance(P, IntegratedSet(A, A, 0.0), np.asarray(s1.w), s1.a, s1.b, 1.0) < 1e-6
    assert np.linalg.norm(np.asarray(s1.w) - ex.argmin) < 1e-6


def test_accelerated_schedule_converges_and_keeps_tau_sigma():
    from fairtheory.exact.relative import solve_integrated_minimax

    P = _problem(2)
    A = CappedSimplex.cvar(P.n, 0.5)
    I = IntegratedSet(A, A, 0.2)
    h = _safe_steps(P, 0.2)
    st = scaffpd.init(P, I)
    rng = np.random.default_rng(0)
    for _ in range(400):
        st = scaffpd.step(st, P, rng, iset=I, mu_accel=0.3, **h)
    tau = h["J"] * h["eta_l"] * h["eta_g"] * st.rho
    assert math.isclose(tau * st.sigma, h["J"] * h["eta_l"] * h["sigma"], rel_tol=1e-9)  # tau_r sigma_r constant
    assert st.rho < 0.2 and 0 < st.theta < 1
    ex = solve_integrated_minimax(P, I)
    assert np.linalg.norm(np.asarray(st.w) - ex.argmin) < 1e-3


def test_single_local_step_is_the_apd_primal_gradient_step():
    P = _problem(3)
    I = IntegratedSet(CappedSimplex.cvar(P.n, 0.5), CappedSimplex.simplex(P.n), 0.25)
    st0 = scaffpd.init(P, I, w0=np.ones(P.d))
    st1 = scaffpd.step(st0, P, np.random.default_rng(0), iset=I, J=1, eta_l=0.1, eta_g=0.7, sigma=0.05)
    lam = np.asarray(st1.lam)
    expected = np.ones(P.d) - 0.1 * 0.7 * (lam @ P.grads(np.ones(P.d)))
    assert np.allclose(np.asarray(st1.w), expected, atol=1e-14, rtol=0)
    assert abs(lam.sum() - 1.0) < 1e-12


@pytest.mark.parametrize("seed", range(6))
def test_dual_step_matches_cvxpy_qp(seed):
    """The separated projections solve the joint (a, b) dual QP."""
    import cvxpy as cp

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    A = CappedSimplex(rng.uniform(0.2, 1.0, n) * (1.2 / n) + 1.0 / n)
    B = CappedSimplex.cvar(n, float(rng.uniform(0.3, 1.0)))
    phi = float(rng.uniform(0.0, 0.9))
    I = IntegratedSet(A, B, phi)
    a_r, b_r = A.project(rng.uniform(size=n)), B.project(rng.uniform(size=n))
    s = rng.normal(scale=3.0, size=n)
    sigma = float(rng.uniform(0.05, 2.0))
    a_new, b_new = scaffpd.dual_step(I, a_r, b_r, s, sigma)
    a, b = cp.Variable(n), cp.Variable(n)
    obj = ((a - phi * b) / (1 - phi)) @ s - (cp.sum_squares(a - a_r) + cp.sum_squares(b - b_r)) / (2 * sigma)
    prob = cp.Problem(cp.Maximize(obj), A.cvxpy_constraints(a) + B.cvxpy_constraints(b))
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    assert prob.status == "optimal"
    assert np.max(np.abs(a_new - a.value)) < 1e-6
    assert np.max(np.abs(b_new - b.value)) < 1e-6
    val = ((a_new - phi * b_new) / (1 - phi)) @ s - (np.sum((a_new - a_r) ** 2) + np.sum((b_new - b_r) ** 2)) / (2 * sigma)
    assert val >= prob.value - 1e-8 * max(1.0, abs(prob.value))


@pytest.mark.parametrize("mode", ["deterministic", "noisy"])
def test_numpy_torch_agree(xp_name, to_backend, mode):
    P = _problem(4)
    I = IntegratedSet(CappedSimplex.cvar(P.n, 0.5), CappedSimplex.cvar(P.n, 0.5), 0.3)
    noise = {"grad_noise": 0.5, "loss_noise": 0.1} if mode == "noisy" else {}
    h = dict(_safe_steps(P, 0.3), mu_accel=0.2, **noise)
    ref = _run(P, I, 30, np.random.default_rng(7), **h)
    st = scaffpd.init(P, I, w0=to_backend(np.zeros(P.d)))
    rng = np.random.default_rng(7)
    for _ in range(30):
        st = scaffpd.step(st, P, rng, iset=I, **h)
    assert type(st.w).__module__.split(".")[0] == ("torch" if xp_name == "torch" else "numpy")
    assert np.max(np.abs(to_numpy(st.w) - np.asarray(ref.w))) < 1e-10
    assert np.max(np.abs(to_numpy(st.lam) - np.asarray(ref.lam))) < 1e-10


def test_validation():
    P = _problem(5)
    A = CappedSimplex.simplex(P.n)
    st = scaffpd.init(P, A)
    rng = np.random.default_rng(0)
    good = dict(iset=A, J=2, eta_l=0.1, eta_g=1.0, sigma=0.1)
    for key, bad in [("J", 0), ("J", 1.5), ("eta_l", 0.0), ("eta_g", -1.0), ("sigma", 0.0), ("theta", -0.1),
                     ("mu_accel", -1.0), ("grad_noise", -1.0), ("loss_noise", float("nan"))]:
        with pytest.raises((FairtheoryValueError, FairtheoryTypeError), match=key):
            scaffpd.step(st, P, rng, **{**good, key: bad})
    with pytest.raises(FairtheoryTypeError, match="iset"):
        scaffpd.step(st, P, rng, **{**good, "iset": "simplex"})
    with pytest.raises(FairtheoryValueError, match="iset"):
        scaffpd.step(st, P, rng, **{**good, "iset": CappedSimplex.simplex(P.n + 1)})
    with pytest.raises(FairtheoryTypeError, match="rng"):
        scaffpd.step(st, P, 0, **good)
    with pytest.raises(FairtheoryValueError, match="a0"):
        scaffpd.init(P, A, a0=np.full(P.n, 0.5))
    with pytest.raises(FairtheoryValueError, match="w0"):
        scaffpd.init(P, A, w0=np.zeros(P.d + 1))
