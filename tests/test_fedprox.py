"""FedProx (Li et al. 2020, Alg. 2) and the numeric proximal step ``FederatedProblem.prox_each``.

Ground truth comes from independent solvers: ``numpy.linalg.solve`` on the quadratic optimality system,
scipy's ``trust-exact`` (Newton with the exact Hessian) and cvxpy (Clarabel) on logistic clients; FedAvg
for ``prox_mu = 0``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from fairtheory.algorithms import fedavg, fedprox
from fairtheory.algorithms.base import run
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError, SolverError
from fairtheory.problems import random_least_squares, random_logistic, random_quadratic

QUAD = random_quadratic(5, 3, rng=np.random.default_rng(0), offset=0.5)
LOGI = random_logistic(4, 3, 15, rng=np.random.default_rng(1), l2=0.0)
LOGI_L2 = random_logistic(4, 3, 15, rng=np.random.default_rng(2), l2=0.1)
LS = random_least_squares(4, 3, 10, rng=np.random.default_rng(3))


def _h_grad(P: Any, X: np.ndarray, W: np.ndarray, gamma: float, clients: Any = None) -> np.ndarray:
    """``grad h_k(X_k) = grad f_{c_k}(X_k) + (X_k - W_k)/gamma`` row by row."""
    return P.grads_each(X, clients=clients) + (X - W) / gamma


def _quadratic_prox_reference(H: np.ndarray, c: np.ndarray, W: np.ndarray, gamma: float) -> np.ndarray:
    """Solve ``(H_k + I/gamma) x = H_k c_k + W_k/gamma`` one client at a time (test only)."""
    d = W.shape[1]
    return np.stack([np.linalg.solve(H[k] + np.eye(d) / gamma, H[k] @ c[k] + W[k] / gamma) for k in range(W.shape[0])])


def _scipy_prox(P: Any, i: int, w: np.ndarray, gamma: float) -> np.ndarray:
    """argmin f_i(x) + ||x - w||^2/(2 gamma), one client: scipy's trust-exact (exact Hessian) polished by
    damped Newton steps with the exact Hessian (test only; independent of the code under test, which never
    uses Hessians)."""
    from scipy.optimize import minimize

    d = P.d

    def fun(x: np.ndarray) -> float:
        return float(P.losses(x)[i] + (x - w) @ (x - w) / (2 * gamma))

    def jac(x: np.ndarray) -> np.ndarray:
        return P.grads(x)[i] + (x - w) / gamma

    def hess(x: np.ndarray) -> np.ndarray:
        return P.hessians(x)[i] + np.eye(d) / gamma

    x = minimize(fun, w.copy(), jac=jac, hess=hess, method="trust-exact", options={"gtol": 1e-10}).x
    for _ in range(5):  # Newton converges quadratically from here
        x = x - np.linalg.solve(hess(x), jac(x))
    assert np.linalg.norm(jac(x)) <= 1e-12 * max(1.0, np.linalg.norm(w) / gamma)
    return x


# ============================================================================ prox_each
@pytest.mark.parametrize("gamma", [0.05, 1.0, 30.0])
def test_prox_each_quadratic_closed_form_matches_linear_solve(gamma: float) -> None:
    W = np.random.default_rng(4).normal(size=(QUAD.n, QUAD.d))
    X = QUAD.prox_each(W, gamma)
    ref = _quadratic_prox_reference(QUAD.H, QUAD.c, W, gamma)
    assert np.max(np.abs(X - ref)) <= 1e-12 * max(1.0, np.abs(ref).max())
    # the iterative route (accuracy=0: stop only at the float64 floor) reaches the same point
    Xi = QUAD.prox_each(W, gamma, accuracy=0.0)
    assert np.max(np.abs(Xi - ref)) <= 1e-10 * max(1.0, np.abs(ref).max())


def test_prox_each_least_squares_closed_form_and_client_subset() -> None:
    H, r, _ = LS.quadratic_form()
    clients = np.array([3, 0, 3])  # repeats allowed, any order
    W = np.random.default_rng(5).normal(size=(3, LS.d))
    X = LS.prox_each(W, 0.7, clients=clients)
    d = LS.d
    ref = np.stack([np.linalg.solve(H[k] + np.eye(d) / 0.7, r[k] + W[j] / 0.7) for j, k in enumerate(clients)])
    assert np.max(np.abs(X - ref)) <= 1e-12 * max(1.0, np.abs(ref).max())


@pytest.mark.parametrize("P", [LOGI, LOGI_L2], ids=["l2=0", "l2=0.1"])
@pytest.mark.parametrize("gamma", [0.1, 5.0, 200.0])
def test_prox_each_logistic_matches_newton(P: Any, gamma: float) -> None:
    W = 2.0 * np.random.default_rng(6).normal(size=(P.n, P.d))
    X = P.prox_each(W, gamma)
    ref = np.stack([_scipy_prox(P, i, W[i], gamma) for i in range(P.n)])
    # strong convexity 1/gamma: ||x - x*|| <= gamma ||grad h(x)||; both routes are at ~1e-12 gradients
    assert np.max(np.abs(X - ref)) <= 1e-9 * max(1.0, gamma)
    assert np.max(np.linalg.norm(_h_grad(P, X, W, gamma), axis=1)) <= 1e-10


def test_prox_each_logistic_matches_cvxpy() -> None:
    import cvxpy as cp

    gamma = 2.0
    W = np.random.default_rng(7).normal(size=(LOGI.n, LOGI.d))
    X = LOGI.prox_each(W, gamma)
    for i in range(LOGI.n):
        x = cp.Variable(LOGI.d)
        prob = cp.Problem(cp.Minimize(LOGI.cvxpy_losses(x)[i] + cp.sum_squares(x - W[i]) / (2 * gamma)))
        prob.solve(solver=cp.CLARABEL)
        assert prob.status == cp.OPTIMAL
        hx, hc = (float(LOGI.losses(v)[i] + np.sum((v - W[i]) ** 2) / (2 * gamma)) for v in (X[i], np.asarray(x.value)))
        assert hx <= hc + 1e-12  # ours is at least as good as the conic solve
        # 1/gamma-strong convexity: h* >= hx - gamma g^2/2, ||x_c - x*||^2 <= 2 gamma (hc - h*), ||X - x*|| <= gamma g
        g = float(np.linalg.norm(_h_grad(LOGI, X, W, gamma)[i]))
        radius = np.sqrt(2 * gamma * (hc - hx + gamma * g * g / 2)) + gamma * g
        assert np.linalg.norm(X[i] - x.value) <= radius + 1e-12 and radius <= 1e-3


def test_prox_each_inexact_meets_li_et_al_definition_1() -> None:
    P, gamma = LOGI, 50.0
    W = np.random.default_rng(8).normal(size=(P.n, P.d))
    g0 = np.linalg.norm(P.grads_each(W), axis=1)
    exact = P.prox_each(W, gamma)
    errs = []
    for a in (0.9, 0.5, 0.1, 1e-3):
        X = P.prox_each(W, gamma, accuracy=a)
        gn = np.linalg.norm(_h_grad(P, X, W, gamma), axis=1)
        assert np.all(gn <= a * g0)
        errs.append(np.max(np.linalg.norm(X - exact, axis=1)))
        assert errs[-1] <= gamma * np.max(gn) * (1 + 1e-9)  # 1/gamma-strong convexity of h
    assert errs[-1] < errs[0]
    # accuracy = 1: the centre itself qualifies (grad h(W) = grad f(W)): the first iterate is W
    assert np.array_equal(P.prox_each(W, gamma, accuracy=1.0), W)


def test_prox_each_at_a_client_minimiser_returns_it() -> None:
    W = QUAD.c.copy()  # grad f_i(c_i) = 0: c_i is the prox of itself
    assert np.max(np.abs(QUAD.prox_each(W, 3.0) - W)) <= 1e-15
    assert np.max(np.abs(QUAD.prox_each(W, 3.0, accuracy=0.5) - W)) <= 1e-15


def test_prox_each_torch_agrees_with_numpy() -> None:
    torch = pytest.importorskip("torch")
    W = np.random.default_rng(9).normal(size=(LOGI.n, LOGI.d))
    for P, kw in ((LOGI, {}), (QUAD, {}), (QUAD, {"accuracy": 0.2})):
        Wp = W if P is LOGI else np.random.default_rng(9).normal(size=(P.n, P.d))
        a = P.prox_each(Wp, 1.5, **kw)
        b = P.prox_each(torch.as_tensor(Wp), 1.5, **kw)
        assert isinstance(b, torch.Tensor) and b.dtype == torch.float64
        assert np.max(np.abs(a - b.numpy())) <= 1e-12


def test_prox_each_not_converging_raises_solver_error() -> None:
    W = np.random.default_rng(10).normal(size=(LOGI.n, LOGI.d))
    with pytest.raises(SolverError, match="max_iter|not converged"):
        LOGI.prox_each(W, 100.0, max_iter=2)


@pytest.mark.parametrize("kw, exc, name", [
    ({"gamma": 0.0}, FairtheoryValueError, "gamma"), ({"gamma": -1.0}, FairtheoryValueError, "gamma"),
    ({"gamma": float("inf")}, FairtheoryValueError, "gamma"), ({"gamma": "1"}, FairtheoryTypeError, "gamma"),
    ({"accuracy": 1.5}, FairtheoryValueError, "accuracy"), ({"accuracy": -0.1}, FairtheoryValueError, "accuracy"),
    ({"tol": 0.0}, FairtheoryValueError, "tol"), ({"max_iter": 0}, FairtheoryValueError, "max_iter"),
    ({"clients": [0, 9]}, FairtheoryValueError, "clients"),
])
def test_prox_each_validation_names_the_argument(kw: dict[str, Any], exc: type, name: str) -> None:
    args = {"gamma": 1.0} | kw
    k = 2 if "clients" in kw else LOGI.n
    with pytest.raises(exc, match=name):
        LOGI.prox_each(np.zeros((k, LOGI.d)), **args)


def test_prox_each_checks_W_shape() -> None:
    with pytest.raises(FairtheoryValueError, match="W"):
        QUAD.prox_each(np.zeros((QUAD.n + 1, QUAD.d)), 1.0)


# ============================================================================ FedProx
@pytest.mark.parametrize("K", [None, 3])
@pytest.mark.parametrize("P", [QUAD, LOGI], ids=["quad", "logistic"])
def test_fedprox_at_prox_mu_0_is_fedavg_exactly(P: Any, K: Any) -> None:
    a = run(fedavg.make(P, lr=0.2, kappa=3, K=K), 6, rng=np.random.default_rng(11))[1].as_arrays()
    b = run(fedprox.make(P, lr=0.2, kappa=3, K=K, prox_mu=0.0), 6, rng=np.random.default_rng(11))[1].as_arrays()
    assert np.array_equal(a["iterates"], b["iterates"]) and np.array_equal(a["losses"], b["losses"])
    sched = lambda r: 0.3 / (r + 1)  # noqa: E731
    a = run(fedavg.make(P, lr=sched, kappa=2), 4)[1].as_arrays()["iterates"]
    b = run(fedprox.make(P, lr=sched, kappa=2, prox_mu=0.0), 4)[1].as_arrays()["iterates"]
    assert np.array_equal(a, b)


def test_fedprox_gd_round_matches_a_hand_written_round() -> None:
    P, lr, kappa, mu = QUAD, 0.1, 4, 0.7
    w = np.random.default_rng(12).normal(size=P.d)
    alg = fedprox.make(P, lr=lr, kappa=kappa, prox_mu=mu)
    s = alg.step(alg.init(w), None)
    locs = []
    for i in range(P.n):  # reference loop over clients (test only)
        v = w.copy()
        for _ in range(kappa):
            v = v - lr * (P.H[i] @ (v - P.c[i]) + mu * (v - w))
        locs.append(v)
    assert np.max(np.abs(s.w - P.p @ np.array(locs))) <= 1e-14
    assert s.comms == 1 and s.steps == kappa


def test_fedprox_exact_one_client_is_the_proximal_point_method() -> None:
    P = random_quadratic(1, 3, rng=np.random.default_rng(13))
    mu, w = 0.5, np.array([1.0, -2.0, 0.5])
    _, h = run(fedprox.make(P, prox_mu=mu, solver="exact"), 5, w0=w)
    x = w.copy()
    for r in range(5):
        x = np.linalg.solve(P.H[0] + mu * np.eye(3), P.H[0] @ P.c[0] + mu * x)
        assert np.max(np.abs(h.iterates[r + 1] - x)) <= 1e-12


def test_fedprox_exact_round_averages_the_client_proxes() -> None:
    P, mu = LOGI_L2, 0.4
    w = np.random.default_rng(14).normal(size=P.d)
    alg = fedprox.make(P, prox_mu=mu, solver="exact")
    s = alg.step(alg.init(w), None)
    ref = np.stack([_scipy_prox(P, i, w, 1.0 / mu) for i in range(P.n)])
    assert np.max(np.abs(s.w - P.p @ ref)) <= 1e-9 and s.steps == 0


def test_fedprox_gd_with_many_steps_approaches_the_exact_solver() -> None:
    P, mu = QUAD, 1.0
    w = np.random.default_rng(15).normal(size=P.d)
    exact = fedprox.make(P, prox_mu=mu, solver="exact").step(fedprox.make(P, prox_mu=mu, solver="exact").init(w), None)
    gaps = []
    for kappa in (2, 10, 200):
        alg = fedprox.make(P, prox_mu=mu, lr=1.0 / (P.smoothness() + mu), kappa=kappa)
        gaps.append(np.max(np.abs(alg.step(alg.init(w), None).w - exact.w)))
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] <= 1e-12


def test_fedprox_inexact_is_between_centre_and_exact() -> None:
    P, mu = LOGI, 0.05
    w = np.random.default_rng(16).normal(size=P.d)
    ex = fedprox.make(P, prox_mu=mu, solver="exact")
    w_exact = ex.step(ex.init(w), None).w
    # inexactness 1 (the centre qualifies: no move) is refused by name, the range every backend shares (issue 35)
    with pytest.raises(FairtheoryValueError, match=r"inexactness must lie in \[0.0, 1.0\)"):
        fedprox.make(P, prox_mu=mu, solver="inexact", inexactness=1.0)
    e = fedprox.make(P, prox_mu=mu, solver="inexact", inexactness=1e-3)
    assert np.max(np.abs(e.step(e.init(w), None).w - w_exact)) <= 1e-3 * np.linalg.norm(P.grads(w), axis=1).max() / mu


def test_fedprox_partial_participation_is_reproducible_and_uses_the_draws() -> None:
    P, K = LOGI_L2, 3
    alg = fedprox.make(P, prox_mu=1.0, solver="exact", K=K)
    w = np.zeros(P.d)
    a = alg.step(alg.init(w), np.random.default_rng(17))
    b = alg.step(alg.init(w), np.random.default_rng(17))
    assert np.array_equal(a.w, b.w)
    draws = np.random.default_rng(17).choice(P.n, size=K, replace=True, p=P.p)
    ref = np.mean([_scipy_prox(P, i, w, 1.0) for i in draws], axis=0)
    assert np.max(np.abs(a.w - ref)) <= 1e-9


def test_fedprox_exact_numpy_and_torch_agree() -> None:
    torch = pytest.importorskip("torch")
    alg = fedprox.make(LOGI, prox_mu=0.5, solver="exact", K=3)
    _, h = run(alg, 4, rng=np.random.default_rng(18))
    s_t, h_t = run(alg, 4, rng=np.random.default_rng(18), w0=torch.zeros(LOGI.d, dtype=torch.float64))
    assert isinstance(s_t.w, torch.Tensor)
    assert np.max(np.abs(h.as_arrays()["iterates"] - h_t.as_arrays()["iterates"])) <= 1e-11


@pytest.mark.parametrize("kw, exc, name", [
    ({"prox_mu": -0.1, "lr": 0.1}, FairtheoryValueError, "prox_mu"),
    ({"prox_mu": float("nan"), "lr": 0.1}, FairtheoryValueError, "prox_mu"),
    ({"prox_mu": "0.1", "lr": 0.1}, FairtheoryTypeError, "prox_mu"),
    ({"prox_mu": 0.1}, FairtheoryValueError, "lr"),
    ({"prox_mu": 0.1, "lr": 0.0}, FairtheoryValueError, "lr"),
    ({"prox_mu": 0.1, "lr": 0.1, "kappa": 0}, FairtheoryValueError, "kappa"),
    ({"prox_mu": 0.1, "lr": 0.1, "K": 0}, FairtheoryValueError, "K"),
    ({"prox_mu": 0.1, "lr": 0.1, "solver": "newton"}, FairtheoryValueError, "solver"),
    ({"prox_mu": 0.0, "solver": "exact"}, FairtheoryValueError, "prox_mu"),
    ({"prox_mu": 0.1, "solver": "exact", "lr": 0.1}, FairtheoryValueError, "lr"),
    ({"prox_mu": 0.1, "solver": "exact", "kappa": 3}, FairtheoryValueError, "kappa"),
    ({"prox_mu": 0.1, "solver": "exact", "inexactness": 0.5}, FairtheoryValueError, "inexactness"),
    ({"prox_mu": 0.1, "solver": "inexact"}, FairtheoryValueError, "inexactness"),
    ({"prox_mu": 0.1, "solver": "inexact", "inexactness": 1.5}, FairtheoryValueError, "inexactness"),
    ({"prox_mu": 0.1, "lr": 0.1, "inexactness": 0.5}, FairtheoryValueError, "inexactness"),
])
def test_fedprox_validation_names_the_argument(kw: dict[str, Any], exc: type, name: str) -> None:
    with pytest.raises(exc, match=name):
        fedprox.make(QUAD, **kw)


def test_fedprox_lr_schedule_checked_when_used() -> None:
    alg = fedprox.make(QUAD, prox_mu=0.1, lr=lambda r: 0.1 if r == 0 else -1.0)
    s = alg.step(alg.init(), None)
    with pytest.raises(FairtheoryValueError, match="lr"):
        alg.step(s, None)
