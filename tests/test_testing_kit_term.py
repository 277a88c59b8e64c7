"""The public property kit applied to a "new objective" (TERM), as a user would, and its limits."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairtheory._validation import FairtheoryValueError
from fairtheory.objectives.tilted import term
from fairtheory.testing import (
    check_between_mean_and_max,
    check_convex_in_losses,
    check_monotone,
    check_positively_homogeneous,
    check_translation_equivariant,
    loss_vectors,
    probability_vectors,
)

N = 6
P = np.array([0.1, 0.2, 0.3, 0.15, 0.15, 0.1])


def agg(f: np.ndarray) -> float:
    return term(f, P, 2.0)


@given(loss_vectors(n=N, max_value=50.0), loss_vectors(n=N, max_value=50.0), st.floats(0.0, 1.0))
def test_term_is_convex_in_losses(f, g, t):
    check_convex_in_losses(agg, f, g, t)


@given(loss_vectors(n=N, max_value=50.0), loss_vectors(n=N, max_value=50.0))
def test_term_is_monotone(f, inc):
    check_monotone(agg, f, inc)


@given(loss_vectors(n=N, max_value=50.0), st.floats(-10.0, 10.0))
def test_term_is_translation_equivariant(f, c):
    check_translation_equivariant(agg, f, c)


@given(st.integers(1, 8).flatmap(lambda n: st.tuples(loss_vectors(n=n, max_value=50.0),
                                                      probability_vectors(n=n))))
def test_term_between_mean_and_max(inst):
    f, p = inst
    check_between_mean_and_max(lambda x: term(x, p, 3.0), f, p)


def test_kit_catches_that_term_is_not_positively_homogeneous():
    f = np.array([0.0, 1.0, 2.0, 0.5, 0.25, 3.0])
    with pytest.raises(AssertionError):
        check_positively_homogeneous(agg, f, 3.0)


def test_term_limits_and_values():
    f = np.array([1.0, 4.0, 2.0])
    p = np.array([0.5, 0.25, 0.25])
    assert term(f, p, 1e-9) == pytest.approx(p @ f, rel=1e-7)
    assert term(f, p, 1e4) == pytest.approx(4.0, abs=1e-3)
    assert term(f, p, 1.0) == pytest.approx(np.log(p @ np.exp(f)), rel=1e-14)
    assert term(np.array([1e300, 0.0]), np.array([0.5, 0.5]), 1.0) == pytest.approx(1e300, rel=1e-14)


@pytest.mark.parametrize("bad", [dict(t=0.0), dict(t=-1.0), dict(t=float("nan")), dict(p=[0.5, 0.6, 0.1])])
def test_term_validation(bad):
    kw = dict(losses=[1.0, 2.0, 3.0], p=[0.2, 0.3, 0.5], t=1.0) | bad
    with pytest.raises(FairtheoryValueError, match="t|p"):
        term(**kw)


@pytest.mark.parametrize("tiny", [1e-300, 1e-20, 1e-16, 1e-12])
def test_term_tiny_weight_on_the_maximum(tiny):
    """Regression (issue 34, found by the 1,000-example profile): f = (0, 0, 12), t = 3 and a tiny weight on the
    maximum gave A(f) = -0.01455 < p-mean, because 1 + sum p_i expm1(.) cancelled to one ulp.  Reference: mpmath
    at 50 digits on the same float inputs."""
    import mpmath

    from fairtheory.aggregators import TERM

    f = np.array([0.0, 0.0, 12.0])
    p = np.array([(1.0 - tiny) / 2, (1.0 - tiny) / 2, tiny])
    with mpmath.workdps(50):
        ref = float(mpmath.log(sum(mpmath.mpf(pi) * mpmath.exp(3 * mpmath.mpf(fi)) for pi, fi in zip(p, f, strict=True))) / 3)
    for a in (term(f, p, 3.0), TERM(p, 3.0).value(f)):
        assert abs(a - ref) <= 1e-14 * 12, (a, ref)
        check_between_mean_and_max(lambda x, a=a: a, f, p)
