"""Power-of-choice selection (Cho, Wang, Joshi): the deterministic rule given the candidate draw."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory.algorithms import power_of_choice as poc
from fairtheory.errors import FairtheoryValueError
from fairtheory.problems import random_quadratic
from fairtheory.problems.quadratic import QuadraticProblem


def test_select_by_hand_and_ties() -> None:
    assert poc.select([0, 2, 5, 7], [1.0, 3.0, 3.0, 0.5], 2).tolist() == [2, 5]
    assert poc.select([0, 2, 5, 7], [1.0, 3.0, 3.0, 0.5], 1).tolist() == [2]   # tie: smaller index
    assert poc.select([4], [0.0], 3).tolist() == [4]                          # m > |A|: all candidates
    assert poc.is_valid_selection([5], [0, 2, 5, 7], [1.0, 3.0, 3.0, 0.5], 1)  # any tie order is valid
    assert not poc.is_valid_selection([0], [0, 2, 5, 7], [1.0, 3.0, 3.0, 0.5], 1)
    assert not poc.is_valid_selection([1], [0, 2], [1.0, 3.0], 1)             # not a candidate
    assert not poc.is_valid_selection([2, 2], [0, 2], [1.0, 3.0], 2)


def test_candidates_are_distinct_and_avoid_zero_weight_clients() -> None:
    rng = np.random.default_rng(0)
    p = np.array([0.5, 0.0, 0.25, 0.25])
    for _ in range(50):
        A = poc.candidates(rng, p, 3)
        assert A.tolist() == [0, 2, 3]
    with pytest.raises(FairtheoryValueError, match="d"):
        poc.candidates(rng, p, 4)


def test_round_trains_the_highest_loss_candidates() -> None:
    # losses at w = 0: 0.5 c_k^2 -> (0.5, 2, 4.5, 8); with d = n the two largest, clients 2 and 3
    P = QuadraticProblem(np.ones((4, 1, 1)), [[1.0], [2.0], [3.0], [4.0]])
    alg = poc.make(P, lr=0.5, K=2, candidates=4)
    s = alg.step(alg.init([0.0]), np.random.default_rng(0))
    assert s.selected == (2, 3)
    assert s.w.tolist() == [(1.5 + 2.0) / 2]  # one step: w_k = 0.5 c_k, averaged with equal weights


def test_round_matches_the_rule_given_the_draw() -> None:
    P = random_quadratic(8, 3, rng=np.random.default_rng(1))
    alg = poc.make(P, lr=0.1, K=3, candidates=5, kappa=2)
    s0 = alg.init()
    s1 = alg.step(s0, np.random.default_rng(7))
    A = poc.candidates(np.random.default_rng(7), P.p, 5)
    S = np.sort(poc.select(A, P.losses(s0.w)[A], 3))
    assert s1.selected == tuple(S.tolist())
    W = np.tile(s0.w, (3, 1))
    for _ in range(2):
        W = W - 0.1 * P.grads_each(W, clients=S)
    assert np.max(np.abs(s1.w - W.mean(axis=0))) <= 1e-15


def test_validation() -> None:
    P = random_quadratic(4, 2, rng=np.random.default_rng(0))
    with pytest.raises(FairtheoryValueError, match="K"):
        poc.make(P, lr=0.1, K=3, candidates=2)
    with pytest.raises(FairtheoryValueError, match="candidates"):
        poc.make(P, lr=0.1, K=1, candidates=5)
    with pytest.raises(FairtheoryValueError, match="nan"):
        poc.select([0, 1], [np.nan, 1.0], 1)
