"""Oracles and performance measures of the traced worst-case backend (fairtheory.worstcase.worst_case).

Ground truth: closed forms (gradient descent on smooth strongly convex functions; De Klerk, Glineur & Taylor
2020, Thm 5.3 for relative-inexact gradients) and independent PEPs written here by hand with
``fairtheory.worstcase.sdp.PEP`` in physical units (no normalisation, no tracing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from fairtheory.algorithms import fedavg
from fairtheory.algorithms.base import Algorithm
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.worstcase import worst_case
from fairtheory.worstcase.classes import SmoothStronglyConvex
from fairtheory.worstcase.gram_array import NotRepresentableError
from fairtheory.worstcase.pep_problem import PEPProblem
from fairtheory.worstcase.sdp import PEP, Scalar, Vec, inner, sqnorm

REL = 1e-6  # solver agreement between two independent SDPs (Clarabel tolerance 1e-8, well-scaled data)


def _zero() -> Vec:
    return Vec(np.zeros(0))


def _close(a: float, b: float, rel: float = REL) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def _clients(pep: PEP, Ls: list[float], mus: list[float], p: list[float]) -> tuple[list[Any], list[Vec]]:
    """Hand-written clients at the common optimum 0 (physical units): ``f_i(0) = 0``, ``sum p_i g_i* = 0``."""
    n = len(Ls)
    fs = [pep.function(SmoothStronglyConvex(L, mu)) for L, mu in zip(Ls, mus, strict=True)]
    stars = [pep.vector() for _ in range(n - 1)]
    last = _zero()
    for i in range(n - 1):
        last = last - (p[i] / p[-1]) * stars[i]
    stars.append(last)
    for f, g in zip(fs, stars, strict=True):
        f.add_point(_zero(), g, Scalar())
    return fs, stars


def _heterogeneity(pep: PEP, stars: list[Vec], p: list[float], rho2: float) -> None:
    if len(stars) > 1:
        s = Scalar()
        for pi, g in zip(p, stars, strict=True):
            s = s + pi * sqnorm(g)
        pep.add_le(s - rho2)


def hand_fedavg_round(Ls: list[float], mus: list[float], *, lr: float, D0: float, rho2: float,
                      measure: str = "value") -> float:
    """One FedAvg round, one local step, uniform weights: ``x1 = x0 - lr sum_i p_i grad f_i(x0)``."""
    n = len(Ls)
    p = [1.0 / n] * n
    pep = PEP()
    fs, stars = _clients(pep, Ls, mus, p)
    x0 = pep.vector()
    x1 = x0
    for i in range(n):
        x1 = x1 - (lr * p[i]) * fs[i].grad(x0)
    pep.add_le(sqnorm(x0) - D0)
    _heterogeneity(pep, stars, p, rho2)
    if measure == "value":
        obj = Scalar()
        for i in range(n):
            obj = obj + p[i] * fs[i].value(x1)
    elif measure == "grad_norm":
        g = _zero()
        for i in range(n):
            g = g + p[i] * fs[i].grad(x1)
        obj = sqnorm(g)
    else:
        raise AssertionError(measure)
    pep.maximize(obj)
    sol = pep.solve(tol=1e-9)
    assert sol.solved
    return sol.value


# ------------------------------------------------------------------ 1. per-client classes
def test_per_client_equal_constants_are_the_scalar_class() -> None:
    a = worst_case(fedavg.make, 2, n=2, L=1.0, D0=1.0, rho2=1.0, lr=0.5)
    b = worst_case(fedavg.make, 2, n=2, L=[1.0, 1.0], class_mu=[0.0, 0.0], D0=1.0, rho2=1.0, lr=0.5)
    assert (a.dim, a.n_constraints) == (b.dim, b.n_constraints)
    assert abs(a.value - b.value) <= 1e-12 * a.value
    c = worst_case(fedavg.make, 2, n=2, L=2.0, class_mu=0.25, D0=1.0, rho2=0.5, lr=0.3)
    d = worst_case(fedavg.make, 2, n=2, L=np.array([2.0, 2.0]), class_mu=[0.25, 0.25], D0=1.0, rho2=0.5, lr=0.3)
    assert abs(c.value - d.value) <= 1e-12 * c.value


@pytest.mark.parametrize(("Ls", "mus", "lr", "rho2"), [([1.0, 0.5], [0.0, 0.0], 0.5, 1.0),
                                                       ([2.0, 0.5], [0.0, 0.0], 0.3, 0.7),
                                                       ([1.0, 2.0], [0.1, 0.3], 0.4, 0.5)])
def test_per_client_unequal_against_hand_pep(Ls: list[float], mus: list[float], lr: float, rho2: float) -> None:
    wc = worst_case(fedavg.make, 1, n=2, L=Ls, class_mu=mus, D0=1.0, rho2=rho2, lr=lr)
    hand = hand_fedavg_round(Ls, mus, lr=lr, D0=1.0, rho2=rho2)
    assert _close(wc.value, hand), (wc.value, hand)
    # the scale is the unit of max L_i
    Lm = max(Ls)
    assert _close(wc.scale, Lm * 1.0 + rho2 / Lm, 1e-15)
    # a different class than the scalar one with the largest constant (heterogeneous smoothness matters)
    scalar = worst_case(fedavg.make, 1, n=2, L=Lm, class_mu=min(mus), D0=1.0, rho2=rho2, lr=lr)
    assert wc.value < scalar.value * (1 - 1e-4)


def test_per_client_value_is_still_bracketed() -> None:
    wc = worst_case(fedavg.make, 1, n=2, L=[1.0, 0.5], D0=1.0, rho2=1.0, lr=0.5)
    assert wc.value_is == "upper" and wc.certified()
    assert wc.lower <= wc.value and math.isfinite(wc.upper)


def test_per_client_validation() -> None:
    with pytest.raises(FairtheoryValueError, match="mu"):
        PEPProblem(2, L=[1.0, 0.5], mu=[0.1, 0.5], D0=1.0, rho2=1.0)
    with pytest.raises(FairtheoryValueError, match="L"):
        PEPProblem(2, L=[1.0, 0.5, 2.0], D0=1.0, rho2=1.0)
    with pytest.raises(FairtheoryValueError, match="L"):
        PEPProblem(2, L=[1.0, -0.5], D0=1.0, rho2=1.0)
    with pytest.raises(FairtheoryValueError, match="L"):
        PEPProblem(2, L=[1.0, math.inf], D0=1.0, rho2=1.0)
    with pytest.raises(FairtheoryTypeError, match="L"):
        PEPProblem(2, L="1", D0=1.0, rho2=1.0)
    with pytest.raises(FairtheoryValueError, match="mu"):
        PEPProblem(2, L=1.0, mu=1.0, D0=1.0, rho2=1.0)


# ------------------------------------------------------------------ 2. stochastic gradients
def hand_sgd_step(*, L: float, lr: float, D0: float, sigma2: float, atoms: int) -> float:
    """``x1 = x0 - lr (grad f(x0) + e)``, ``e`` uniform on ``m`` atoms, zero mean, mean square ``<= sigma2``."""
    pep = PEP()
    f = pep.function(L)
    f.add_point(_zero(), _zero(), Scalar())
    x0 = pep.vector()
    g0 = f.grad(x0)
    free = [pep.vector() for _ in range(atoms - 1)]
    last = _zero()
    for u in free:
        last = last - u
    es = [*free, last]
    var = Scalar()
    for e in es:
        var = var + sqnorm(e)
    pep.add_le((1.0 / atoms) * var - sigma2)
    pep.add_le(sqnorm(x0) - D0)
    obj = Scalar()
    for e in es:
        obj = obj + (1.0 / atoms) * f.value(x0 - lr * (g0 + e))
    pep.maximize(obj)
    sol = pep.solve(tol=1e-9)
    assert sol.solved
    return sol.value


@pytest.mark.parametrize(("L", "lr", "D0", "sigma2", "atoms"), [(1.0, 0.75, 1.0, 0.5, 2), (2.0, 0.4, 1.0, 0.3, 2),
                                                                 (1.0, 0.5, 0.5, 1.0, 3)])
def test_sgd_step_against_hand_pep(L: float, lr: float, D0: float, sigma2: float, atoms: int) -> None:
    wc = worst_case(fedavg.make, 1, n=1, L=L, D0=D0, rho2=0.0, sigma2=sigma2, noise_atoms=atoms, lr=lr)
    hand = hand_sgd_step(L=L, lr=lr, D0=D0, sigma2=sigma2, atoms=atoms)
    assert _close(wc.value, hand), (wc.value, hand)
    assert wc.extra["branches"] == atoms and wc.extra["noise_draws"] >= 1
    # noise costs something: the deterministic worst case is smaller
    det = worst_case(fedavg.make, 1, n=1, L=L, D0=D0, rho2=0.0, lr=lr)
    assert det.value < wc.value


@pytest.mark.parametrize(("L", "mu", "h", "N", "D0", "sigma2"), [(1.0, 0.2, 1.0, 2, 1.0, 1.0),
                                                                 (2.0, 0.5, 0.9, 3, 0.5, 0.3)])
def test_sgd_distance_closed_form(L: float, mu: float, h: float, N: int, D0: float, sigma2: float) -> None:
    r"""SGD on ``L``-smooth ``mu``-strongly convex ``f`` with zero-mean noise of variance ``<= sigma2``:
    ``E||x+ - x*||^2 = E||x - h g - x*||^2 + h^2 E||e||^2 <= rho^2 E||x - x*||^2 + h^2 sigma2``,
    ``rho^2 = max((1 - h mu)^2, (1 - h L)^2)``, so ``E||x_N - x*||^2 <= rho^{2N} D0 + h^2 sigma2 sum_{k<N} rho^{2k}``;
    the quadratic of curvature ``mu`` or ``L`` with any two-atom noise attains it (tight)."""
    rho2 = max((1 - h * mu) ** 2, (1 - h * L) ** 2)
    closed = rho2 ** N * D0 + h * h * sigma2 * sum(rho2 ** k for k in range(N))
    wc = worst_case(fedavg.make, N, n=1, L=L, class_mu=mu, D0=D0, rho2=0.0, sigma2=sigma2, lr=h, measure="distance")
    assert _close(wc.value, closed), (wc.value, closed)


def test_sigma2_zero_is_the_deterministic_value_exactly() -> None:
    a = worst_case(fedavg.make, 2, n=2, L=1.0, D0=1.0, rho2=0.5, lr=0.5)
    b = worst_case(fedavg.make, 2, n=2, L=1.0, D0=1.0, rho2=0.5, lr=0.5, sigma2=0.0, noise_atoms=3)
    assert a.value == b.value and a.dim == b.dim and b.value_is == "upper"


def test_noise_only_is_linear_in_sigma2() -> None:
    """``D0 = rho2 = 0``: the worst case is homogeneous of degree 1 in ``sigma2`` (scale ``x -> t x``)."""
    vals = [worst_case(fedavg.make, 2, n=1, L=1.0, D0=0.0, rho2=0.0, sigma2=s2, lr=0.5).value for s2 in (0.5, 2.0)]
    assert vals[0] > 0
    assert abs(vals[1] / vals[0] - 4.0) <= 1e-8


@pytest.mark.parametrize(("n", "rounds"), [(1, 1), pytest.param(1, 2, marks=pytest.mark.slow),
                                           pytest.param(2, 1, marks=pytest.mark.slow)])
def test_more_atoms_contain_fewer(n: int, rounds: int) -> None:
    """A uniform 4-atom law with atoms repeated twice is any uniform 2-atom law: value(m=4) >= value(m=2)."""
    kw = dict(n=n, L=1.0, D0=1.0, rho2=1.0 if n > 1 else 0.0, sigma2=1.0, lr=0.5)
    v2 = worst_case(fedavg.make, rounds, noise_atoms=2, **kw)
    v4 = worst_case(fedavg.make, rounds, noise_atoms=4, **kw)
    assert v4.extra["branches"] == 4 ** (n * rounds) and v2.extra["branches"] == 2 ** (n * rounds)
    assert v4.value >= v2.value * (1 - 1e-6)


@pytest.mark.parametrize(("n", "rounds", "kappa", "max_branches", "match"),
                         [(2, 2, 1, 100, "max_branches"),          # 8^2 leaves per node
                          (2, 4, 2, 4096, "Gram dimension"),       # 8^4 leaves per node: dimension first
                          (1, 4, 1, 10**6, "Gram dimension")])
def test_noise_branches_and_size_are_refused_before_solving(n: int, rounds: int, kappa: int, max_branches: int,
                                                            match: str, monkeypatch: pytest.MonkeyPatch) -> None:
    solves: list[int] = []
    monkeypatch.setattr(PEP, "solve", lambda self, *args, **kw: solves.append(1))
    with pytest.raises(FairtheoryValueError, match=match):
        worst_case(fedavg.make, rounds, n=n, L=1.0, D0=1.0, rho2=1.0 if n > 1 else 0.0, sigma2=1.0, noise_atoms=8,
                   lr=0.5, kappa=kappa, max_branches=max_branches)
    assert solves == []  # refused while tracing: no SDP was solved


def test_noise_outside_a_traced_step_is_refused() -> None:
    prob = PEPProblem(1, L=1.0, D0=1.0, rho2=0.0, sigma2=1.0)
    W = prob.xp.broadcast_to(prob.initial_point()[None, :], (1, prob.d))
    with pytest.raises(NotRepresentableError, match="sigma2"):
        prob.grads_each(W)
    prob.losses_each(W)  # values are exact: no draw


# ------------------------------------------------------------------ 3. inexact gradients
def test_grad_eps_zero_is_exact() -> None:
    a = worst_case(fedavg.make, 2, n=2, L=1.0, D0=1.0, rho2=0.5, lr=0.5)
    b = worst_case(fedavg.make, 2, n=2, L=1.0, D0=1.0, rho2=0.5, lr=0.5, grad_eps=0.0)
    assert a.value == b.value


@pytest.mark.parametrize(("L", "mu", "eps", "N", "D0"), [(1.0, 0.1, 0.1, 2, 1.0), (2.0, 0.5, 0.2, 2, 1.5)])
def test_inexact_gd_tight_rate(L: float, mu: float, eps: float, N: int, D0: float) -> None:
    r"""Relative-inexact GD with ``gamma = 2/(L_eps + mu_eps)`` on ``L``-smooth ``mu``-strongly convex ``f``
    (De Klerk, Glineur & Taylor 2020, Thm 5.3; PEPit's ``wc_inexact_gradient_descent``):
    ``f(x_N) - f* <= rho^{2N} (f(x_0) - f*)``, ``rho = (L_eps - mu_eps)/(L_eps + mu_eps)``, and
    ``f(x_0) - f* <= L/2 ||x_0 - x*||^2``; ``f = L/2 ||x||^2`` with ``d = (1 + eps) grad f`` attains both, so the
    worst case over ``||x_0 - x*||^2 <= D0`` is exactly ``rho^{2N} L D0 / 2``."""
    Le, me = (1 + eps) * L, (1 - eps) * mu
    closed = ((Le - me) / (Le + me)) ** (2 * N) * L * D0 / 2
    wc = worst_case(fedavg.make, N, n=1, L=L, class_mu=mu, D0=D0, rho2=0.0, grad_eps=eps, lr=2 / (Le + me))
    assert _close(wc.value, closed), (wc.value, closed)
    assert wc.value_is == "solver" and not wc.certified()


# ------------------------------------------------------------------ 4. proximal oracle
@dataclass(frozen=True)
class _PPState:
    w: Any
    comms: int = 0


def proximal_point_make(problem: Any, *, gamma: float, accuracy: float | None = None) -> Algorithm:
    """The proximal point method on client 0, written against the array API: ``w+ = prox_{gamma f_0}(w)``."""

    def init(w0: Any = None) -> _PPState:
        return _PPState(w=problem.initial_point() if w0 is None else w0)

    def step(state: _PPState, rng: Any = None) -> _PPState:
        w = state.w
        nxt = problem.prox_each(w[None, :], gamma, clients=np.array([0]), accuracy=accuracy)
        return _PPState(w=nxt[0], comms=state.comms + 1)

    return Algorithm("proximal_point", problem, {"gamma": gamma}, init, step, ("gamma",))


def hand_proximal_point(*, L: float, gamma: float, N: int, D0: float, accuracy: float = 0.0) -> float:
    pep = PEP()
    f = pep.function(L)
    f.add_point(_zero(), _zero(), Scalar())
    x0 = pep.vector()
    x = x0
    for _ in range(N):
        g = pep.vector()
        fv = pep.value()
        if accuracy > 0:
            gw = f.grad(x)
            r = pep.vector()  # r = grad h(x+), ||r|| <= a ||grad h(x)|| = a ||grad f(x)||
            pep.add_le(sqnorm(r) - accuracy ** 2 * sqnorm(gw))
            x = x - gamma * (g - r)
        else:
            x = x - gamma * g
        f.add_point(x, g, fv)
    pep.add_le(sqnorm(x0) - D0)
    pep.maximize(f.value(x))
    sol = pep.solve(tol=1e-9)
    assert sol.solved
    return sol.value


@pytest.mark.parametrize(("L", "gamma", "N", "D0", "acc"), [(2.0, 0.7, 2, 1.3, None), (1.0, 1.0, 2, 1.0, 0.5)])
def test_proximal_point_against_hand_pep(L: float, gamma: float, N: int, D0: float, acc: float | None) -> None:
    wc = worst_case(proximal_point_make, N, n=1, L=L, D0=D0, rho2=0.0, gamma=gamma, accuracy=acc)
    hand = hand_proximal_point(L=L, gamma=gamma, N=N, D0=D0, accuracy=acc or 0.0)
    assert _close(wc.value, hand), (wc.value, hand)
    assert wc.value_is == "solver" and not wc.certified() and wc.params["prox"] is True


def test_proximal_point_prox_identity() -> None:
    """The returned row satisfies ``x = w - gamma grad f(x)`` in the traced problem's own records."""
    prob = PEPProblem(2, L=1.0, D0=1.0, rho2=1.0)
    W = prob.xp.broadcast_to(prob.initial_point()[None, :], (2, prob.d))
    X = prob.prox_each(W, 0.5)
    G = prob.grads_each(X)  # exact gradients at the proximal points, recorded by prox_each
    R = X - (W - 0.5 * G)
    assert X.shape == (2, prob.d) and np.all(R.padded() == 0)
    one = prob.prox_each(W[1:], 0.5, clients=np.array([1]))
    assert np.array_equal(one.padded(), X[1:].padded())  # deterministic oracle
    with pytest.raises(FairtheoryValueError, match="gamma"):
        prob.prox_each(W, 0.0)
    with pytest.raises(FairtheoryValueError, match="accuracy"):
        prob.prox_each(W, 0.5, accuracy=1.0)
    with pytest.raises(FairtheoryValueError, match="gamma"):
        prob.prox_each(W, [0.5, 0.5, 0.5])


# ------------------------------------------------------------------ 5. measures and outputs
@pytest.mark.parametrize(("L", "mu", "h", "N", "D0"), [(1.0, 0.2, 1.5, 3, 1.0), (2.0, 0.5, 0.6, 2, 0.7),
                                                       (2.0, 0.5, 0.9, 2, 1.0)])
def test_gd_distance_closed_form(L: float, mu: float, h: float, N: int, D0: float) -> None:
    """GD on ``L``-smooth ``mu``-strongly convex ``f``: ``||x_N - x*||^2 <= max((1-h mu)^2, (1-h L)^2)^N R^2``,
    attained by a quadratic (tight)."""
    closed = max((1 - h * mu) ** 2, (1 - h * L) ** 2) ** N * D0
    for out in ("last", "best"):  # the distance decreases along GD (h < 2/L): the best iterate is the last
        wc = worst_case(fedavg.make, N, n=1, L=L, class_mu=mu, D0=D0, rho2=0.0, lr=h, measure="distance", output=out)
        assert _close(wc.value, closed), (out, wc.value, closed)
        assert wc.value_is == "solver"


def test_gd_value_best_iterate_closed_form() -> None:
    """GD with ``h = 1/L`` on smooth convex ``f``: values decrease, so the best of ``w_0..w_N`` is ``w_N`` and the
    worst case is Drori & Teboulle's ``L R^2/(4N + 2)``."""
    L, D0, N = 2.0, 1.5, 3
    wc = worst_case(fedavg.make, N, n=1, L=L, D0=D0, rho2=0.0, lr=1 / L, output="best")
    assert _close(wc.value, L * D0 / (4 * N + 2)), wc.value


@pytest.mark.parametrize(("Ls", "lr", "rho2"), [([1.0], 1.0, 0.0), ([1.0, 1.0], 0.5, 1.0), ([2.0, 0.5], 0.3, 0.7)])
def test_grad_norm_against_hand_pep(Ls: list[float], lr: float, rho2: float) -> None:
    n = len(Ls)
    wc = worst_case(fedavg.make, 1, n=n, L=Ls if n > 1 else Ls[0], D0=1.0, rho2=rho2, lr=lr, measure="grad_norm")
    hand = hand_fedavg_round(Ls, [0.0] * n, lr=lr, D0=1.0, rho2=rho2, measure="grad_norm")
    assert _close(wc.value, hand), (wc.value, hand)


def hand_gd_min_measures(*, L: float, h: float, N: int, D0: float, best: bool) -> float:
    """GD, ``n = 1``: the worst ``min(f(x) - f*, ||x - x*||^2, ||grad f(x)||^2)`` over the last (or every) iterate,
    with an epigraph variable ``t``."""
    pep = PEP()
    f = pep.function(L)
    f.add_point(_zero(), _zero(), Scalar())
    xs = [pep.vector()]
    for _ in range(N):
        xs.append(xs[-1] - h * f.grad(xs[-1]))
    t = pep.value()
    for x in (xs if best else xs[-1:]):
        g = f.grad(x)
        for m in (f.value(x), sqnorm(x), inner(g, g)):
            pep.add_le(t - m)
    pep.add_le(sqnorm(xs[0]) - D0)
    pep.maximize(t)
    sol = pep.solve(tol=1e-9)
    assert sol.solved
    return sol.value


@pytest.mark.parametrize("output", ["last", "best"])
def test_minimum_of_measures_against_hand_pep(output: str) -> None:
    L, h, N, D0 = 2.0, 0.4, 2, 1.0
    ms = ["value", "distance", "grad_norm"]
    wc = worst_case(fedavg.make, N, n=1, L=L, D0=D0, rho2=0.0, lr=h, measure=ms, output=output)
    hand = hand_gd_min_measures(L=L, h=h, N=N, D0=D0, best=output == "best")
    assert _close(wc.value, hand), (wc.value, hand)
    singles = [worst_case(fedavg.make, N, n=1, L=L, D0=D0, rho2=0.0, lr=h, measure=m, output=output).value
               for m in ms]
    assert wc.value <= min(singles) * (1 + 1e-6)


# ------------------------------------------------------------------ 6. honest certification
def test_new_options_report_the_solver_value() -> None:
    wc = worst_case(fedavg.make, 1, n=2, L=1.0, D0=1.0, rho2=1.0, lr=0.5, sigma2=0.5)
    assert wc.value_is == "solver" and not wc.certified()
    assert math.isnan(wc.lower) and wc.upper == math.inf
    assert math.isfinite(wc.gap) and abs(wc.gap) <= 1e-4 * max(wc.value, wc.scale)
    assert wc.value == wc.extra["solver_value"]
    assert _close(wc.scale, 1.0 + (1.0 + 0.5) / 1.0, 1e-15)  # S = L D0 + (rho2 + sigma2)/L


@pytest.mark.parametrize("kw", [dict(sigma2=0.5), dict(grad_eps=0.1)])
def test_certificate_refuses_the_new_options(kw: dict[str, Any]) -> None:
    args = dict(n=2, L=1.0, D0=1.0, rho2=1.0, lr=0.5)
    args.update(kw)
    with pytest.raises(FairtheoryValueError, match="certificate"):
        worst_case(fedavg.make, 1, certificate=True, **args)


@pytest.mark.parametrize("kw", [dict(measure="distance"), dict(measure="grad_norm"), dict(measure=["value", "distance"]),
                                dict(output="best"), dict(L=[1.0, 0.5])])
def test_certificate_states_every_measure_output_and_per_client_class(kw: dict[str, Any]) -> None:
    """Other measures, their minimum, the best output and per-client classes are stated and certified: the trusted
    kernel accepts the certificate, whose bound is the solver's value (within the search's tolerance)."""
    from fairtheory_kernel.check import check_proof

    args = dict(n=2, L=1.0, D0=1.0, rho2=1.0, lr=0.5)
    args.update(kw)
    wc = worst_case(fedavg.make, 1, certificate=True, **args)
    assert check_proof(wc.certificate.to_json()) is True
    assert abs(float(wc.certificate.bound) - wc.value) <= 1e-5 * max(1.0, wc.value)


def test_certificate_refuses_prox() -> None:
    with pytest.raises(FairtheoryValueError, match="certificate.*prox"):
        worst_case(proximal_point_make, 1, n=1, L=1.0, D0=1.0, rho2=0.0, gamma=1.0, certificate=True)


# ------------------------------------------------------------------ 7. validation
@pytest.mark.parametrize(("kw", "name"), [(dict(sigma2=-1.0), "sigma2"), (dict(sigma2=math.inf), "sigma2"),
                                          (dict(sigma2=1.0, noise_atoms=1), "noise_atoms"),
                                          (dict(sigma2=1.0, noise_atoms=9), "noise_atoms"),
                                          (dict(sigma2=1.0, noise_atoms=2.5), "noise_atoms"),
                                          (dict(grad_eps=1.0), "grad_eps"), (dict(grad_eps=-0.1), "grad_eps"),
                                          (dict(measure="loss"), "measure"), (dict(measure=[]), "measure"),
                                          (dict(output="first"), "output")])
def test_validation_names_the_argument(kw: dict[str, Any], name: str) -> None:
    with pytest.raises((FairtheoryValueError, FairtheoryTypeError), match=name):
        worst_case(fedavg.make, 1, n=1, L=1.0, D0=1.0, rho2=0.0, lr=0.5, **kw)


def test_noise_alone_is_allowed_but_nothing_is_refused() -> None:
    with pytest.raises(FairtheoryValueError, match="all 0"):
        PEPProblem(1, L=1.0, D0=0.0, rho2=0.0)
    assert PEPProblem(1, L=1.0, D0=0.0, rho2=0.0, sigma2=1.0).unit == 1.0
