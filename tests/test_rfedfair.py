"""rFedFair (002 Algorithm 1): per-client reference, schedule, outputs, backends, aggregators, convergence."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
from fairtheory.aggregators import TERM, SmoothedQalpha
from fairtheory.aggregators import fedavg as fedavg_objective
from fairtheory.algorithms import rfedfair as R
from fairtheory.algorithms.base import run
from fairtheory.problems.logistic import LogisticProblem
from fairtheory.problems.quadratic import random_quadratic


def _quad(n: int = 4, d: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(n, 20.0))
    return random_quadratic(n, d, rng=rng, mu=0.3, L=2.0, spread=1.5, offset=0.5, p=p)


def _reference(problem, *, T, beta, mu, alpha, kappa, K=None, seed=0, w0=None, eta0=0.0):
    """Straightforward Algorithm 1 with Python loops over steps and clients (quadratic clients).

    Returns (002 output, 000 output, list of server models after each averaging, number of averagings)."""
    H, c, e, p = problem.H, problem.c, problem.e, problem.p
    n, d = c.shape
    a = np.broadcast_to(np.asarray(alpha, dtype=float), (n,))
    rng = np.random.default_rng(seed)
    w0 = np.zeros(d) if w0 is None else np.asarray(w0, dtype=float)
    Ws = [w0.copy() for _ in range(n)]
    Es = [float(eta0) for _ in range(n)]
    servers = []
    sum000 = np.zeros(d)
    for t in range(T):
        sum000 += sum(p[i] * Ws[i] for i in range(n))
        new_W, new_E = [], []
        for i in range(n):
            diff = Ws[i] - c[i]
            f = 0.5 * diff @ H[i] @ diff + e[i]
            g = H[i] @ diff
            s = 1.0 / (1.0 + math.exp(-(f - Es[i]) / mu)) / a[i]
            new_W.append(Ws[i] - beta * s * g)
            new_E.append(Es[i] - beta * (1.0 - s))
        if t % kappa == 0:
            if K is None:
                w = sum(p[i] * new_W[i] for i in range(n))
                eta = sum(p[i] * new_E[i] for i in range(n))
            else:
                Z = rng.choice(n, size=K, replace=True, p=p)
                w = sum(new_W[j] for j in Z) / K
                eta = sum(new_E[j] for j in Z) / K
            new_W = [w.copy() for _ in range(n)]
            new_E = [float(eta) for _ in range(n)]
            servers.append(w.copy())
        Ws, Es = new_W, new_E
    T_N = (T - 2) // kappa
    out002 = np.mean(servers[: T_N + 1], axis=0)
    out000 = sum000 / T
    return out002, out000, servers


@pytest.mark.parametrize("kappa,K", [(1, None), (3, None), (3, 2), (1, 5)])
def test_matches_per_client_reference(kappa: int, K: int | None) -> None:
    prob = _quad()
    alpha = np.array([0.5, 0.9, 1.0, 0.6])
    alpha = np.maximum(alpha, prob.p)
    T = 2 + 4 * kappa
    ref002, ref000, servers = _reference(prob, T=T, beta=0.07, mu=0.2, alpha=alpha, kappa=kappa, K=K,
                                         seed=11, w0=np.ones(3), eta0=0.3)
    kw = dict(T=T, lr=0.07, mu=0.2, alpha=alpha, kappa=kappa, K=K, w0=np.ones(3), eta0=0.3)
    r2 = R.run_rfedfair(prob, rng=np.random.default_rng(11), **kw)
    r0 = R.run_rfedfair(prob, rng=np.random.default_rng(11), output="path_average", **kw)
    np.testing.assert_allclose(r2.w, ref002, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(r0.w, ref000, rtol=1e-12, atol=1e-13)
    # final server model = last averaging of the reference (T steps, including t = T-1)
    np.testing.assert_allclose(r2.state.w, servers[-1], rtol=1e-12, atol=1e-13)
    assert r2.state.comms == len(servers)


def test_single_step_formula() -> None:
    prob = _quad(3, 2, seed=3)
    alg = R.make(prob, lr=0.1, mu=0.5, alpha=0.5, kappa=2)
    s0 = alg.init(np.array([0.5, -1.0]), eta0=0.2)
    s1 = alg.step(s0, None)  # t = 0: communication
    f = np.asarray(prob.losses(np.array([0.5, -1.0])))
    G = np.asarray(prob.grads(np.array([0.5, -1.0])))
    s = 2.0 / (1.0 + np.exp(-(f - 0.2) / 0.5))
    W = np.array([0.5, -1.0]) - 0.1 * s[:, None] * G
    E = 0.2 - 0.1 * (1 - s)
    np.testing.assert_allclose(s1.w, prob.p @ W, rtol=1e-14)
    assert float(s1.eta) == pytest.approx(float(prob.p @ E), rel=1e-14)
    np.testing.assert_allclose(s1.W, np.tile(prob.p @ W, (3, 1)), rtol=1e-14)
    s2 = alg.step(s1, None)  # t = 1: local only
    assert s2.comms == 1 and s2.t == 2
    assert not np.allclose(s2.W[0], s2.W[1])  # heterogeneous clients drift apart
    np.testing.assert_allclose(s2.w, s1.w)  # server model unchanged by a local step


@pytest.mark.parametrize("T,kappa", [(2, 1), (7, 5), (12, 5), (22, 10), (5, 3), (3, 1)])
def test_schedule_and_communication_counts(T: int, kappa: int) -> None:
    prob = _quad()
    res = R.run_rfedfair(prob, T=T, lr=0.01, mu=0.1, alpha=0.8, kappa=kappa)
    T_N = (T - 2) // kappa
    assert res.T_N == T_N
    # communication at t in {0, kappa, ...} within 0..T-1
    assert res.state.comms == len([t for t in range(T) if t % kappa == 0])
    assert res.state.comms == T_N + 1 + (1 if kappa == 1 else 0)
    assert res.history.comms[-1] == res.state.comms
    # history: server model after k steps; the 002 output averages w_{r kappa + 1}, r = 0..T_N
    it = np.array(res.history.iterates)
    np.testing.assert_allclose(res.w, it[[r * kappa + 1 for r in range(T_N + 1)]].mean(axis=0), rtol=1e-13)


def test_rounds_validation() -> None:
    prob = _quad()
    assert R.rounds_for(12, 5) == 2
    with pytest.raises(FairtheoryValueError, match="divisible"):
        R.rounds_for(13, 5)
    with pytest.raises(FairtheoryValueError, match="divisible"):
        R.run_rfedfair(prob, T=13, lr=0.01, mu=0.1, alpha=0.8, kappa=5)
    # the path_average output (000's) accepts any T >= 1
    res = R.run_rfedfair(prob, T=13, lr=0.01, mu=0.1, alpha=0.8, kappa=5, output="path_average")
    assert res.T_N is None and res.state.t == 13


def test_output_path_average_definition() -> None:
    prob = _quad()
    T, kappa = 12, 5
    alg = R.make(prob, lr=0.05, mu=0.1, alpha=0.7, kappa=kappa)
    state = alg.init()
    acc = np.zeros(prob.d)
    for _ in range(T):
        acc += prob.p @ state.W
        state = alg.step(state, None)
    res = R.run_rfedfair(prob, T=T, lr=0.05, mu=0.1, alpha=0.7, kappa=kappa, output="path_average")
    np.testing.assert_allclose(res.w, acc / T, rtol=1e-13)
    np.testing.assert_allclose(res.state.W, state.W, rtol=1e-14)


def test_checkpoints_are_prefix_outputs() -> None:
    prob = _quad()
    kw = dict(lr=0.05, mu=0.1, alpha=0.7, kappa=5)
    long = R.run_rfedfair(prob, T=22, checkpoints=[7, 12, 17], **kw)
    for Tp in (7, 12, 17):
        short2 = R.run_rfedfair(prob, T=Tp, **kw)
        short0 = R.run_rfedfair(prob, T=Tp, output="path_average", **kw)
        np.testing.assert_allclose(long.checkpoints[Tp]["average"][0], short2.w, rtol=1e-14)
        np.testing.assert_allclose(long.checkpoints[Tp]["path_average"][0], short0.w, rtol=1e-14)


def test_partial_draws_with_replacement_plain_mean() -> None:
    # K = 1: the server model is exactly the drawn client's stepped model
    prob = _quad()
    alg = R.make(prob, lr=0.1, mu=0.2, alpha=0.9, kappa=3, K=1)
    s0 = alg.init()
    rng = np.random.default_rng(5)
    j = int(np.random.default_rng(5).choice(prob.n, size=1, replace=True, p=prob.p)[0])
    s1 = alg.step(s0, rng)
    full = R.make(prob, lr=0.1, mu=0.2, alpha=0.9, kappa=4).step(s0, None)  # t=0 averages
    Gw, ge = R.local_gradients(prob, s0.W, s0.E, SmoothedQalpha(prob.p, 0.9, 0.2))
    np.testing.assert_allclose(s1.w, (s0.W - 0.1 * Gw)[j], rtol=1e-14)
    assert float(s1.eta) == pytest.approx(float((s0.E - 0.1 * ge)[j]), rel=1e-14)
    assert full.comms == 1


def _logistic(n: int, m: int, d: int, seed: int) -> LogisticProblem:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n * m, d))
    shift = np.repeat(rng.normal(size=(n, d)), m, axis=0)
    y = np.where(rng.uniform(size=n * m) < 1 / (1 + np.exp(-(X + shift) @ np.ones(d))), 1.0, -1.0)
    return LogisticProblem(X, y, np.arange(0, n * m + 1, m))


@pytest.mark.parametrize("K", [None, 3])
def test_numpy_torch_agree(xp_name: str, to_backend, K: int | None) -> None:
    for prob in (_quad(), _logistic(6, 8, 3, 1)):
        kw = dict(T=17, lr=0.05, mu=0.1, alpha=0.6, kappa=5, K=K)
        ref = R.run_rfedfair(prob, rng=np.random.default_rng(4), w0=np.full(prob.d, 0.1), **kw)
        got = R.run_rfedfair(prob, rng=np.random.default_rng(4), w0=to_backend(np.full(prob.d, 0.1)), **kw)
        from fairtheory.backend import to_numpy

        np.testing.assert_allclose(to_numpy(got.w), ref.w, rtol=0, atol=1e-10)
        assert abs(float(to_numpy(got.eta)) - float(ref.eta)) <= 1e-10
        np.testing.assert_allclose(to_numpy(got.state.W), ref.state.W, rtol=0, atol=1e-10)
        if xp_name == "torch":
            assert type(got.w).__module__.startswith("torch")


@pytest.mark.parametrize(
    "bad,exc",
    [
        (dict(lr=0.0), FairtheoryValueError),
        (dict(lr=-1.0), FairtheoryValueError),
        (dict(mu=0.0), FairtheoryValueError),
        (dict(alpha=0.0), FairtheoryValueError),
        (dict(alpha=1.5), FairtheoryValueError),
        (dict(kappa=0), FairtheoryValueError),
        (dict(kappa=1.5), FairtheoryTypeError),
        (dict(K=0), FairtheoryValueError),
        (dict(mu=None), FairtheoryValueError),
        (dict(alpha=None), FairtheoryValueError),
        (dict(aggregator=TERM(np.full(4, 0.25), 1.0)), FairtheoryValueError),  # with alpha, mu: not both
        (dict(T=1), FairtheoryValueError),
        (dict(T=2.0), FairtheoryTypeError),
        (dict(output="001"), FairtheoryValueError),
        (dict(output_version="path_average"), FairtheoryTypeError),  # the removed keyword, refused naming output=
    ],
)
def test_validation(bad: dict, exc: type) -> None:
    prob = _quad()
    kw = dict(T=7, lr=0.1, mu=0.1, alpha=0.5, kappa=5, rng=np.random.default_rng(0)) | bad
    with pytest.raises(exc):
        R.run_rfedfair(prob, **kw)


def test_partial_needs_rng_and_alpha_range() -> None:
    prob = _quad()
    alg = R.make(prob, lr=0.1, mu=0.1, alpha=0.5, kappa=1, K=2)
    s0 = alg.init()
    with pytest.raises(FairtheoryTypeError, match="rng"):
        alg.step(s0, None)
    with pytest.raises(FairtheoryTypeError, match="rng"):
        R.run_rfedfair(prob, T=3, lr=0.1, mu=0.1, alpha=0.5, kappa=1, K=2)
    with pytest.raises(FairtheoryValueError, match="alpha"):
        R.make(prob, lr=0.1, mu=0.1, alpha=np.full(prob.n, 0.01), kappa=1)
    with pytest.raises(FairtheoryValueError, match="w0"):
        alg.init(np.zeros(prob.d + 1))
    with pytest.raises(FairtheoryValueError, match="eta0"):
        alg.init(eta0=float("nan"))
    with pytest.raises(FairtheoryValueError, match="'average' output"):
        R.output(s0, "average")
    with pytest.raises(FairtheoryTypeError, match="rfedfair.State"):
        alg.step("state", np.random.default_rng(0))


def test_make_binds_once_and_steps_bit_identically() -> None:
    """``make`` validates once; ``alpha/mu`` and the same ``SmoothedQalpha`` given as ``aggregator=``
    produce bit-identical iterates, and ``base.run`` drives the steps."""
    prob = _quad()
    kw = dict(lr=0.1, kappa=3, K=2)
    a_alg = R.make(prob, mu=0.2, alpha=0.6, **kw)
    b_alg = R.make(prob, aggregator=SmoothedQalpha(prob.p, 0.6, 0.2), **kw)
    assert a_alg.name == "rfedfair" and a_alg.step_sizes == ("lr",)
    assert a_alg.hyper["mu"] == 0.2 and np.all(a_alg.hyper["alpha"] == 0.6)
    a, b = a_alg.init(eta0=0.3), b_alg.init(eta0=0.3)
    ra, rb = np.random.default_rng(7), np.random.default_rng(7)
    for _ in range(7):  # two communications with draws, local steps in between
        a, b = a_alg.step(a, ra), b_alg.step(b, rb)
        for name in ("w", "eta", "W", "E", "srv_w_sum", "avg_w_sum"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name
        assert (a.t, a.comms) == (b.t, b.comms)
    assert a.comms == 3
    # right after a broadcast the clients' models are one read-only stride-0 view of the server model
    assert b.W.strides[0] == 0 and not b.W.flags.writeable
    s, hist = run(a_alg, 7, rng=np.random.default_rng(7), w0=None, eta0=0.3, record_losses=False)
    assert np.array_equal(s.w, a.w) and s.t == 7 and hist.comms[-1] == 3


def test_any_separable_aggregator_trains() -> None:
    """TERM through ``aggregator=``: one full-participation step with kappa = 1 is the local step
    ``w - beta dh/df grad f``, ``eta - beta dh/deta`` averaged with p (002 Alg. 1 on the separable form)."""
    prob = _quad()
    A = TERM(prob.p, 2.0)
    alg = R.make(prob, lr=0.05, kappa=1, aggregator=A)
    w = np.random.default_rng(3).normal(size=prob.d)
    s = alg.step(alg.init(w, eta0=0.4), None)
    f, G = prob.losses(w), prob.grads(w)
    dh_df, dh_deta = A.client_grads(f, np.full(prob.n, 0.4))
    assert np.max(np.abs(s.w - prob.p @ (w - 0.05 * dh_df[:, None] * G))) <= 1e-14
    assert abs(float(s.eta) - float(prob.p @ (0.4 - 0.05 * dh_deta))) <= 1e-14
    with pytest.raises(FairtheoryTypeError, match="client_grads"):
        R.make(prob, lr=0.1, kappa=1, aggregator=fedavg_objective(prob.p))
    with pytest.raises(FairtheoryValueError, match="not both"):
        R.make(prob, lr=0.1, kappa=1, alpha=0.5, aggregator=A)
    with pytest.raises(FairtheoryValueError, match="p different"):
        R.make(prob, lr=0.1, kappa=1, aggregator=TERM(np.full(prob.n, 1 / prob.n), 1.0))


def test_aggregator_run_reaches_its_exact_optimum() -> None:
    """rFedFair with the TERM aggregator (kappa = 1, full participation) minimises TERM exactly."""
    from fairtheory.exact.aggregate import solve_aggregator

    prob = _quad(4, 2, seed=5)
    A = TERM(prob.p, 1.0)
    ex = solve_aggregator(prob, A)
    # start eta at the minimising eta of the separable form at w0 (= A(f(w0))): e^{t (f - eta)} stays moderate
    eta0 = A.value(prob.losses(np.zeros(prob.d)))
    res = R.run_rfedfair(prob, T=4002, lr=0.05, kappa=1, aggregator=A, eta0=eta0, record_every=10**9)
    assert A.value(prob.losses(np.asarray(res.state.w))) - ex.value <= 1e-8 * max(1.0, abs(ex.value))


def test_divergence_names_lr() -> None:
    """A step far above 1/L: base.run stops the run and names the step size (or returns the last finite state)."""
    from fairtheory.errors import DivergenceError

    prob = _quad()
    kw = dict(T=2002, lr=1e3, mu=0.1, alpha=0.5, kappa=1)
    with np.errstate(all="ignore"), pytest.raises(DivergenceError, match="lr=1000"):
        R.run_rfedfair(prob, **kw)
    with np.errstate(all="ignore"):
        res = R.run_rfedfair(prob, on_divergence="stop", **kw)
    assert res.history.diverged and np.all(np.isfinite(res.state.w)) and res.state.t < 2002
    assert np.all(np.isfinite(res.w))


def _converges(n: int, m: int, seed: int) -> None:
    """rFedFair's 002 output reaches f*_alpha (exact solver) within mu tau_alpha + optimisation error."""
    from fairtheory.exact.rcfl import solve_rcfl, solve_smoothed_rcfl
    from fairtheory.objectives.qalpha import F_mu, tau_alpha
    from fairtheory.problems.generators import random_logistic
    from fairtheory.sets import CappedSimplex

    prob = random_logistic(n, 3, m, rng=np.random.default_rng(seed))
    alpha, mu = max(0.3, float(prob.p.max())), 0.05
    f_star = solve_rcfl(prob, alpha).certificate["dual_value"]  # lower certificate of f*_alpha
    F_star = solve_smoothed_rcfl(prob, alpha, mu).value          # min F^mu_alpha
    res = R.run_rfedfair(prob, T=2 + 5 * 200, lr=0.05, mu=mu, alpha=alpha, kappa=5, record_every=10**9)
    w, eta = np.asarray(res.w), float(res.eta)
    opt_err = F_mu(prob.losses(w), eta, prob.p, alpha, mu) - F_star
    sub = CappedSimplex.qalpha(prob.p, alpha).support(prob.losses(w)) - f_star
    assert 0.0 <= opt_err <= 0.02          # the algorithm has (nearly) minimised F^mu
    assert sub >= -1e-9
    assert sub <= mu * tau_alpha(prob.p, alpha) + opt_err + 1e-9  # 002 Lemma 2 chain


def test_converges_to_exact_rcfl_small() -> None:
    _converges(6, 15, 3)


def test_converges_to_exact_rcfl_n20() -> None:
    # ~1 s after imports (the first cvxpy solve of a session pays ~3 s of import/compile)
    _converges(20, 15, 3)
