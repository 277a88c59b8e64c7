"""The traced PEP backend: symbolic Gram arrays, PEPProblem and worst_case(make, ...) against independent truths
(hand-written PEPs, Drori & Teboulle's closed form, replay with numpy on the extracted worst case)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from fairtheory.algorithms import fedavg, fedfv, qfedavg, scaffold
from fairtheory.backend import like, namespace, scatter_add, to_numpy
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.worstcase import PEPProblem, local_gd_worst_case, worst_case
from fairtheory.worstcase.gram_array import GramArray, NotRepresentableError, ValueArray
from fairtheory.worstcase.scaffold import scaffold_worst_case

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "fairtheory-propfair"


def rel(a: float, b: float) -> float:
    return abs(a - b) / abs(b)


# ------------------------------------------------------------------------------------------ twins
@pytest.mark.parametrize("n,kappa,T,lr,rho2,p,K,out", [
    (2, 2, 2, 0.5, 1.0, None, None, "last"),
    (3, 2, 2, 0.5, 4.0, (0.5, 0.3, 0.2), None, "last"),
    (2, 2, 2, 0.5, 1.0, (0.3, 0.7), None, "average"),
    (2, 2, 2, 0.5, 1.0, None, 1, "last"),
])
def test_fedavg_twin(n, kappa, T, lr, rho2, p, K, out) -> None:
    tr = worst_case(fedavg.make, T, n=n, L=1.0, D0=1.0, rho2=rho2, p=p, output=out, lr=lr, kappa=kappa, K=K)
    hw = local_gd_worst_case(n=n, kappa=kappa, T_N=T - 1, lr=lr, L=1.0, D0=1.0, rho2=rho2, p=p, K=K,
                             output="last" if out == "last" else "average", schedule="fedavg")
    assert tr.certified() and hw.certified()
    assert rel(tr.value, hw.value) <= 1e-6
    assert tr.dim == hw.dim and tr.extra["branches"] == hw.extra["branches"]


@pytest.mark.parametrize("warm,out,eg", [(True, "last", 1.0), (False, "average", 0.5)])
def test_scaffold_twin(warm, out, eg) -> None:
    tr = worst_case(scaffold.make, 2, n=2, L=2.0, D0=0.5, rho2=3.0, output="last" if out == "last" else "average",
                    start={"warm_start": warm}, kappa=2, lr=0.25, server_lr=eg)
    hw = scaffold_worst_case(n=2, kappa=2, R=2, lr=0.25, server_lr=eg, L=2.0, D0=0.5, rho2=3.0, warm_start=warm,
                             output=out)
    assert rel(tr.value, hw.value) <= 1e-6


@pytest.mark.parametrize("N", [1, 2, 4])
def test_gradient_descent_closed_form(N) -> None:
    """n = 1, kappa = 1, lr = 1/L: gradient descent, exact worst case L D0/(4N + 2) (Drori & Teboulle 2014)."""
    L, D0 = 2.0, 3.0
    wc = worst_case(fedavg.make, N, n=1, L=L, D0=D0, rho2=0.0, lr=1.0 / L)
    assert rel(wc.value, L * D0 / (4 * N + 2)) <= 1e-6


def test_strongly_convex_between_quadratics_and_convex() -> None:
    """mu > 0: at least the best 1-D quadratic of curvature in [mu, L], at most the mu = 0 worst case; the
    extracted points satisfy the mu-strongly convex L-smooth interpolation conditions."""
    L, mu, D0, N = 1.0, 0.2, 1.0, 2
    wc = worst_case(fedavg.make, N, n=1, L=L, class_mu=mu, D0=D0, rho2=0.0, lr=1.0, return_instance=True)
    convex = worst_case(fedavg.make, N, n=1, L=L, D0=D0, rho2=0.0, lr=1.0)
    lam = np.linspace(mu, L, 2001)
    quad = float(np.max(lam / 2 * (1 - lam / L) ** (2 * N) * D0))
    assert quad * (1 - 1e-6) <= wc.value <= convex.value * (1 + 1e-6)
    assert wc.value < 0.9 * convex.value
    pts = wc.instance.points[0]
    worst = 0.0
    for xj, gj, fj in pts:
        for xk, gk, fk in pts:
            # f_j >= f_k + <g_k, x_j - x_k> + 1/(2(1 - mu/L)) (|g_j - g_k|^2/L + mu |x_j - x_k|^2 - 2 mu/L <g_j - g_k, x_j - x_k>)
            dg, dx = gj - gk, xj - xk
            rhs = fk + gk @ dx + (dg @ dg / L + mu * dx @ dx - 2 * mu / L * dg @ dx) / (2 * (1 - mu / L))
            worst = max(worst, rhs - fj)
    assert worst <= 1e-6


def test_replay_reaches_the_pep_value() -> None:
    from fairtheory.algorithms.base import run
    from fairtheory.worstcase.replay import InterpolatedProblem

    wc = worst_case(fedavg.make, 3, n=2, L=2.0, D0=0.5, rho2=3.0, lr=0.3, kappa=2, return_instance=True)
    P = InterpolatedProblem(wc.instance)
    state, _ = run(fedavg.make(P, lr=0.3, kappa=2), 3, w0=wc.instance.x0, record_losses=False)
    assert rel(P.G(np.asarray(state.w)), wc.value) <= 1e-4


def test_partial_participation_scaffold_branches() -> None:
    """Scaffold with K = 1 draw of 2 clients: 2 branches per round (4 leaves after 2 rounds); the expected worst
    case is solved and at least the identical-client (rho2 = 0) one of the same draws."""
    het = worst_case(scaffold.make, 2, n=2, L=1.0, D0=1.0, rho2=4.0, kappa=2, lr=0.5, K=1,
                     start={"warm_start": True})
    same = worst_case(scaffold.make, 2, n=2, L=1.0, D0=1.0, rho2=0.0, kappa=2, lr=0.5, K=1,
                      start={"warm_start": True})
    assert het.extra["branches"] == 4 and het.certified() and same.certified()
    assert het.value >= same.value * (1 - 1e-6) > 0


def test_plugin_method_worst_case() -> None:
    sys.path.insert(0, str(EXAMPLE))
    try:
        from fairtheory_propfair.methods import fedavgm_make
    finally:
        sys.path.remove(str(EXAMPLE))
    a = worst_case(fedavgm_make, 3, n=2, L=1.0, D0=1.0, rho2=1.0, lr=0.5, kappa=2, momentum=0.0)
    b = worst_case(fedavg.make, 3, n=2, L=1.0, D0=1.0, rho2=1.0, lr=0.5, kappa=2)
    assert rel(a.value, b.value) <= 1e-6
    c = worst_case(fedavgm_make, 3, n=2, L=1.0, D0=1.0, rho2=1.0, lr=0.5, kappa=2, momentum=0.9)
    assert c.certified() and c.value > a.value  # heavy momentum overshoots in the worst case


# ------------------------------------------------------------------------------------------ refusals
@pytest.mark.parametrize("make,hyper,name", [
    (fedfv.make, {"lr": 0.5}, "fedfv"),
    (qfedavg.make, {"q": 1.0, "lr": 0.5}, "qfedavg"),
])
def test_nonlinear_methods_are_refused(make, hyper, name) -> None:
    with pytest.raises(NotRepresentableError, match=rf"^{name}\.make: .*not PEP-representable"):
        worst_case(make, 2, n=2, L=1.0, D0=1.0, rho2=1.0, **hyper)


def test_gradient_noise_is_refused() -> None:
    with pytest.raises(NotRepresentableError, match=r"rng\.normal"):
        worst_case(scaffold.make, 1, n=2, L=1.0, D0=1.0, rho2=1.0, kappa=1, lr=0.5, grad_noise=0.1)


def test_projection_style_user_method_is_refused() -> None:
    from fairtheory.algorithms.base import Algorithm

    def make(problem, *, lr):
        def step(state, rng=None):
            w = state.w
            g = problem.grads(w)
            d = g[0] - (g[0] @ g[1]) / (g[1] @ g[1]) * g[1]  # a projection (FedFV / PCGrad style)
            return type(state)(w - lr * d)

        from fairtheory.algorithms.fedavg import State

        return Algorithm("proj", problem, {"lr": lr}, lambda w0=None: State(problem.initial_point()), step)

    with pytest.raises(NotRepresentableError, match=r"inner product of two symbolic arrays"):
        worst_case(make, 1, n=2, L=1.0, D0=1.0, rho2=1.0, lr=0.5)


def test_arguments_are_checked() -> None:
    with pytest.raises(FairtheoryValueError, match="output"):
        worst_case(fedavg.make, 1, n=2, L=1.0, D0=1.0, rho2=1.0, output="avg", lr=0.5)
    with pytest.raises(FairtheoryValueError, match="rounds"):
        worst_case(fedavg.make, 0, n=2, L=1.0, D0=1.0, rho2=1.0, lr=0.5)
    with pytest.raises(FairtheoryTypeError, match="make must be callable"):
        worst_case(None, 1, n=2, L=1.0, D0=1.0, rho2=1.0)
    with pytest.raises(FairtheoryValueError, match="mu"):
        PEPProblem(2, L=1.0, mu=1.0, D0=1.0, rho2=0.0)
    with pytest.raises(FairtheoryValueError, match="Gram dimension"):  # refused before any large allocation
        worst_case(fedavg.make, 1, n=2, L=1.0, D0=1.0, rho2=1.0, lr=0.5, kappa=100_000)
    with pytest.raises(FairtheoryValueError, match="max_branches"):
        worst_case(fedavg.make, 3, n=3, L=1.0, D0=1.0, rho2=1.0, lr=0.5, K=2, max_branches=50)


# ------------------------------------------------------------------------------------------ the arrays
def _problem() -> PEPProblem:
    return PEPProblem(3, L=1.0, D0=1.0, rho2=1.0)


def test_linear_operations_act_on_coefficients() -> None:
    P = _problem()
    w = P.initial_point()
    xp = namespace(w)
    assert xp is P.xp and w.shape == (P.d,)
    W = xp.broadcast_to(w[None, :], (3, P.d))
    G = P.grads_each(W)
    assert isinstance(G, GramArray) and G.shape == (3, P.d) and P.pep.dim == 2 + 1 + 3  # stars, x0, 3 gradients
    p = like(P.p, w)
    assert isinstance(p, np.ndarray) and p.dtype == np.float64
    avg = w + p @ (W - 0.5 * G - w)
    np.testing.assert_allclose(avg.padded(), (w.padded() - 0.5 * P.p @ G.padded()))
    np.testing.assert_allclose((np.float64(2.0) * w - w).padded(), w.padded())
    np.testing.assert_allclose((P.p[:, None] * G).padded(), P.p[:, None] * G.padded())
    np.testing.assert_allclose(G.sum(axis=0).padded(), xp.sum(G, axis=0).padded())
    np.testing.assert_allclose(xp.stack([w, w], axis=0).padded(), np.stack([w.padded()] * 2))
    S = scatter_add(3, np.array([2, 0]), G[np.array([0, 1])])
    np.testing.assert_allclose(S.padded(), np.stack([G.padded()[1], np.zeros(P.pep.dim), G.padded()[0]]))
    H = xp.zeros((3, P.d))
    H[1] = G[2]
    np.testing.assert_allclose(H.padded()[1], G.padded()[2])
    assert (w + 0.0).padded().tolist() == w.padded().tolist()
    f = P.losses(w)
    assert isinstance(f, ValueArray) and f.shape == (3,)
    # a second evaluation at the same point asks no new symbols
    dim = P.pep.dim
    P.grads(w)
    assert P.pep.dim == dim


@pytest.mark.parametrize("op,match", [
    (lambda w, G: w @ w, "inner product"),
    (lambda w, G: G * G, "two symbolic arrays"),
    (lambda w, G: w + np.array([1.0, 2.0]), "nonzero constant"),
    (lambda w, G: w * np.array([1.0, 2.0]), "coordinate-wise"),
    (lambda w, G: G.sum(axis=1), "model axis"),
    (lambda w, G: w[0], "model axis"),
    (lambda w, G: float(w), "float"),
    (lambda w, G: to_numpy(w), "numbers"),
    (lambda w, G: np.linalg.norm(w), "numbers"),
    (lambda w, G: np.exp(w), "ufunc exp"),
    (lambda w, G: w > 0, "comparison"),
    (lambda w, G: namespace(w).linalg, "xp.linalg"),
    (lambda w, G: namespace(w).sort(G), "xp.sort"),
])
def test_nonlinear_operations_name_themselves(op, match) -> None:
    P = _problem()
    w = P.initial_point()
    G = P.grads(w)
    with pytest.raises(NotRepresentableError, match=match):
        res = op(w, G)
        if callable(res):
            res()


def test_division_by_zero_is_named() -> None:
    P = _problem()
    w = P.initial_point()
    with pytest.raises(FairtheoryValueError, match="by zero"):
        w / 0.0
    with pytest.raises(FairtheoryValueError, match="by zero"):
        P.grads(w) / np.array([[1.0], [0.0], [2.0]])
    with pytest.raises(FairtheoryValueError, match="by zero"):
        P.losses(w) / 0.0


def test_values_refuse_numbers() -> None:
    P = _problem()
    f = P.losses(P.initial_point())
    s = like(P.p, f) @ f
    assert isinstance(s, ValueArray)
    with pytest.raises(NotRepresentableError, match="power of the losses"):
        f ** 2.0
    with pytest.raises(NotRepresentableError, match="weights computed from the losses"):
        np.asarray(f)


def _fedprox_make(problem, *, lr, kappa, prox):
    """FedProx-style local steps ``w_i <- w_i - lr (grad f_i(w_i) + prox (w_i - w))`` (a user-written method)."""
    from fairtheory.algorithms.base import Algorithm, initial_model
    from fairtheory.algorithms.fedavg import State

    def step(state, rng=None):
        w = state.w
        W = namespace(w).broadcast_to(w[None, :], (problem.n, problem.d))
        for _ in range(kappa):
            W = W - lr * (problem.grads_each(W) + prox * (W - w[None, :]))
        return State(w=like(problem.p, w) @ W, comms=state.comms + 1)

    return Algorithm("fedprox", problem, {"lr": lr, "kappa": kappa, "prox": prox},
                     lambda w0=None: State(w=initial_model(problem, w0)), step)


def test_fedprox_style_method() -> None:
    from fairtheory.algorithms.base import run
    from fairtheory.worstcase.replay import InterpolatedProblem

    zero = worst_case(_fedprox_make, 2, n=2, L=1.0, D0=1.0, rho2=4.0, lr=0.5, kappa=3, prox=0.0)
    fa = worst_case(fedavg.make, 2, n=2, L=1.0, D0=1.0, rho2=4.0, lr=0.5, kappa=3)
    assert rel(zero.value, fa.value) <= 1e-9  # the same SDP
    wc = worst_case(_fedprox_make, 2, n=2, L=1.0, D0=1.0, rho2=4.0, lr=0.5, kappa=3, prox=1.0, return_instance=True)
    assert wc.certified() and wc.value < zero.value  # the proximal term limits client drift
    P = InterpolatedProblem(wc.instance)
    state, _ = run(_fedprox_make(P, lr=0.5, kappa=3, prox=1.0), 2, w0=wc.instance.x0, record_losses=False)
    assert rel(P.G(np.asarray(state.w)), wc.value) <= 1e-4


@pytest.mark.parametrize("replace", [True, False])
def test_choice_outcomes_are_a_distribution(replace) -> None:
    """Every multiset (with replacement) or set (without) once; probabilities sum to 1 and match sampling."""
    from fairtheory.worstcase.traced import _choice_outcomes

    p = np.array([0.5, 0.3, 0.2])
    out = _choice_outcomes(3, 2, replace, p)
    assert abs(sum(q for q, _ in out) - 1.0) <= 1e-12
    assert len(out) == (6 if replace else 3)
    draws = np.sort(np.random.default_rng(0).choice(3, size=(20000, 2), replace=True, p=p), axis=1) if replace else \
        np.sort(np.array([np.random.default_rng(i).choice(3, size=2, replace=False, p=p) for i in range(4000)]), axis=1)
    for q, v in out:
        freq = float(np.mean(np.all(draws == np.sort(v), axis=1)))
        assert abs(freq - q) <= 0.03


def test_certificate_of_the_traced_pep() -> None:
    """certificate=True: exact rational multipliers; the runner's checker accepts the JSON form, the bound is
    within 1e-6 of the value and equals the hand-written PEP's certified bound (same SDP data, dyadic lr, p)."""
    from fairtheory_kernel.check import check_proof

    wc = worst_case(fedavg.make, 2, n=2, L=1.0, D0=1.0, rho2=1.0, lr=0.5, kappa=2, certificate=True)
    cert = wc.certificate
    assert cert.check() and check_proof(cert.to_json())
    assert 0 <= cert.rel_excess <= 1e-6
    hw = local_gd_worst_case(n=2, kappa=2, T_N=1, lr=0.5, L=1.0, D0=1.0, rho2=1.0, output="last", schedule="fedavg",
                             certificate=True)
    assert rel(float(cert.bound), float(hw.certificate.bound)) <= 1e-6
    bad = cert.to_json()
    bad["evidence"]["multipliers"] = bad["evidence"]["multipliers"][:-1]
    assert not check_proof(bad)


