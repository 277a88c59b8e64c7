"""Penguins problem of 001 Sec. 4.3 (reconstructed): data shape, values and the exact expansion."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory._validation import FairtheoryValueError
from fairtheory.problems.penguins import penguins_data, penguins_problem


def test_data_shape_and_values():
    d = penguins_data()
    assert d.X.shape == (3, 10, 3) and d.y.shape == (3, 10) and d.rows.shape == (3, 10)
    assert np.all(d.X[:, :, 0] == 1.0)
    # first Adelie row of the package data: bill 39.1 mm, depth 18.7 mm, flipper 181 mm
    assert d.y[0, 0] == 39.1 and d.X[0, 0, 1] == 18.7 and d.X[0, 0, 2] == 181.0
    # row 3 (Adelie) is all-missing and skipped
    assert d.rows[0].tolist() == [0, 1, 2, 4, 5, 6, 7, 8, 9, 10]
    assert d.rows[1, 0] == 276 and d.rows[2, 0] == 152
    assert np.all(np.isfinite(d.X)) and np.all(np.isfinite(d.y))


def test_complete_all_columns_variant():
    d = penguins_data(complete="all")
    assert d.rows[0].tolist() == [0, 1, 2, 4, 5, 6, 7, 12, 13, 14]
    with pytest.raises(FairtheoryValueError, match="complete"):
        penguins_data(complete="some")
    with pytest.raises(FairtheoryValueError, match="m must"):
        penguins_data(m=1000)


def test_quadratic_expansion_is_exact_mse():
    d = penguins_data()
    P = penguins_problem()
    assert (P.n, P.d) == (3, 3)
    rng = np.random.default_rng(0)
    for _ in range(10):
        w = np.array([rng.normal(0, 20), rng.normal(0, 2), rng.normal(0, 0.3)])
        mse = np.mean((np.einsum("nmi,i->nm", d.X, w) - d.y) ** 2, axis=1)
        assert np.allclose(P.losses(w), mse, rtol=1e-9, atol=1e-9)
    # c_i are the per-species least-squares fits: zero gradient there, loss = residual MSE
    for i in range(3):
        g = 2 / 10 * d.X[i].T @ (d.X[i] @ P.c[i] - d.y[i])
        assert np.allclose(g, 0.0, atol=1e-8)
    assert np.all(P.e > 0)
