"""Inequality measures of fairtheory.metrics (001 Sec. 3.1, App. B, Table 1, Fig. 4): by hand."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory import metrics as M
from fairtheory._validation import FairtheoryValueError
from fairtheory.objectives.relative import relative_index
from fairtheory.sets import CappedSimplex


def test_gini_by_hand():
    assert M.gini([1, 1, 1]) == 0.0
    assert M.gini([0, 0, 1]) == pytest.approx(2 / 3)
    mad = sum(abs(a - b) for a in (1, 2, 3) for b in (1, 2, 3))
    assert M.gini([1, 2, 3]) == pytest.approx(mad / (2 * 9 * 2))
    assert M.gini([5.0]) == 0.0
    rng = np.random.default_rng(0)
    for _ in range(20):
        x = rng.uniform(0, 3, size=int(rng.integers(1, 30)))
        ref = np.abs(x[:, None] - x[None, :]).sum() / (2 * x.size**2 * x.mean())
        assert M.gini(x) == pytest.approx(ref, abs=1e-12)
        assert M.gini(7.0 * x) == pytest.approx(M.gini(x), abs=1e-12)


def test_lorenz_and_transformed():
    x, y = M.lorenz_curve([3, 1, 2])
    assert np.allclose(x, [0, 1 / 3, 2 / 3, 1]) and np.allclose(y, [0, 1 / 6, 1 / 2, 1])
    x, y = M.lorenz_curve([2, 2])
    assert np.allclose(y, x)
    rng = np.random.default_rng(1)
    for _ in range(10):
        a = rng.uniform(0, 5, size=int(rng.integers(2, 40)))
        x, y = M.lorenz_curve(a)
        # Gini = 1 - 2 * area under the (piecewise-linear) Lorenz curve
        assert M.gini(a) == pytest.approx(1 - 2 * np.trapezoid(y, x), abs=1e-12)
        xt, t = M.transformed_lorenz_curve(a)
        assert t[0] == 1.0 and t[-1] == pytest.approx(1.0) and np.all(t <= 1 + 1e-15)
        assert np.trapezoid(1 - t, xt) == pytest.approx(M.gini(a), abs=1e-12)


def test_ratios_by_hand():
    a = np.arange(1.0, 11.0)
    assert M.ratio_2020(a) == pytest.approx((9 + 10) / (1 + 2))
    assert M.palma_ratio(a) == pytest.approx(10 / (1 + 2 + 3 + 4))
    assert M.relative_unfairness(a, 0.1, 0.4) == pytest.approx(4 * M.palma_ratio(a))
    assert M.ratio_2020([2, 2, 2]) == pytest.approx(1.0)
    S = CappedSimplex.cvar(10, 0.2)
    assert M.ratio_2020(a) == relative_index(a, S, S)


def test_atkinson_by_hand():
    a = np.array([1.0, 2.0, 3.0])
    assert M.atkinson(a) == pytest.approx(1 - 1 / 2)
    assert M.atkinson(a, 0.0) == pytest.approx(0.0, abs=1e-15)
    assert M.atkinson(a, 1.0) == pytest.approx(1 - 6 ** (1 / 3) / 2)
    assert M.atkinson(a, 2.0) == pytest.approx(1 - (3 / (1 + 1 / 2 + 1 / 3)) / 2)
    assert M.atkinson([4, 4, 4], 3.0) == pytest.approx(0.0, abs=1e-15)
    # infinite aversion <-> index with A = {uniform}, B = Delta: mean/min = 1/(1 - A_inf)
    u, S = CappedSimplex.singleton(np.full(3, 1 / 3)), CappedSimplex.simplex(3)
    assert relative_index(a, u, S) == pytest.approx(1 / (1 - M.atkinson(a)))
    with pytest.raises(FairtheoryValueError, match="epsilon"):
        M.atkinson(a, -1.0)
    with pytest.raises(FairtheoryValueError, match="> 0"):
        M.atkinson([0.0, 1.0], 1.0)


def test_jain_by_hand():
    assert M.jain([1, 1, 1]) == 1.0
    assert M.jain([1, 0, 0]) == pytest.approx(1 / 3)
    assert M.jain([1, 2, 3]) == pytest.approx(36 / (3 * 14))
    assert M.jain([1, 2, 3]) == pytest.approx(M.angle_cosine([1, 2, 3]) ** 2)


def test_validation():
    for fn in (M.gini, M.jain, M.ratio_2020, M.palma_ratio, M.atkinson, M.lorenz_curve):
        with pytest.raises(FairtheoryValueError):
            fn([1.0, -1.0])
        with pytest.raises(FairtheoryValueError):
            fn([])
    with pytest.raises(FairtheoryValueError):
        M.ratio_2020([0.0, 0.0, 0.0, 0.0, 1.0])  # bottom mean 0: index undefined
    with pytest.raises(FairtheoryValueError):
        M.relative_unfairness([1.0, 2.0], 0.0, 0.5)
