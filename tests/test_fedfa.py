"""FedFa's aggregation weights (Huang et al. 2020) against hand-computed values, their limits, and a round."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairtheory.algorithms import fedfa
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.problems import random_logistic, random_quadratic


def test_weights_by_hand() -> None:
    # acc (0.2, 0.6): shares (1/4, 3/4) -> a = (2, log2(4/3)); f (1, 3): shares (1/4, 3/4) -> b = (log2(4/3), 2)
    a = np.array([2.0, math.log2(4 / 3)])
    b = np.array([math.log2(4 / 3), 2.0])
    for beta in (0.0, 0.3, 1.0):
        want = (1 - beta) * a / a.sum() + beta * b / b.sum()
        assert np.max(np.abs(fedfa.weights([0.2, 0.6], [1, 3], beta=beta) - want)) <= 1e-15
    # FLGo's constants inside the logarithms
    a2 = -np.log2(np.array([0.25, 0.75]) + 1e-6)
    b2 = -np.log2(1 - np.array([0.25, 0.75]) + 1e-5)
    want = 0.5 * a2 / a2.sum() + 0.5 * b2 / b2.sum()
    assert np.max(np.abs(fedfa.weights([0.2, 0.6], [1, 3], eps_acc=1e-6, eps_freq=1e-5) - want)) <= 1e-15


def test_weights_favour_low_accuracy_and_sum_to_one() -> None:
    rng = np.random.default_rng(0)
    for _ in range(50):
        m = int(rng.integers(2, 8))
        acc, f = rng.uniform(0.05, 1, size=m), rng.integers(1, 9, size=m)
        p = fedfa.weights(acc, np.ones(m, dtype=int), beta=0.0)
        assert abs(p.sum() - 1) <= 1e-14 and np.all(p >= 0)
        order = np.argsort(acc)
        assert np.all(np.diff(p[order]) <= 1e-15)  # lower accuracy, larger weight
        assert abs(fedfa.weights(acc, f).sum() - 1) <= 1e-14


def test_limits_where_the_formula_is_undefined() -> None:
    assert fedfa.weights([0.7], [3]).tolist() == [1.0]                  # one participant
    assert fedfa.weights([0.0, 0.0], [1, 1]).tolist() == [0.5, 0.5]     # all accuracies zero: symmetric
    # one zero accuracy: its information is infinite and takes the accuracy part
    p = fedfa.weights([0.0, 0.5], [1, 1], beta=0.0)
    assert p.tolist() == [1.0, 0.0]


def test_validation() -> None:
    with pytest.raises(FairtheoryValueError, match="acc"):
        fedfa.weights([-0.1, 0.5], [1, 1])
    with pytest.raises(FairtheoryValueError, match="freq"):
        fedfa.weights([0.1, 0.5], [0, 0])
    with pytest.raises(FairtheoryValueError, match="beta"):
        fedfa.weights([0.1, 0.5], [1, 1], beta=1.5)
    with pytest.raises(FairtheoryTypeError, match="accuracy"):
        fedfa.make(random_quadratic(3, 2, rng=np.random.default_rng(0)), lr=0.1)


def test_round_aggregates_with_the_weights() -> None:
    P = random_logistic(4, 3, 10, rng=np.random.default_rng(1), l2=0.05)
    alg = fedfa.make(P, lr=0.1, kappa=1)
    s0 = alg.init()
    s1 = alg.step(s0, None)
    p = fedfa.weights(P.accuracies(s0.w), np.ones(4))
    W = s0.w[None, :] - 0.1 * P.grads(s0.w)
    assert np.max(np.abs(s1.w - p @ W)) <= 1e-15 and s1.freq.tolist() == [1, 1, 1, 1]
    assert np.max(np.abs(s1.p - p)) == 0.0
    # server momentum: m = gamma m + (1 - gamma)(w_agg - w), w+ = w + m
    alg2 = fedfa.make(P, lr=0.1, gamma=0.5)
    t1 = alg2.step(alg2.init(), None)
    assert np.max(np.abs(t1.w - (s0.w + 0.5 * (p @ W - s0.w)))) <= 1e-15
