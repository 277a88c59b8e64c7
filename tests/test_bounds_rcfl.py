"""Bounds of the rFedFair convergence results (fairtheory.bounds.rcfl) on hand-computed numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
from fairtheory.bounds import rcfl as B
from fairtheory.problems.quadratic import QuadraticProblem


def test_lemma_c1_L_hand_numbers() -> None:
    # (1 + (2^2 + 1)/0.5) * max(1/0.5, 1/1) = 11 * 2
    assert B.lemma_c1_L(1.0, 2.0, 0.5, [0.5, 1.0]) == pytest.approx(22.0, rel=1e-15)
    assert B.lemma_c1_L(0.0, 0.0, 1.0, 1.0) == pytest.approx(1.0, rel=1e-15)
    assert B.lemma_c1_L(0.25, 1.0, 0.1, 0.2) == pytest.approx((0.25 + 20.0) * 5.0, rel=1e-15)


@pytest.mark.parametrize("bad", [dict(L1=-1.0), dict(L2=float("inf")), dict(mu=0.0), dict(alpha=0.0),
                                 dict(alpha=[0.5, 1.5])])
def test_lemma_c1_L_validation(bad: dict) -> None:
    kw = dict(L1=1.0, L2=1.0, mu=1.0, alpha=0.5) | bad
    with pytest.raises((FairtheoryValueError, FairtheoryTypeError)):
        B.lemma_c1_L(**kw)


def test_lr_max_and_conditions() -> None:
    assert B.theorem1_lr_max(10.0, 1) == pytest.approx(1 / 400, rel=1e-15)
    assert B.theorem1_lr_max(10.0, 5) == pytest.approx(1 / 400, rel=1e-15)  # 1/(sqrt6*40) is larger
    assert B.theorem1_lr_max(1.0, 20) == pytest.approx(1 / (math.sqrt(6) * 19), rel=1e-15)
    for L, k in [(10.0, 1), (1.0, 20), (3.7, 7), (123.0, 10)]:
        b = B.theorem1_lr_max(L, k)
        assert B.theorem1_step_ok(L, b, k)
        assert not B.theorem1_step_ok(L, b * (1 + 1e-9), k)
    assert B.theorem2_lr_max(1.0, 5, 5) == pytest.approx(0.01, rel=1e-15)  # 1/(20*(3+2))
    assert B.theorem2_lr_max(1.0, 1, 1) == pytest.approx(1 / 100, rel=1e-15)  # 1/(20*5)
    assert B.theorem2_lr_max(1.0, 40, 100) == pytest.approx(1 / (math.sqrt(6) * 39), rel=1e-15)
    for L, k, K in [(1.0, 5, 5), (2.0, 10, 2), (1.0, 40, 100)]:
        b = B.theorem2_lr_max(L, k, K)
        assert B.theorem2_step_ok(L, b, k, K)
        assert not B.theorem2_step_ok(L, b * (1 + 1e-9), k, K)


def test_theorem1_terms_hand_numbers() -> None:
    kw = dict(dist0_sq=2.0, lr=0.01, T=12, kappa=5, L=1.0, rho2=0.5, mu=0.1, tau_alpha=1.5)
    t002 = B.theorem1_terms(**kw, version="002")  # T_N = 2
    assert t002["init"] == pytest.approx(4.0 / (0.01 * 3), rel=1e-14)
    assert t002["hetero"] == pytest.approx(26 * 1e-4 * 16 * 5 * 0.5, rel=1e-14)
    assert t002["smooth"] == pytest.approx(0.15, rel=1e-14)
    assert B.theorem1_bound(**kw, version="002") == pytest.approx(4 / 0.03 + 0.104 + 0.15, rel=1e-14)
    t000 = B.theorem1_terms(**kw, version="000")
    assert t000["init"] == pytest.approx(4.0 / (0.01 * 12), rel=1e-14)
    assert t000["hetero"] == pytest.approx(26 * 1e-4 * 16 * 0.5, rel=1e-14)
    assert B.theorem1_bound(**kw, version="000") == pytest.approx(4 / 0.12 + 0.0208 + 0.15, rel=1e-14)


def test_theorem2_terms_hand_numbers() -> None:
    kw = dict(dist0_sq=2.0, lr=0.01, T=12, kappa=5, L=1.0, rho2=0.5, mu=0.1, tau_alpha=1.5)
    t = B.theorem2_terms(K=4, **kw, version="002")
    assert t["sampling"] == pytest.approx(12 / 4 * 0.01 * 25 * 0.5, rel=1e-14)
    assert B.theorem2_bound(K=4, **kw, version="002") == pytest.approx(
        B.theorem1_bound(**kw, version="002") + 0.375, rel=1e-14)
    t0 = B.theorem2_terms(K=4, **kw, version="000")
    assert t0["sampling"] == pytest.approx(12 / 4 * 0.01 * 5 * 0.5, rel=1e-14)


def test_theorem_terms_validation() -> None:
    kw = dict(dist0_sq=2.0, lr=0.01, T=13, kappa=5, L=1.0, rho2=0.5, mu=0.1, tau_alpha=1.5)
    with pytest.raises(FairtheoryValueError, match="divisible"):
        B.theorem1_terms(**kw, version="002")
    assert B.theorem1_terms(**kw, version="000")["init"] == pytest.approx(4 / 0.13, rel=1e-14)
    with pytest.raises(FairtheoryValueError, match="version"):
        B.theorem1_terms(**kw, version="001")
    with pytest.raises(FairtheoryValueError, match="lr"):
        B.theorem1_terms(**(kw | dict(lr=0.0, T=12)))
    with pytest.raises(FairtheoryValueError, match="K"):
        B.theorem2_terms(K=0, **(kw | dict(T=12)))


def test_heterogeneity_rho2_hand_numbers() -> None:
    # f_1(w) = 0.5 w^2, f_2(w) = (w - 1)^2; at w = 0, eta = 0, alpha = 1, mu = 1:
    # f = (0, 1), f' = (0, -2), s = (sigma(0), sigma(1)).
    prob = QuadraticProblem(np.array([[[1.0]], [[2.0]]]), np.array([[0.0], [1.0]]), p=[0.5, 0.5])
    s1, s2 = 0.5, 1 / (1 + math.exp(-1.0))
    expected = 0.5 * (0.0 + (1 - s1) ** 2) + 0.5 * ((2 * s2) ** 2 + (1 - s2) ** 2)
    assert B.heterogeneity_rho2(prob, np.zeros(1), 0.0, 1.0, 1.0) == pytest.approx(expected, rel=1e-14)
    # alpha = 0.5 doubles s
    s1, s2 = 1.0, 2 / (1 + math.exp(-1.0))
    expected = 0.5 * (0.0 + (1 - s1) ** 2) + 0.5 * ((2 * s2) ** 2 + (1 - s2) ** 2)
    assert B.heterogeneity_rho2(prob, np.zeros(1), 0.0, 0.5, 1.0) == pytest.approx(expected, rel=1e-14)
