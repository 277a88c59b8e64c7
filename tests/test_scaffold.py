"""Scaffold (option II): exact optimum despite heterogeneity, control invariant, backends, validation."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
from fairtheory.algorithms import scaffold
from fairtheory.algorithms.base import run
from fairtheory.backend import to_numpy
from fairtheory.instances.baselines import fedavg_closed_form, scaffold_convergence
from fairtheory.problems.quadratic import QuadraticProblem, random_quadratic


def _problem(seed=0, n=5, d=3, p=None):
    return random_quadratic(n, d, rng=np.random.default_rng(seed), mu=0.5, L=3.0, spread=3.0, p=p)


@pytest.mark.parametrize("kappa", [1, 10])
def test_scaffold_reaches_exact_optimum(kappa):
    from fairtheory.exact.rcfl import solve_fedavg

    P = _problem(0, p=np.random.default_rng(9).dirichlet(np.ones(5)))
    ex = solve_fedavg(P)
    assert np.linalg.norm(ex.argmin - fedavg_closed_form(P)) < 1e-9
    st, _ = run(scaffold.make(P, kappa=kappa, lr=0.5 / (P.smoothness() * kappa)), 400, record_every=400,
                record_losses=False)
    assert np.linalg.norm(np.asarray(st.w) - ex.argmin) < 1e-8
    # the controls converge to the client gradients at the optimum and keep c = sum p_i c_i
    assert np.max(np.abs(np.asarray(st.ci) - P.grads(ex.argmin))) < 1e-6
    assert np.max(np.abs(np.asarray(st.c) - P.p @ np.asarray(st.ci))) < 1e-12


def test_local_gd_without_controls_drifts_but_scaffold_does_not():
    P = _problem(1)
    _, zero, x = scaffold_convergence(problem=P, rounds=400, kappa=10)
    assert x["local_gd_distance"] > 1e-3  # client drift: FedAvg with kappa > 1 is biased
    assert zero == 0.0


def test_instance_pinned():
    """base.scaffold.converges, one instance: ||w_R - w*|| <= 1e-6 with K = 3 draws and uniform p."""
    P = _problem(4, n=6, d=3)
    Pu = QuadraticProblem(P.H, P.c, P.e)
    dist, zero, x = scaffold_convergence(problem=Pu, rounds=300, kappa=10, K=3, seed=1)
    assert dist <= 1e-6 and zero == 0.0
    assert x["exact_vs_closed_form"] < 1e-9


def test_partial_participation_converges_and_keeps_invariant():
    P = _problem(2, n=6)
    alg = scaffold.make(P, kappa=5, lr=0.03, K=3)
    st = alg.init(warm_start=True)
    rng = np.random.default_rng(0)
    for _ in range(600):
        st = alg.step(st, rng)
        assert np.max(np.abs(np.asarray(st.c) - P.p @ np.asarray(st.ci))) < 1e-10
    assert np.linalg.norm(np.asarray(st.w) - fedavg_closed_form(P)) < 1e-8


def test_partial_participation_round_by_hand():
    """One round with K draws: only the drawn clients (without duplicates) refresh c_i; the model moves by
    the plain mean over the draw (duplicates count)."""
    P = _problem(3, n=5, d=2)
    kappa, eta_l, K = 3, 0.05, 4
    alg = scaffold.make(P, kappa=kappa, lr=eta_l, server_lr=0.8, K=K)
    st0 = alg.init(np.ones(2), warm_start=True)
    st = alg.step(st0, np.random.default_rng(6))
    draws = np.random.default_rng(6).choice(P.n, size=K, replace=True, p=P.p)
    x, c, ci = np.ones(2), np.asarray(st0.c), np.asarray(st0.ci)
    Y, ci_new = {}, ci.copy()
    for i in set(draws.tolist()):  # reference: loop over the drawn clients (test only)
        y = x.copy()
        for _ in range(kappa):
            y = y - eta_l * (P.grads(y)[i] - ci[i] + c)
        Y[i] = y
        ci_new[i] = ci[i] - c + (x - y) / (kappa * eta_l)
    w_ref = x + 0.8 * np.mean([Y[i] - x for i in draws], axis=0)
    assert np.max(np.abs(np.asarray(st.w) - w_ref)) <= 1e-13
    assert np.max(np.abs(np.asarray(st.ci) - ci_new)) <= 1e-12
    assert np.max(np.abs(np.asarray(st.c) - P.p @ np.asarray(st.ci))) <= 1e-12


def test_numpy_torch_agree(xp_name, to_backend):
    P = _problem(3)
    alg = scaffold.make(P, kappa=4, lr=0.05, server_lr=0.9, K=3, grad_noise=0.2)
    ref, _ = run(alg, 25, rng=np.random.default_rng(3))
    st, _ = run(alg, 25, rng=np.random.default_rng(3), w0=to_backend(np.zeros(P.d)))
    for name in ("w", "c", "ci"):
        assert np.max(np.abs(to_numpy(getattr(st, name)) - np.asarray(getattr(ref, name)))) < 1e-10


def test_validation():
    P = _problem(4)
    good = dict(kappa=2, lr=0.1)
    for key, bad in [("kappa", 0), ("lr", 0.0), ("server_lr", -1.0), ("K", 0), ("grad_noise", -0.5), ("kappa", 2.0)]:
        with pytest.raises((FairtheoryValueError, FairtheoryTypeError), match=key):
            scaffold.make(P, **{**good, key: bad})
    alg = scaffold.make(P, **good)
    with pytest.raises(FairtheoryTypeError, match="scaffold.State"):
        alg.step(object(), None)
    with pytest.raises(FairtheoryTypeError, match="rng"):
        scaffold.make(P, K=2, **good).step(alg.init(), None)
    with pytest.raises(FairtheoryValueError, match="w0"):
        alg.init(np.zeros(P.d + 1))
