"""Closed-form discovery (fairtheory.proofs.fit.fit_closed_form)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.proofs.fit import fit_closed_form


def _grid() -> list[dict[str, Fraction]]:
    return [{"a": Fraction(a, 4), "b": Fraction(b)} for a, b in itertools.product(range(1, 7), range(1, 6))]


def _target(a, b):
    return (3 * a + 1) / (2 + a * b + b)


def test_recovers_a_known_rational_function_from_exact_samples() -> None:
    pts = _grid()
    vals = [float(_target(p["a"], p["b"])) for p in pts]
    res = fit_closed_form(pts, vals, names=["a", "b"], max_degree=2)
    assert res.found
    a, b = sp.symbols("a b", real=True)
    assert sp.simplify(res.expression - (3 * a + 1) / (2 + a * b + b)) == 0
    assert res.heldout_error <= 1e-12 and res.n_heldout >= 2
    assert res.degrees == (1, 2)


def test_exact_comparison_at_heldout_points() -> None:
    pts = _grid()
    vals = [float(_target(p["a"], p["b"])) for p in pts]
    seen = []

    def truth(point, value):
        seen.append(point)
        return value == _target(point["a"], point["b"])

    res = fit_closed_form(pts, vals, names=["a", "b"], max_degree=2, exact=truth)
    assert res.exact_agree is True and len(res.exact) == res.n_heldout == len(seen)
    assert all(isinstance(v, Fraction) for _, v, _ in res.exact)

    res2 = fit_closed_form(pts, vals, names=["a", "b"], max_degree=2, exact=lambda p, v: v == 2 * _target(p["a"], p["b"]))
    assert res2.found and res2.exact_agree is False


@pytest.mark.slow
def test_rejects_noise_and_non_rational_data() -> None:
    rng = np.random.default_rng(0)
    pts = _grid()
    noisy = [float(_target(p["a"], p["b"])) * (1 + 1e-3 * rng.normal()) for p in pts]
    res = fit_closed_form(pts, noisy, names=["a", "b"], max_degree=2)
    assert not res.found and res.expression is None and res.heldout_error > 1e-5
    res = fit_closed_form(pts, [float(np.exp(float(p["a"])) + float(p["b"])) for p in pts], names=["a", "b"], max_degree=2)
    assert not res.found


def test_heldout_points_decide() -> None:
    # a degree-1 fit through 2 training points always interpolates; held-out points refute a wrong law
    x = np.linspace(1, 4, 8)[:, None]
    res = fit_closed_form(x, np.sqrt(x[:, 0]), names=["x"], max_degree=1, holdout=0.5)
    assert not res.found and res.heldout_error > 1e-5
    res = fit_closed_form(x, 2 * x[:, 0] + 1, names=["x"], max_degree=1, holdout=0.5)
    assert res.found and sp.simplify(res.expression - (2 * sp.Symbol("x", real=True) + 1)) == 0


@pytest.mark.parametrize("kw,err", [
    ({"params": [[1.0]], "values": [1.0], "names": ["x"]}, FairtheoryValueError),          # too few points
    ({"params": "abc", "values": [1.0], "names": ["x"]}, FairtheoryTypeError),
    ({"params": [{"y": 1}] * 8, "values": [1.0] * 8, "names": ["x"]}, FairtheoryValueError),
    ({"params": [[1.0]] * 8, "values": [1.0] * 7, "names": ["x"]}, FairtheoryValueError),
    ({"params": [[1.0]] * 8, "values": [np.nan] * 8, "names": ["x"]}, FairtheoryValueError),
    ({"params": [[1.0]] * 8, "values": [1.0] * 8, "names": ["x"], "max_degree": 9}, FairtheoryValueError),
    ({"params": [[1.0]] * 8, "values": [1.0] * 8, "names": ["x"], "holdout": 1.0}, FairtheoryValueError),
    ({"params": [[1.0, 2.0]] * 8, "values": [1.0] * 8, "names": ["x", "x"]}, FairtheoryValueError),
])
def test_validation(kw, err) -> None:
    with pytest.raises(err):
        fit_closed_form(**kw)
