"""The q-FFL claims: their instance functions on fixed instances, and the claims themselves (quick mode)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import verify.claims.qffl  # noqa: F401  (registers the claims)
from fairtheory.exact.qffl import solve_qffl
from fairtheory.instances import qffl as inst
from fairtheory.metrics import angle_cosine, variance
from verify.core import REGISTRY, Context


def test_lemma8_fd_matches_implicit_function_derivative():
    P = inst.random_convex_instance(np.random.default_rng(3), 5, 3)
    fd, zero, ex = inst.lemma8(problem=P, q=2.0)
    assert zero == 0.0 and ex["polish_grad"] < 1e-10
    assert abs(fd - ex["ift"]) <= 1e-3 * max(1e-3, abs(ex["ift"]))


def test_lemmas_6_7_on_fixed_instance():
    P = inst.random_convex_instance(np.random.default_rng(11), 6, 3)
    F0 = solve_qffl(P, 0.0, form="unweighted").extra["losses"]
    F1 = solve_qffl(P, 1.0, form="unweighted").extra["losses"]
    assert variance(F1) <= variance(F0)
    assert angle_cosine(F1) >= angle_cosine(F0)
    # the two facts the proofs use: mean F rises, mean F^2 falls from w*_0 to w*_1
    assert F1.mean() >= F0.mean() - 1e-12 and (F1**2).mean() <= (F0**2).mean() + 1e-12
    # the instance functions see the same minimisers
    v1, v0, _ = inst.lemma6(problem=P)
    c1, c0, _ = inst.lemma7(problem=P)
    assert abs(v1 - variance(F1)) <= 1e-9 * variance(F1) and abs(v0 - variance(F0)) <= 1e-9 * variance(F0)
    assert abs(c1 - angle_cosine(F1)) <= 1e-12 and abs(c0 - angle_cosine(F0)) <= 1e-12


@pytest.mark.parametrize("cid", ["qffl.lemma10.holder", "qffl.qfedavg.reduction", "qffl.lemma7.angle"])
def test_claims_verified_in_natural_units_without_warnings(cid):
    """Quick mode: verified, measured and bound in the result's units, no solver warning on the console."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = REGISTRY[cid].check(Context(quick=True, seed=0))
    assert out.status == "verified"
    assert out.relation in ("<=", ">=", "==") and out.explain
    assert out.measured is not None and out.bound is not None
    if out.relation == "==":
        assert out.tightness is None and out.error is not None and out.error <= out.tolerance
    else:
        assert out.tightness is not None and out.tightness >= 0.0
