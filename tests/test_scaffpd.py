"""Scaff-PD / Scaff-PD-IA (001 Sec. 5, reconstructed): exactness, dual projections, backends, validation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
from fairtheory.aggregators import afl as afl_objective
from fairtheory.aggregators import cvar, integrated
from fairtheory.algorithms import scaffpd
from fairtheory.algorithms.base import run
from fairtheory.backend import to_numpy
from fairtheory.instances.baselines import certified_distance, safe_steps, scaffpd_convergence
from fairtheory.problems.quadratic import random_quadratic
from fairtheory.sets import CappedSimplex, IntegratedSet


def _problem(seed: int = 0, n: int = 5, d: int = 3):
    return random_quadratic(n, d, rng=np.random.default_rng(seed), mu=1.0, L=2.0, spread=2.0, offset=1.0)


def _run(P, aggregator, rounds, rng, **hyper):
    st, _ = run(scaffpd.make(P, aggregator=aggregator, **hyper), rounds, rng=rng, record_every=rounds,
                record_losses=False)
    return st


def test_scaffpd_ia_reaches_exact_saddle_point_phi_positive():
    """Acceptance: distance < 1e-6 to the saddle point of problem (8) with phi = 0.3 > 0."""
    from fairtheory.exact.relative import solve_integrated_minimax

    P = _problem(0)
    A = CappedSimplex.cvar(P.n, 0.5)
    I = IntegratedSet(A, A, 0.3)
    mu_eff = (1.0 - 0.3 * 2.0) / (1.0 - 0.3)
    ex = solve_integrated_minimax(P, I)
    st = _run(P, I, 1500, np.random.default_rng(0), **safe_steps(P, 0.3))
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
    h = safe_steps(P)
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
    h = safe_steps(P, 0.2)
    st = _run(P, I, 400, None, mu_accel=0.3, **h)
    tau = h["kappa"] * h["lr"] * h["server_lr"] * st.rho
    assert math.isclose(tau * st.sigma, h["kappa"] * h["lr"] * h["dual_lr"], rel_tol=1e-9)  # tau_r sigma_r constant
    assert st.rho < 0.2 and 0 < st.theta < 1
    ex = solve_integrated_minimax(P, I)
    assert np.linalg.norm(np.asarray(st.w) - ex.argmin) < 1e-3


def test_single_local_step_is_the_apd_primal_gradient_step():
    P = _problem(3)
    I = IntegratedSet(CappedSimplex.cvar(P.n, 0.5), CappedSimplex.simplex(P.n), 0.25)
    alg = scaffpd.make(P, aggregator=I, kappa=1, lr=0.1, server_lr=0.7, dual_lr=0.05)
    st1 = alg.step(alg.init(np.ones(P.d)), None)
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
    alg = scaffpd.make(P, aggregator=I, mu_accel=0.2, **safe_steps(P, 0.3), **noise)
    ref, _ = run(alg, 30, rng=np.random.default_rng(7))
    st, _ = run(alg, 30, rng=np.random.default_rng(7), w0=to_backend(np.zeros(P.d)))
    assert type(st.w).__module__.split(".")[0] == ("torch" if xp_name == "torch" else "numpy")
    assert np.max(np.abs(to_numpy(st.w) - np.asarray(ref.w))) < 1e-10
    assert np.max(np.abs(to_numpy(st.lam) - np.asarray(ref.lam))) < 1e-10


def test_aggregator_forms_give_the_same_run():
    """A raw IntegratedSet, the integrated(...) aggregator, and for phi = 0 a CappedSimplex, a cvar(...)
    aggregator and the default (the simplex) are one and the same dual set."""
    P = _problem(6, n=5, d=2)
    A = CappedSimplex.cvar(P.n, 0.5)
    h = safe_steps(P, 0.25)
    s1 = _run(P, IntegratedSet(A, A, 0.25), 50, None, **h)
    s2 = _run(P, integrated(A, A, 0.25), 50, None, **h)
    assert np.array_equal(np.asarray(s1.w), np.asarray(s2.w))
    h0 = safe_steps(P)
    s3, s4 = _run(P, A, 50, None, **h0), _run(P, cvar(P.n, 0.5), 50, None, **h0)
    assert np.array_equal(np.asarray(s3.w), np.asarray(s4.w))
    s5, s6 = _run(P, None, 50, None, **h0), _run(P, afl_objective(P.n), 50, None, **h0)
    assert np.array_equal(np.asarray(s5.w), np.asarray(s6.w))


def test_init_and_step_use_the_same_set():
    """The dual pair starts in (A, B) and stays there; a starting point outside the bound set is refused."""
    P = _problem(7, n=5, d=2)
    A, B = CappedSimplex.cvar(P.n, 0.5), CappedSimplex.cvar(P.n, 0.8)
    alg = scaffpd.make(P, aggregator=integrated(A, B, 0.3), kappa=2, lr=0.05, dual_lr=50.0)
    assert alg.hyper["aggregator"].set == IntegratedSet(A, B, 0.3)
    st = alg.init()
    for _ in range(10):
        st = alg.step(st, None)
        assert A.contains(np.asarray(st.a)) and B.contains(np.asarray(st.b))
        assert np.max(np.abs(np.asarray(st.lam) - (np.asarray(st.a) - 0.3 * np.asarray(st.b)) / 0.7)) <= 1e-15
    with pytest.raises(FairtheoryValueError, match="a0"):
        alg.init(a0=np.eye(P.n)[0])
    with pytest.raises(FairtheoryValueError, match="b0"):
        alg.init(b0=np.eye(P.n)[0])


def test_instance_pinned():
    """base.scaffpd.converges, one instance: Scaff-PD over C(1/2) reaches the exact value and saddle point."""
    P = _problem(8, n=4, d=2)
    value, exact, x = scaffpd_convergence(problem=P, A=CappedSimplex.cvar(P.n, 0.5), rounds=1500)
    assert abs(value - exact) <= 1e-6 * max(1.0, abs(exact))
    assert x["certified_distance"] <= 1e-6
    assert x["distance"] <= 1e-6 + x["exact_w_uncertainty"]


def test_validation():
    P = _problem(5)
    A = CappedSimplex.simplex(P.n)
    good = dict(aggregator=A, kappa=2, lr=0.1, server_lr=1.0, dual_lr=0.1)
    for key, bad in [("kappa", 0), ("kappa", 1.5), ("lr", 0.0), ("server_lr", -1.0), ("dual_lr", 0.0), ("theta", -0.1),
                     ("mu_accel", -1.0), ("grad_noise", -1.0), ("loss_noise", float("nan"))]:
        with pytest.raises((FairtheoryValueError, FairtheoryTypeError), match=key):
            scaffpd.make(P, **{**good, key: bad})
    with pytest.raises(FairtheoryTypeError, match="aggregator"):
        scaffpd.make(P, **{**good, "aggregator": "simplex"})
    with pytest.raises(FairtheoryValueError, match="n = "):
        scaffpd.make(P, **{**good, "aggregator": CappedSimplex.simplex(P.n + 1)})
    noisy = scaffpd.make(P, **good, grad_noise=0.1)
    with pytest.raises(FairtheoryTypeError, match="rng"):
        noisy.step(noisy.init(), 0)
    alg = scaffpd.make(P, **good)
    with pytest.raises(FairtheoryTypeError, match="scaffpd.State"):
        alg.step(object(), None)
    with pytest.raises(FairtheoryValueError, match="a0"):
        alg.init(a0=np.full(P.n, 0.5))
    with pytest.raises(FairtheoryValueError, match="w0"):
        alg.init(w0=np.zeros(P.d + 1))
