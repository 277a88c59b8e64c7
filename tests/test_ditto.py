"""Ditto (Li et al. 2021): the personalised optimum of quadratic clients in closed form, certified exactly,
and the algorithm's round against hand-computed steps."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from fairtheory.algorithms import ditto
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.problems import random_logistic, random_quadratic
from fairtheory.problems.quadratic import QuadraticProblem


def test_closed_form_optimum_by_hand() -> None:
    # F(v) = 0.5 * 2 (v - 3)^2, lam = 1, w = 0: argmin (v - 3)^2 + 0.5 v^2 -> 2(v - 3) + v = 0 -> v = 2
    P = QuadraticProblem([[[2.0]]], [[3.0]])
    assert ditto.personal_optimum(P, [0.0], 1.0).tolist() == [[2.0]]
    assert ditto.personal_optimum_exact(P, [0.0], 1.0) == [[Fraction(2)]]
    # lam = 0 with definite H: the local optimum c; lam -> large: close to w
    assert ditto.personal_optimum(P, [0.0], 0.0).tolist() == [[3.0]]
    assert abs(ditto.personal_optimum(P, [0.0], 1e12)[0, 0]) < 1e-11


def test_closed_form_matches_exact_rationals_and_stationarity() -> None:
    P = random_quadratic(4, 3, rng=np.random.default_rng(0), offset=0.5)
    w = np.array([0.25, -1.5, 2.0])
    V = ditto.personal_optimum(P, w, 0.3)
    E = ditto.personal_optimum_exact(P, w, 0.3)  # asserts grad h_k(v) == 0 exactly
    assert max(abs(float(E[k][j]) - V[k, j]) for k in range(4) for j in range(3)) <= 1e-13
    grad = np.einsum("nij,nj->ni", P.H, V - P.c) + 0.3 * (V - w)
    assert np.max(np.abs(grad)) <= 1e-12
    # it minimises h_k: any perturbation increases the personal objective
    h = ditto.personal_objective(P, V, w, 0.3)
    for d in np.random.default_rng(1).normal(size=(5, 4, 3)) * 1e-3:
        assert np.all(ditto.personal_objective(P, V + d, w, 0.3) > h)


def test_personal_iteration_converges_at_the_contraction_rate() -> None:
    P = random_quadratic(3, 2, rng=np.random.default_rng(2), offset=0.5)
    w, lam, lr = np.array([1.0, -1.0]), 0.7, 0.1
    vstar = ditto.personal_optimum(P, w, lam)
    rho = max(float(np.max(np.abs(1 - lr * (lam + np.linalg.eigvalsh(H))))) for H in P.H)
    V0 = np.zeros((3, 2))
    for s in (1, 5, 40):
        Vs = ditto.personal_steps(P, V0, w, lr=lr, lam=lam, steps=s)
        assert np.max(np.linalg.norm(Vs - vstar, axis=1)) <= rho ** s * np.max(np.linalg.norm(V0 - vstar, axis=1)) + 1e-14


def test_one_round_by_hand() -> None:
    # two 1-d clients F_k = 0.5 (v - c_k)^2, p = (0.5, 0.5), lr = 0.5, lam = 1, one step each
    P = QuadraticProblem(np.ones((2, 1, 1)), [[2.0], [-4.0]])
    alg = ditto.make(P, lr=0.5, lam=1.0)
    s = alg.step(alg.init([0.0], V0=[[1.0], [1.0]]), None)
    # global: w_k = 0 - 0.5 (0 - c_k) = c_k / 2 -> (1, -2); w+ = 0.5 (1 - 2) = -0.5
    assert s.w.tolist() == [-0.5]
    # personal: v_k = 1 - 0.5 ((1 - c_k) + 1 (1 - 0)) -> 1 - 0.5 (0) = 1 ; 1 - 0.5 (5 + 1) = -2
    assert s.V.tolist() == [[1.0], [-2.0]]
    assert s.comms == 1 and s.steps == 1


def test_partial_participation_updates_only_drawn_personal_models() -> None:
    P = random_quadratic(6, 2, rng=np.random.default_rng(3))
    alg = ditto.make(P, lr=0.1, lam=0.5, K=2)
    s0 = alg.init()
    s1 = alg.step(s0, np.random.default_rng(0))
    drawn = np.unique(np.random.default_rng(0).choice(6, size=2, p=P.p))
    changed = np.flatnonzero(np.any(s1.V != s0.V, axis=1))
    assert set(changed.tolist()) <= set(drawn.tolist()) and changed.size >= 1


def test_validation() -> None:
    P = random_quadratic(3, 2, rng=np.random.default_rng(0))
    with pytest.raises(FairtheoryValueError, match="lam"):
        ditto.make(P, lr=0.1, lam=-1.0)
    with pytest.raises(FairtheoryValueError, match="s"):
        ditto.make(P, lr=0.1, lam=1.0, s=0)
    with pytest.raises(FairtheoryTypeError, match="QuadraticProblem"):
        ditto.personal_optimum(random_logistic(3, 2, 4, rng=np.random.default_rng(0)), np.zeros(2), 1.0)
    singular = QuadraticProblem(np.zeros((1, 2, 2)), np.zeros((1, 2)))
    with pytest.raises(FairtheoryValueError, match="positive definite"):
        ditto.personal_optimum(singular, np.zeros(2), 0.0)
    with pytest.raises(FairtheoryValueError, match="V0"):
        ditto.make(P, lr=0.1, lam=1.0).init(None, V0=np.zeros((2, 2)))
