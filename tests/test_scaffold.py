"""Scaffold (option II): exact optimum despite heterogeneity, control invariant, backends, validation."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
from fairtheory.algorithms import scaffold
from fairtheory.backend import to_numpy
from fairtheory.problems.quadratic import QuadraticProblem, random_quadratic


def _problem(seed=0, n=5, d=3, p=None):
    return random_quadratic(n, d, rng=np.random.default_rng(seed), mu=0.5, L=3.0, spread=3.0, p=p)


def _closed_form(P):
    return np.linalg.solve(np.einsum("i,ijk->jk", P.p, P.H), P.p @ P.r)


@pytest.mark.parametrize("J", [1, 10])
def test_scaffold_reaches_exact_optimum(J):
    from fairtheory.exact.rcfl import solve_fedavg

    P = _problem(0, p=np.random.default_rng(9).dirichlet(np.ones(5)))
    ex = solve_fedavg(P)
    assert np.linalg.norm(ex.argmin - _closed_form(P)) < 1e-9
    st = scaffold.init(P)
    rng = np.random.default_rng(0)
    for _ in range(400):
        st = scaffold.step(st, P, rng, J=J, eta_l=0.5 / (P.smoothness() * J))
    assert np.linalg.norm(np.asarray(st.w) - ex.argmin) < 1e-8
    # the controls converge to the client gradients at the optimum and keep c = sum p_i c_i
    assert np.max(np.abs(np.asarray(st.ci) - P.grads(ex.argmin))) < 1e-6
    assert np.max(np.abs(np.asarray(st.c) - P.p @ np.asarray(st.ci))) < 1e-12


def test_local_gd_without_controls_drifts_but_scaffold_does_not():
    P = _problem(1)
    J, eta = 10, 0.05
    w = np.zeros(P.d)
    for _ in range(400):
        Y = np.broadcast_to(w, (P.n, P.d))
        for _j in range(J):
            Y = Y - eta * P.grads_each(Y)
        w = P.p @ Y
    assert np.linalg.norm(w - _closed_form(P)) > 1e-3  # client drift: FedAvg with J > 1 is biased


def test_partial_participation_converges_and_keeps_invariant():
    P = _problem(2, n=6)
    st = scaffold.init(P, warm_start=True)
    rng = np.random.default_rng(0)
    for _ in range(600):
        st = scaffold.step(st, P, rng, J=5, eta_l=0.03, K=3)
        assert np.max(np.abs(np.asarray(st.c) - P.p @ np.asarray(st.ci))) < 1e-10
    assert np.linalg.norm(np.asarray(st.w) - _closed_form(P)) < 1e-8


def test_numpy_torch_agree(xp_name, to_backend):
    P = _problem(3)
    h = dict(J=4, eta_l=0.05, eta_g=0.9, K=3, grad_noise=0.2)
    ref, _ = scaffold.run(P, 25, rng=np.random.default_rng(3), **h)
    st = scaffold.init(P, w0=to_backend(np.zeros(P.d)))
    rng = np.random.default_rng(3)
    for _ in range(25):
        st = scaffold.step(st, P, rng, **h)
    for name in ("w", "c", "ci"):
        assert np.max(np.abs(to_numpy(getattr(st, name)) - np.asarray(getattr(ref, name)))) < 1e-10


def test_validation():
    P = _problem(4)
    st = scaffold.init(P)
    rng = np.random.default_rng(0)
    good = dict(J=2, eta_l=0.1)
    for key, bad in [("J", 0), ("eta_l", 0.0), ("eta_g", -1.0), ("K", 0), ("grad_noise", -0.5)]:
        with pytest.raises((FairtheoryValueError, FairtheoryTypeError), match=key):
            scaffold.step(st, P, rng, **{**good, key: bad})
    with pytest.raises(FairtheoryTypeError, match="J"):
        scaffold.step(st, P, rng, J=2.0, eta_l=0.1)
    assert isinstance(P, QuadraticProblem)
