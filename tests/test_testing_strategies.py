"""fairtheory.testing: strategies draw valid objects, hit their edge cases, validate their arguments;
the property kit passes good aggregators and catches broken ones."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from fairtheory._validation import (
    FairtheoryTypeError,
    FairtheoryValueError,
    check_alpha,
    check_probability_vector,
)
from fairtheory.sets import CappedSimplex, IntegratedSet
from fairtheory.testing import (
    capped_simplices,
    check_between_mean_and_max,
    check_convex_in_losses,
    check_monotone,
    check_positively_homogeneous,
    check_translation_equivariant,
    integrated_sets,
    loss_vectors,
    probability_vectors,
    qalpha_instances,
)


def draws(strategy, count=150):
    """Collect ``count`` examples (generation phase only, reproducible)."""
    out = []

    @settings(max_examples=count, database=None, derandomize=True, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), deadline=None)
    @given(strategy)
    def collect(x):
        out.append(x)

    collect()
    return out


# --------------------------------------------------------------------------- validity
@given(probability_vectors())
def test_probability_vectors_valid(p):
    q = check_probability_vector(p)
    assert 1 <= q.size <= 20
    assert np.all((q == 0) | (q >= np.finfo(float).tiny))  # zero or a normal float


@given(probability_vectors(n=7, allow_zeros=False))
def test_probability_vectors_positive(p):
    assert p.shape == (7,)
    assert np.all(p > 0)
    check_probability_vector(p)


def test_probability_vectors_edge_cases_occur():
    ps = draws(probability_vectors(min_n=3, max_n=6))
    assert any(np.any(p == 0) for p in ps)
    assert any(np.max(p) == 1.0 for p in ps)  # one-hot
    assert any(p.max() / p[p > 0].min() >= 1e6 for p in ps)  # extreme ratios
    assert any(np.allclose(p, 1.0 / p.size, rtol=0, atol=0) for p in ps)  # uniform


@given(loss_vectors(min_value=-5.0, max_value=3.0))
def test_loss_vectors_in_range(f):
    assert np.all(np.isfinite(f))
    assert np.all((f >= -5.0) & (f <= 3.0))
    assert 1 <= f.size <= 20


def test_loss_vectors_edge_cases_occur():
    fs = draws(loss_vectors(min_n=4, max_n=8))
    assert any(np.unique(f).size < f.size for f in fs)  # ties
    assert any(np.unique(f).size == 1 for f in fs)  # constant vectors
    assert any(np.any(f == 1e6) for f in fs)  # huge
    assert any(np.any((f > 0) & (f <= 1e-12)) for f in fs)  # tiny
    no_ties = draws(loss_vectors(n=5, ties=False, extreme=False, max_value=1.0))
    assert all(f.shape == (5,) for f in no_ties)


@given(qalpha_instances())
def test_qalpha_instances_valid(inst):
    p, alpha, f = inst
    q = check_probability_vector(p)
    a = check_alpha(alpha, q)
    assert np.array_equal(a, np.broadcast_to(alpha, q.shape))  # admissible as drawn, nothing clipped
    assert f.shape == p.shape and np.all(f >= 0)


@given(qalpha_instances(scalar_alpha=True, n=4))
def test_qalpha_instances_scalar(inst):
    p, alpha, f = inst
    assert isinstance(alpha, float)
    assert p.max() <= alpha <= 1.0
    assert p.shape == f.shape == (4,)


def test_qalpha_instances_hit_both_ends():
    insts = draws(qalpha_instances(min_n=2, max_n=5))
    assert any(np.all(a == 1.0) for _, a, _ in insts)  # FedAvg end
    assert any(np.any((a == p) & (p > 0)) for p, a, _ in insts)  # AFL end for some client


@given(capped_simplices())
def test_capped_simplices_valid(S):
    assert isinstance(S, CappedSimplex)
    assert S.caps.sum() >= 1 - 1e-12 * S.n
    v = np.arange(S.n, dtype=float)
    assert S.contains(S.argmax(v))


@given(integrated_sets())
def test_integrated_sets_valid(I):
    assert isinstance(I, IntegratedSet)
    assert 0.0 <= I.phi <= 0.99
    lam = I.argmax(np.linspace(0, 1, I.n))
    assert abs(lam.sum() - 1.0) <= 1e-9


def test_set_kinds_occur():
    sets = draws(capped_simplices(n=4), count=80)
    assert any(np.all(S.caps == 1.0) for S in sets)
    assert any(abs(S.caps.sum() - 1.0) <= 1e-12 for S in sets)  # singletons
    isets = draws(integrated_sets(n=3), count=80)
    assert any(I.phi == 0.0 for I in isets)


# --------------------------------------------------------------------------- argument validation
@pytest.mark.parametrize("factory", [probability_vectors, loss_vectors, qalpha_instances, capped_simplices,
                                     integrated_sets])
def test_size_argument_validation(factory):
    with pytest.raises(FairtheoryValueError, match="n must be >= 1"):
        factory(n=0)
    with pytest.raises(FairtheoryTypeError, match="n must be an integer"):
        factory(n=2.5)
    with pytest.raises(FairtheoryTypeError, match="n must be an integer"):
        factory(n=True)
    with pytest.raises(FairtheoryValueError, match="min_n must be <= max_n"):
        factory(min_n=5, max_n=2)
    with pytest.raises(FairtheoryValueError, match="min_n must be >= 1"):
        factory(min_n=0)
    with pytest.raises(TypeError):
        factory(3)  # keyword-only


def test_other_argument_validation():
    with pytest.raises(FairtheoryValueError, match="min_value must be <= max_value"):
        loss_vectors(min_value=2.0, max_value=1.0)
    with pytest.raises(FairtheoryValueError, match="max_value"):
        loss_vectors(max_value=np.inf)
    with pytest.raises(FairtheoryValueError, match="finite"):
        loss_vectors(min_value=-1e308, max_value=1e308)
    with pytest.raises(FairtheoryTypeError, match="ties"):
        loss_vectors(ties="yes")
    with pytest.raises(FairtheoryTypeError, match="extreme"):
        loss_vectors(extreme=1)
    with pytest.raises(FairtheoryTypeError, match="allow_zeros"):
        probability_vectors(allow_zeros=None)
    with pytest.raises(FairtheoryTypeError, match="scalar_alpha"):
        qalpha_instances(scalar_alpha="no")


# --------------------------------------------------------------------------- property kit
def _run(test_fn, count=300):
    """Run a @given function; generation only (a failure is raised as found, without shrinking)."""
    settings(max_examples=count, database=None, derandomize=True, deadline=None, phases=[Phase.generate],
             suppress_health_check=list(HealthCheck))(test_fn)()


def test_property_kit_passes_coherent_aggregators():
    @given(qalpha_instances(max_n=8), loss_vectors(n=8, max_value=1e3), st.floats(0, 1), st.floats(-10, 10))
    def good(inst, g8, t, c):
        p, a, f = inst
        g = g8[: p.size]

        def agg(x):
            return CappedSimplex.qalpha(p, a).support(x)

        check_monotone(agg, f, g)
        check_translation_equivariant(agg, f, c)
        check_positively_homogeneous(agg, f, abs(c))
        check_convex_in_losses(agg, f, g, t)
        check_between_mean_and_max(agg, f, p)

    _run(good, 60)


def test_property_kit_catches_non_convex_aggregator():
    @given(loss_vectors(n=3, max_value=10.0), loss_vectors(n=3, max_value=10.0), st.floats(0, 1))
    def broken(f, g, t):
        check_convex_in_losses(np.min, f, g, t)  # min is concave, not convex

    with pytest.raises(AssertionError, match="not convex"):
        _run(broken)


def test_property_kit_catches_non_monotone_aggregator():
    @given(loss_vectors(n=3, max_value=10.0), loss_vectors(n=3, max_value=10.0))
    def broken(f, d):
        check_monotone(lambda x: np.max(x) - np.min(x), f, d)  # the range is not monotone

    with pytest.raises(AssertionError, match="not monotone"):
        _run(broken)


def test_property_kit_catches_squared_losses():
    @given(loss_vectors(n=3, min_value=0.5, max_value=10.0), st.floats(0.5, 5.0))
    def broken(f, c):
        agg = lambda x: float(np.mean(x**2))  # noqa: E731
        check_translation_equivariant(agg, f, c)

    with pytest.raises(AssertionError, match="not translation equivariant"):
        _run(broken)

    with pytest.raises(AssertionError, match="outside"):
        check_between_mean_and_max(lambda x: float(np.max(x)) + 1.0, [0.0, 1.0], [0.5, 0.5])
    with pytest.raises(AssertionError, match="non-finite"):
        check_monotone(lambda x: np.nan, [0.0, 1.0], [1.0, 1.0])


def test_property_kit_validation():
    agg = np.max
    with pytest.raises(FairtheoryValueError, match="increase must have shape"):
        check_monotone(agg, [0.0, 1.0], [1.0])
    with pytest.raises(FairtheoryValueError, match="t must lie in"):
        check_convex_in_losses(agg, [0.0], [1.0], 1.5)
    with pytest.raises(FairtheoryValueError, match="scale must lie in"):
        check_positively_homogeneous(agg, [0.0], -1.0)
    with pytest.raises(FairtheoryValueError, match="f and g must have the same shape"):
        check_convex_in_losses(agg, [0.0], [1.0, 2.0], 0.5)
    with pytest.raises(FairtheoryValueError, match="p must have shape"):
        check_between_mean_and_max(agg, [0.0, 1.0], [1.0])
