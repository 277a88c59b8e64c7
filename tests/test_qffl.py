"""q-FFL objective, Lemma 12 estimate, exact solver, multinomial problem, synthetic data, metrics."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory import metrics
from fairtheory._validation import FairtheoryValueError
from fairtheory.exact.qffl import solve_qffl
from fairtheory.exact.result import SolverError
from fairtheory.objectives.qffl import (
    QFFLProblem,
    hessian_powered,
    lipschitz_estimate,
    qffl_grad,
    qffl_value,
)
from fairtheory.problems.multinomial import MultinomialProblem
from fairtheory.problems.quadratic import random_quadratic
from fairtheory.problems.synthetic_qffl import synthetic_qffl


def small_multinomial(seed: int = 0, l2: float = 0.05) -> MultinomialProblem:
    r = np.random.default_rng(seed)
    X = r.normal(size=(25, 3))
    y = r.integers(0, 3, 25)
    return MultinomialProblem(X, y, [0, 6, 14, 25], 3, l2=l2)


# ------------------------------------------------------------------ objective forms
def test_forms_by_hand(to_backend):
    F = to_backend(np.array([1.0, 2.0]))
    p = np.array([0.25, 0.75])
    # weighted eq. 2, q = 1: (0.25*1 + 0.75*4)/2 = 1.625
    assert float(qffl_value(F, 1.0, p)) == pytest.approx(1.625, rel=1e-15)
    # eq. 22: (1 + 4)/2 = 2.5 ; root: sqrt(2.5)
    assert float(qffl_value(F, 1.0, form="unweighted")) == pytest.approx(2.5, rel=1e-15)
    assert float(qffl_value(F, 1.0, form="root")) == pytest.approx(np.sqrt(2.5), rel=1e-15)
    # q = 0 weighted = FedAvg objective
    assert float(qffl_value(F, 0.0, p)) == pytest.approx(0.25 + 1.5, rel=1e-15)


def test_root_form_tends_to_max():
    F = np.array([0.3, 1.7, 1.2])
    assert float(qffl_value(F, 200.0, form="root")) == pytest.approx(1.7, rel=1e-2)


@pytest.mark.parametrize("form", ["weighted", "unweighted", "root"])
def test_grad_matches_finite_differences(form):
    P = random_quadratic(4, 3, rng=np.random.default_rng(1), offset=0.5)
    w = np.array([0.3, -0.2, 0.5])
    q, h = 1.7, 1e-6

    def f(v):
        return float(qffl_value(P.losses(v), q, P.p, form=form))

    g = qffl_grad(P.losses(w), P.grads(w), q, P.p, form=form)
    fd = np.array([(f(w + h * e) - f(w - h * e)) / (2 * h) for e in np.eye(3)])
    assert np.max(np.abs(g - fd)) < 1e-6 * max(1.0, np.abs(fd).max())


def test_validation_negative_losses_and_q():
    with pytest.raises(FairtheoryValueError, match="losses"):
        qffl_value(np.array([1.0, -0.1]), 1.0)
    with pytest.raises(FairtheoryValueError, match="q"):
        qffl_value(np.array([1.0, 0.1]), -0.5)
    with pytest.raises(FairtheoryValueError, match="form"):
        qffl_value(np.array([1.0, 0.1]), 1.0, form="bogus")
    with pytest.raises(FairtheoryValueError, match="p"):
        qffl_value(np.array([1.0, 0.1]), 1.0, np.array([0.5, 0.6]))


# ------------------------------------------------------------------ Lemma 12
def test_lipschitz_estimate_by_hand_and_zero_loss():
    # L F^q + q F^{q-1} ||g||^2 with F = 4, ||g||^2 = 9, L = 2, q = 0.5: 2*2 + 0.5*0.5*9 = 6.25
    assert lipschitz_estimate(np.array([4.0]), np.array([9.0]), 2.0, 0.5)[0] == pytest.approx(6.25)
    # q < 1, F = 0 and g = 0: limit value 0 (documented), q = 0: L
    assert lipschitz_estimate(np.array([0.0]), np.array([0.0]), 2.0, 0.5)[0] == 0.0
    assert lipschitz_estimate(np.array([0.0]), np.array([0.0]), 2.0, 0.0)[0] == 2.0
    with pytest.raises(FairtheoryValueError, match="zero gradient"):
        lipschitz_estimate(np.array([0.0]), np.array([1.0]), 2.0, 0.5)
    with pytest.raises(FairtheoryValueError, match="losses"):
        lipschitz_estimate(np.array([-1.0]), np.array([1.0]), 2.0, 1.0)
    with pytest.raises(FairtheoryValueError, match="L"):
        lipschitz_estimate(np.array([1.0]), np.array([1.0]), 0.0, 1.0)


@pytest.mark.parametrize("q", [0.0, 0.5, 1.0, 3.0])
def test_lemma12_bound_holds_multinomial(q):
    P = small_multinomial()
    rng = np.random.default_rng(3)
    for w in rng.normal(size=(5, P.d)):
        F, J = P.losses(w), P.grads(w)
        Hq = hessian_powered(F, J, P.hessians(w), q)
        norms = np.abs(np.linalg.eigvalsh(Hq)).max(axis=1)
        bound = lipschitz_estimate(F, (J * J).sum(axis=1), P.client_smoothness(), q)
        assert np.all(norms <= bound * (1 + 1e-12))


def test_qffl_problem_is_fq():
    P = random_quadratic(5, 3, rng=np.random.default_rng(2), offset=0.3)
    Q = QFFLProblem(P, 2.0)
    w = np.array([0.1, 0.2, -0.3])
    assert float(Q.weighted_loss(w)) == pytest.approx(float(qffl_value(P.losses(w), 2.0, P.p)), rel=1e-14)
    g = P.p @ Q.grads(w)
    assert np.allclose(g, qffl_grad(P.losses(w), P.grads(w), 2.0, P.p), rtol=1e-13, atol=1e-14)
    h = 1e-6
    fdH = np.array([(Q.grads(w + h * e) - Q.grads(w - h * e)) / (2 * h)
                    for e in np.eye(3)]).transpose(1, 2, 0)
    assert np.max(np.abs(Q.hessians(w) - fdH)) < 1e-5


# ------------------------------------------------------------------ exact solver
def test_exact_q0_matches_closed_form():
    P = random_quadratic(8, 4, rng=np.random.default_rng(4), offset=1.0)
    res = solve_qffl(P, 0.0)
    Hbar = np.einsum("n,nij->ij", P.p, P.H)
    w0 = np.linalg.solve(Hbar, P.p @ P.r)
    assert np.max(np.abs(res.argmin - w0)) < 1e-10
    assert res.value == pytest.approx(float(P.weighted_loss(w0)), rel=1e-12)
    assert res.certificate["grad_rel"] < 1e-10


@pytest.mark.parametrize("q", [1.0, 5.0, 15.0])
def test_exact_is_stationary_and_forms_share_minimiser(q):
    P = random_quadratic(6, 3, rng=np.random.default_rng(5), offset=1.0)
    r_w = solve_qffl(P, q, form="unweighted")
    r_r = solve_qffl(P, q, form="root")
    assert r_w.certificate["grad_rel"] < 1e-9
    assert np.max(np.abs(r_w.argmin - r_r.argmin)) < 1e-7
    assert r_r.value == pytest.approx(r_w.value ** (1 / (q + 1)), rel=1e-12)
    # value is a minimum: random perturbations never do better
    rng = np.random.default_rng(0)
    for dw in rng.normal(size=(20, P.d)) * 1e-3:
        assert float(qffl_value(P.losses(r_w.argmin + dw), q, form="unweighted")) >= r_w.value


def test_exact_multinomial():
    P = small_multinomial()
    res = solve_qffl(P, 1.0)
    assert res.certificate["grad_rel"] < 1e-9


def test_exact_raises_on_non_optimal():
    P = random_quadratic(6, 3, rng=np.random.default_rng(5), offset=1.0)
    with pytest.raises(SolverError):
        solve_qffl(P, 2.0, max_iter=1)


# ------------------------------------------------------------------ multinomial + synthetic
def test_multinomial_grads_hessians_fd():
    P = small_multinomial()
    w = np.random.default_rng(1).normal(size=P.d)
    h = 1e-6
    E = np.eye(P.d)
    fd = np.array([(P.losses(w + h * e) - P.losses(w - h * e)) / (2 * h) for e in E]).T
    assert np.max(np.abs(P.grads(w) - fd)) < 1e-7
    fdH = np.array([(P.grads(w + h * e) - P.grads(w - h * e)) / (2 * h) for e in E]).transpose(1, 2, 0)
    assert np.max(np.abs(P.hessians(w) - fdH)) < 1e-6
    F, vjp = P.losses_vjp(w)
    c = np.array([0.2, 0.3, 0.5])
    assert np.allclose(F, P.losses(w), rtol=1e-14, atol=0)
    assert np.allclose(vjp(c), c @ P.grads(w), rtol=1e-12, atol=1e-14)


def test_multinomial_cvxpy_twin():
    import cvxpy as cp

    P = small_multinomial()
    w = np.random.default_rng(2).normal(size=P.d)
    v = cp.Variable(P.d)
    v.value = w
    assert np.allclose([float(f.value) for f in P.cvxpy_losses(v)], P.losses(w), rtol=1e-12)


def test_multinomial_numpy_torch(to_backend):
    P = small_multinomial()
    w = np.random.default_rng(3).normal(size=P.d)
    wb = to_backend(w)
    from fairtheory.backend import to_numpy

    assert np.allclose(to_numpy(P.losses(wb)), P.losses(w), rtol=1e-14, atol=1e-15)
    assert np.allclose(to_numpy(P.grads(wb)), P.grads(w), rtol=1e-13, atol=1e-15)
    assert np.array_equal(to_numpy(P.accuracies(wb)), P.accuracies(w))


def test_multinomial_accuracy_by_hand():
    # 1 feature, no intercept, 2 classes; W = [[0, 1]] predicts class 1 iff x > 0
    X = np.array([[1.0], [-1.0], [2.0], [3.0]])
    y = np.array([1, 1, 0, 1])
    P = MultinomialProblem(X, y, [0, 2, 4], 2, intercept=False)
    assert np.allclose(P.accuracies(np.array([0.0, 1.0])), [0.5, 0.5])
    assert P.p.tolist() == [0.5, 0.5]


def test_multinomial_validation():
    with pytest.raises(FairtheoryValueError, match="offsets"):
        MultinomialProblem(np.ones((3, 2)), [0, 1, 0], [0, 3, 3], 2)
    with pytest.raises(FairtheoryValueError, match="y"):
        MultinomialProblem(np.ones((3, 2)), [0, 2, 0], [0, 3], 2)


def test_synthetic_generator_shape_and_seed():
    a = synthetic_qffl(rng=np.random.default_rng(0), n=12)
    b = synthetic_qffl(rng=np.random.default_rng(0), n=12)
    assert a.train.n == a.test.n == a.val.n == 12
    assert a.train.d == 61 * 10
    assert np.array_equal(a.train.X, b.train.X) and np.array_equal(a.test.y, b.test.y)
    assert np.array_equal(a.train.sizes + a.val.sizes + a.test.sizes, a.sizes)
    assert np.all(a.train.sizes >= 0.8 * a.sizes - 1)
    big = synthetic_qffl(rng=np.random.default_rng(1), n=100, d_in=5)
    assert 100 < big.sizes.mean() < 160  # power law matched to 003 Table 3 (mean 127)


# ------------------------------------------------------------------ metrics
def test_uniformity_metrics_by_hand():
    a = np.array([1.0, 2.0, 3.0, 4.0])
    assert metrics.variance(a) == pytest.approx(1.25)
    assert metrics.angle_cosine(a) == pytest.approx(2.5 / np.sqrt(7.5))
    assert metrics.angle_degrees(np.ones(3)) == pytest.approx(0.0, abs=1e-6)
    assert metrics.entropy(np.ones(4)) == pytest.approx(np.log(4))
    assert metrics.kl_to_uniform(np.ones(4)) == pytest.approx(0.0, abs=1e-15)
    assert metrics.kl_to_uniform(a) == pytest.approx(np.log(4) - metrics.entropy(a))
    assert metrics.entropy(np.array([0.0, 2.0])) == 0.0
    acc = np.arange(1.0, 21.0)
    assert metrics.worst_mean(acc, 0.1) == 1.5 and metrics.best_mean(acc, 0.1) == 19.5
    assert metrics.worst_mean(acc, 0.1, higher_is_better=False) == 19.5
    with pytest.raises(FairtheoryValueError):
        metrics.entropy(np.array([-1.0, 2.0]))
    with pytest.raises(FairtheoryValueError):
        metrics.angle_cosine(np.zeros(3))
    with pytest.raises(FairtheoryValueError):
        metrics.worst_mean(acc, 0.0)