def test_refusal_claim_needs_no_torch() -> None:
    """The default verify run installs no torch: the non-linear refusal claim (FedFV indexes its history)
    must not import it (found by the README main command on a fresh clone)."""
    import subprocess
    import sys

    code = ("import sys\n"
            "class _NoTorch:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'torch' or name.startswith('torch.'):\n"
            "            raise ModuleNotFoundError(\"No module named 'torch'\")\n"
            "sys.meta_path.insert(0, _NoTorch())\n"
            "from verify.core import Context, run_claim\n"
            "from verify.plugins import load_builtin\n"
            "assert not load_builtin()\n"
            "r = run_claim('worstcase.traced.refuses_nonlinear', Context(quick=True, seed=0))\n"
            "assert r.status == 'verified', (r.status, r.note)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]


@pytest.mark.slow
def test_fedavg_twin_partial_average_certified() -> None:
    """verify --full's setting n = 2, kappa = 1, T = 2, lr = 1, p = (0.2, 0.8), K = 2, "average": the dense solves
    stall AlmostSolved 1e-6 low; the rescaled re-solves alone left brackets 1.8e-6 and 5.4e-6 wide whose upper ends
    differed by 3.6e-6 relative (the claim read refuted).  With the sparse route as first re-solve both are certified
    and their brackets contain SDPA-GMP's 0.32327417054954505 (200 bits, same PEP, 57 s, computed outside the test)."""
    kw = dict(n=2, L=1.0, D0=1.0, rho2=1.0, p=(0.2, 0.8), K=2)
    tr = worst_case(fedavg.make, 2, output="average", lr=1.0, kappa=1, **kw)
    hw = local_gd_worst_case(kappa=1, T_N=1, lr=1.0, output="average", schedule="fedavg", **kw)
    gmp = 0.32327417054954505
    for r in (tr, hw):
        assert r.certified() and r.lower <= gmp <= r.upper
        assert "sparse route" in r.extra["solves"]
    assert rel(tr.value, hw.value) <= 1e-6
