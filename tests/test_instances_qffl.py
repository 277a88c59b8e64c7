"""q-FFL instance functions (003): one pinned instance each, hand values where they exist."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory.instances import InstanceResult
from fairtheory.instances import qffl as inst
from fairtheory.problems.quadratic import QuadraticProblem


def symmetric_pair(e: float = 0.25) -> QuadraticProblem:
    """F_{1,2}(w) = 0.5 (w -+ 1)^2 + e in 1-D, p = (1/2, 1/2): w*_q = 0 for every q, F(w*_q) = (0.5 + e) 1."""
    return QuadraticProblem(np.ones((2, 1, 1)), np.array([[1.0], [-1.0]]), e=[e, e])


def test_lemma12_tight_in_one_dimension():
    """f = 4, f' = 3, f'' = L = 2, q = 1/2: both sides are 0.5 * 4^{-1/2} * 9 + 4^{1/2} * 2 = 6.25."""
    r = inst.lemma12(loss=4.0, grad=[3.0], hess=[[2.0]], L=2.0, q=0.5)
    assert isinstance(r, InstanceResult)
    assert r.measured == pytest.approx(6.25, rel=1e-15) and r.theory == pytest.approx(6.25, rel=1e-15)
    assert r.extra["hessian"].shape == (1, 1)


def test_q0_is_fedavg():
    P = inst.random_convex_instance(np.random.default_rng(0), 5, 3)
    m, t, ex = inst.q0_is_fedavg(problem=P, w=np.ones(P.d))
    assert abs(m - t) <= 1e-12 * ex["scale"] and ex["scale"] >= 1.0


@pytest.mark.parametrize("q", [0.0, 1.0, 5.0])
def test_limits_by_symmetry(q):
    """Symmetric pair: max F(w*_q) = AFL* = 0.75 and the bound is 2^{1/(q+1)} AFL*."""
    P = symmetric_pair()
    M, bound, ex = inst.limits(problem=P, q=q)
    assert ex["afl"] == pytest.approx(0.75, rel=1e-7)
    assert M == pytest.approx(0.75, rel=1e-9)
    assert bound == pytest.approx(2.0 ** (1.0 / (q + 1.0)) * ex["afl"], rel=1e-15)
    assert ex["afl"] <= M * (1 + 1e-7) and M <= bound


def test_lemmas_6_7_instance():
    P = inst.random_convex_instance(np.random.default_rng(5), 6, 3)
    v1, v0, ex = inst.lemma6(problem=P)
    c1, c0, ex7 = inst.lemma7(problem=P)
    assert v1 <= v0 and c1 >= c0
    assert np.array_equal(ex["F0"], ex7["F0"]) and np.array_equal(ex["F1"], ex7["F1"])
    # symmetric pair: w*_0 = w*_1, so both sides coincide (Lemma 6 is not strict there)
    v1, v0, _ = inst.lemma6(problem=symmetric_pair())
    assert v1 == pytest.approx(v0, abs=1e-12)


def test_lemma8_instance():
    P = inst.random_convex_instance(np.random.default_rng(2), 5, 3)
    fd, zero, ex = inst.lemma8(problem=P, q=1.5)
    assert zero == 0.0 and fd >= 0.0
    assert abs(fd - ex["ift"]) <= 1e-3 * max(1e-3, abs(ex["ift"]))


def test_lemma10_by_hand():
    """F = (3, 4), lam = (1/2, 1/2), q = 1 (p = 2): lam.F = 3.5 <= ||lam||_2 ||F||_2 = 5/sqrt(2);
    nu = F/5 gives nu.F = 5 = ||F||_2, and the conic solve's certified lower bound agrees."""
    m, t, ex = inst.lemma10(F=[3.0, 4.0], lam=[0.5, 0.5], q=1.0, solve=True)
    assert m == 3.5 and t == pytest.approx(5.0 / np.sqrt(2.0), rel=1e-15)
    assert ex["norm"] == pytest.approx(5.0, rel=1e-15)
    assert ex["dual_closed_form"] == pytest.approx(5.0, rel=1e-15)
    assert ex["dual_cvxpy"] <= 5.0 * (1 + 1e-15) and ex["dual_cvxpy"] == pytest.approx(5.0, rel=1e-6)
    assert ex["cvxpy_status"] in ("optimal", "optimal_inaccurate")
    # q = 0: p = inf, Hoelder is lam.F <= max F
    m0, t0, _ = inst.lemma10(F=[3.0, 4.0], lam=[0.5, 0.5], q=0.0)
    assert (m0, t0) == (3.5, 0.5 * np.linalg.norm([3.0, 4.0], 1.0))


@pytest.mark.parametrize("K", [None, 3])
def test_reduction_instance(K):
    P = inst.random_convex_instance(np.random.default_rng(4), 5, 3)
    w = np.linspace(-1.0, 1.0, P.d)
    a, b, ex = inst.reduction(problem=P, w=w, lr=0.3, K=K, seed=7)
    s = ex["scale"]
    assert abs(a - b) <= 1e-12 * max(abs(b), s)
    assert np.max(np.abs(ex["qfedavg"] - ex["fedsgd"])) <= 1e-12 * max(s, np.abs(ex["fedsgd"]).max())
    assert np.max(np.abs(ex["qfedavg"] - ex["fedavg"])) <= 1e-12 * max(s, np.abs(ex["fedavg"]).max())


def test_convergence_instance():
    P = inst.random_convex_instance(np.random.default_rng(8), 5, 3)
    val, ref, ex = inst.convergence(problem=P, q=1.0)
    assert abs(val - ref) <= 1e-6 * ref and ex["gap"] <= 1e-6 and ex["rounds"] % 50 == 0
    _, _, ex = inst.convergence(problem=P, q=1.0, rounds=10, check_every=1, stop=False)
    rounds, gaps = ex["trace"]
    assert rounds.tolist() == list(range(11)) and ex["rounds"] == 10
    assert np.all(np.diff(gaps) <= 1e-15)  # the Lemma 12 step decreases f_q on this instance


def test_random_generators_are_reproducible():
    a = inst.random_multinomial(np.random.default_rng(3), n=4, sizes=(10, 40), shift=1.5)
    b = inst.random_multinomial(np.random.default_rng(3), n=4, sizes=(10, 40), shift=1.5)
    assert a.n == 4 and np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    P = inst.random_convex_instance(np.random.default_rng(1), 6, 3)
    assert 2 <= P.n <= 6 and 1 <= P.d <= 3 and np.all(P.e >= 0.05)
