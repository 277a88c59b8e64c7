"""Projections onto a closed convex set in the traced worst-case backend (``worst_case(..., constrained=True)``,
``PEPProblem.project_each``).

Ground truth: closed forms (Taylor, Hendrickx & Glineur 2018, JOTA 178: the proximal gradient method with step
``1/L`` on ``f + h``, ``f`` ``L``-smooth convex, ``h`` closed convex, has the tight worst case
``F(x_N) - F* = L R^2/(4N)``; projected gradient is the case ``h = i_C``.  Strongly convex: the projection is
nonexpansive and ``x* = P_C(x* - h grad F(x*))``, so ``||x_N - x*||^2 <= max((1 - h mu)^2, (1 - h L)^2)^N R^2``, attained
with ``C = R^d`` by a quadratic) and independent PEPs written here by hand with ``fairtheory.worstcase.sdp.PEP``
in physical units (clients of ``classes.SmoothStronglyConvex``, the set a ``classes.ConvexIndicator`` with
``Function.project``; no normalisation, no tracing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from fairtheory.algorithms import fedavg
from fairtheory.algorithms.base import Algorithm
from fairtheory.backend import like
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.worstcase import worst_case
from fairtheory.worstcase.classes import ConvexIndicator, SmoothStronglyConvex
from fairtheory.worstcase.gram_array import NotRepresentableError
from fairtheory.worstcase.pep_problem import PEPProblem
from fairtheory.worstcase.sdp import PEP, Scalar, Vec, sqnorm
from fairtheory.worstcase.traced import trace

REL = 1e-6  # agreement of two independent SDPs / an SDP and a closed form (Clarabel tolerance 1e-8 / 1e-9)


def _zero() -> Vec:
    return Vec(np.zeros(0))


def _close(a: float, b: float, rel: float = REL) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


# ------------------------------------------------------------------ the methods, written against the array API
@dataclass(frozen=True)
class _State:
    w: Any
    comms: int = 0


def projected_gd_make(problem: Any, *, lr: float) -> Algorithm:
    """Projected gradient descent on client 0: ``w+ = P_C(w - lr grad f_0(w))``."""

    def init(w0: Any = None) -> _State:
        return _State(w=problem.initial_point() if w0 is None else w0)

    def step(state: _State, rng: Any = None) -> _State:
        w = state.w
        g = problem.grads_each(w[None, :], clients=np.array([0]))[0]
        return _State(w=problem.project(w - lr * g), comms=state.comms + 1)

    return Algorithm("projected_gd", problem, {"lr": lr}, init, step, ("lr",))


def projected_fedavg_make(problem: Any, *, lr: float, kappa: int = 1) -> Algorithm:
    """Projected FedAvg: every client runs ``kappa`` (unprojected) local gradient steps from ``w``, the server
    projects the ``p``-weighted average: ``w+ = P_C(sum_i p_i w_i)``."""
    n, d = problem.n, problem.d

    def init(w0: Any = None) -> _State:
        return _State(w=problem.initial_point() if w0 is None else w0)

    def step(state: _State, rng: Any = None) -> _State:
        w = state.w
        W = problem.xp.broadcast_to(w[None, :], (n, d))
        for _ in range(kappa):
            W = W - lr * problem.grads_each(W)
        avg = w + like(np.asarray(problem.p, dtype=np.float64), w) @ (W - w)
        return _State(w=problem.project_each(avg[None, :], clients=np.array([0]))[0], comms=state.comms + 1)

    return Algorithm("projected_fedavg", problem, {"lr": lr, "kappa": kappa}, init, step, ("lr",))


# ------------------------------------------------------------------ independent hand-written PEPs (physical units)
def hand_projected_fedavg(Ls: list[float], mus: list[float], p: list[float], *, lr: float, kappa: int, T: int,
                          D0: float, rho2: float, measure: str = "value", output: str = "last") -> float:
    """``n`` clients ``f_i`` (``SmoothStronglyConvex(L_i, mu_i)``), ``C`` an arbitrary closed convex set
    (``ConvexIndicator``), ``x* = 0`` minimising ``sum_i p_i f_i`` over ``C``: the ``g_i* = grad f_i(x*)`` are free
    and ``-sum_i p_i g_i*`` is a normal vector of ``C`` at ``x*``; ``||x0||^2 <= D0`` (``x0`` anywhere),
    ``sum_i p_i ||g_i*||^2 <= rho2``; ``T`` rounds of projected FedAvg (``n = 1, kappa = 1``: projected GD)."""
    n = len(Ls)
    pep = PEP()
    fs = [pep.function(SmoothStronglyConvex(L, mu)) for L, mu in zip(Ls, mus, strict=True)]
    ind = pep.function(ConvexIndicator())
    stars = [pep.vector() for _ in range(n)]
    normal = _zero()
    for f, g, pi in zip(fs, stars, p, strict=True):
        f.add_point(_zero(), g, Scalar())
        normal = normal - pi * g
    ind.add_point(_zero(), normal, Scalar())
    x0 = pep.vector()
    xs = [x0]
    for _ in range(T):
        w = xs[-1]
        loc = [w] * n
        for _ in range(kappa):
            loc = [x - lr * f.grad(x) for f, x in zip(fs, loc, strict=True)]
        avg = _zero()
        for pi, x in zip(p, loc, strict=True):
            avg = avg + pi * x
        xs.append(ind.project(avg))
    pep.add_le(sqnorm(x0) - D0)
    het = Scalar()
    for pi, g in zip(p, stars, strict=True):
        het = het + pi * sqnorm(g)
    pep.add_le(het - rho2)
    out = xs[-1] if output == "last" else (1.0 / T) * _sum(xs[1:])
    if measure == "value":
        obj = Scalar()
        for pi, f in zip(p, fs, strict=True):
            obj = obj + pi * f.value(out)
    elif measure == "distance":
        obj = sqnorm(out)
    else:
        raise AssertionError(measure)
    pep.maximize(obj)
    sol = pep.solve(tol=1e-9)
    assert sol.status in ("Solved", "AlmostSolved"), sol.status
    return sol.value


def _sum(vs: list[Vec]) -> Vec:
    out = _zero()
    for v in vs:
        out = out + v
    return out


# ------------------------------------------------------------------ (a) projected GD, smooth convex
@pytest.mark.parametrize(("L", "D0", "N"), [(2.0, 1.5, 1), (2.0, 1.5, 2), (1.0, 1.0, 3)])
def test_projected_gd_value_closed_form(L: float, D0: float, N: int) -> None:
    """Step ``1/L``: ``f(x_N) - f* = L R^2/(4N)`` (Taylor, Hendrickx & Glineur 2018, tight), with ``rho2 = L^2 D0``,
    which leaves the bound on ``||grad f(x*)||^2`` inactive (the worst case is homogeneous and its instance has
    ``||grad f(x*)||^2 < L^2 R^2``); strictly above gradient descent's ``L R^2/(4N + 2)``."""
    rho2 = L * L * D0
    wc = worst_case(projected_gd_make, N, n=1, L=L, D0=D0, rho2=rho2, lr=1 / L, constrained=True)
    hand = hand_projected_fedavg([L], [0.0], [1.0], lr=1 / L, kappa=1, T=N, D0=D0, rho2=rho2)
    closed = L * D0 / (4 * N)
    assert _close(wc.value, hand), (wc.value, hand)
    assert _close(wc.value, closed), (wc.value, closed)
    assert wc.value > L * D0 / (4 * N + 2) * (1 + 1e-3)
    assert wc.value_is == "solver" and not wc.certified() and math.isnan(wc.lower) and wc.upper == math.inf
    assert wc.params["constrained"] is True and wc.extra["projections"] == N


@pytest.mark.parametrize("N", [1, 2])
def test_projected_gd_rho2_zero(N: int) -> None:
    """``rho2 = 0``: ``grad f(x*) = 0``.  Equal to the hand PEP; ``C = R^d`` is allowed, so at least gradient
    descent's tight ``L R^2/(4N + 2)`` (Drori & Teboulle 2014) - and, measured, exactly it."""
    L, D0 = 2.0, 1.5
    wc = worst_case(projected_gd_make, N, n=1, L=L, D0=D0, rho2=0.0, lr=1 / L, constrained=True)
    hand = hand_projected_fedavg([L], [0.0], [1.0], lr=1 / L, kappa=1, T=N, D0=D0, rho2=0.0)
    assert _close(wc.value, hand), (wc.value, hand)
    assert _close(wc.value, L * D0 / (4 * N + 2)), wc.value


def test_value_grows_with_rho2() -> None:
    """A larger bound on ``||grad f(x*)||^2`` is a larger class: the worst case cannot decrease."""
    vals = [worst_case(projected_gd_make, 1, n=1, L=2.0, D0=1.5, rho2=r, lr=0.5, constrained=True).value
            for r in (0.0, 0.5, 6.0)]
    assert vals[0] < vals[1] * (1 - 1e-3) and vals[1] < vals[2] * (1 - 1e-3)
    assert _close(vals[2], 2.0 * 1.5 / 4)


# ------------------------------------------------------------------ (b) strongly convex: distance contraction
@pytest.mark.parametrize(("L", "mu", "h", "N", "D0", "rho2"), [(1.0, 0.2, 1.5, 3, 1.0, 1.0),
                                                               (2.0, 0.5, 0.6, 2, 0.7, 3.0),
                                                               (2.0, [0.5], 0.9, 2, 1.0, 0.5)])
def test_projected_gd_distance_contraction(L: float, mu: Any, h: float, N: int, D0: float, rho2: float) -> None:
    """``||x_N - x*||^2 <= max((1 - h mu)^2, (1 - h L)^2)^N R^2`` whatever ``C`` and ``grad f(x*)`` (projection
    nonexpansive, ``x*`` a fixed point of the projected step); ``C = R^d`` and a quadratic attain it."""
    m = mu[0] if isinstance(mu, list) else mu
    closed = max((1 - h * m) ** 2, (1 - h * L) ** 2) ** N * D0
    wc = worst_case(projected_gd_make, N, n=1, L=L, class_mu=mu, D0=D0, rho2=rho2, lr=h, measure="distance",
                    constrained=True)
    assert _close(wc.value, closed), (wc.value, closed)
    assert wc.value_is == "solver"


def test_projected_fedavg_distance_per_client_classes() -> None:
    """One local step: projected GD on ``F = sum_i p_i f_i``, ``(sum_i p_i mu_i)``-strongly convex and
    ``(sum_i p_i L_i)``-smooth: the same contraction with the averaged constants (tight: each ``f_i`` a quadratic
    with curvatures ``mu_i`` and ``L_i`` on two common axes, ``C = R^d``), for any ``rho2``; also the hand PEP."""
    Ls, mus, p, h, T, D0, rho2 = [1.0, 2.0], [0.1, 0.3], [0.5, 0.5], 0.7, 2, 1.0, 0.8
    mb, Lb = float(np.dot(p, mus)), float(np.dot(p, Ls))
    closed = max((1 - h * mb) ** 2, (1 - h * Lb) ** 2) ** T * D0
    wc = worst_case(projected_fedavg_make, T, n=2, L=Ls, class_mu=mus, D0=D0, rho2=rho2, lr=h, measure="distance",
                    constrained=True)
    hand = hand_projected_fedavg(Ls, mus, p, lr=h, kappa=1, T=T, D0=D0, rho2=rho2, measure="distance")
    assert _close(wc.value, closed), (wc.value, closed)
    assert _close(wc.value, hand), (wc.value, hand)


# ------------------------------------------------------------------ (c) constrained=False changes nothing
def _fedavg_export(**kw: Any) -> dict[str, Any]:
    """The SDP data of two FedAvg rounds (``kappa = 2``) traced on ``PEPProblem(**kw)``, assembled as
    ``worst_case`` assembles them."""
    prob = PEPProblem(2, L=1.0, D0=0.5, rho2=0.5, **kw)
    tr = trace(fedavg.make, 2, prob, lr=0.5, kappa=2)
    c1, c2 = prob.constraints()
    prob.pep.add_le(c1)
    assert c2 is not None
    prob.pep.add_le(c2)
    prob.pep.maximize(tr.objective)
    return prob.pep.export()


def _hand_fedavg_export() -> dict[str, Any]:
    """The same two FedAvg rounds written by hand, unconstrained (``L = 1``, ``S = L D0 + rho2/L = 1``, so the
    normalised units are the physical ones): the optimum gradients sum to 0 (``n - 1`` basis vectors)."""
    pep = PEP()
    fs, stars = pep.clients_at_optimum(2, [0.5, 0.5], 1.0)
    x0 = pep.vector()
    w = x0
    for _ in range(2):
        loc = [w, w]
        for _ in range(2):
            loc = [x - 0.5 * f.grad(x) for f, x in zip(fs, loc, strict=True)]
        w = w + (0.5 * (loc[0] - w) + 0.5 * (loc[1] - w))
    pep.add_le(sqnorm(x0) - 0.5)
    pep.add_le(0.5 * sqnorm(stars[0]) + 0.5 * sqnorm(stars[1]) - 0.5)
    obj = Scalar()
    for f in fs:
        obj = obj + 0.5 * f.value(w)
    pep.maximize(obj)
    return pep.export()


def test_unconstrained_sdp_data_unchanged() -> None:
    default = _fedavg_export()
    assert _fedavg_export(constrained=False) == default
    assert _hand_fedavg_export() == default  # bit for bit, as before this option existed
    cons = _fedavg_export(constrained=True)
    assert cons != default and cons["dim"] == default["dim"] + 1  # one more free optimum gradient


def test_unconstrained_value_unchanged() -> None:
    kw = dict(n=2, L=1.0, D0=1.0, rho2=1.0, lr=0.5, kappa=2)
    a = worst_case(fedavg.make, 2, **kw)
    b = worst_case(fedavg.make, 2, constrained=False, **kw)
    assert a.value == b.value and a.dim == b.dim and a.value_is == b.value_is == "upper" and b.certified()
    assert "constrained" not in b.params and "projections" not in b.extra


# ------------------------------------------------------------------ (d) projected FedAvg against a hand PEP
@pytest.mark.parametrize(("Ls", "mus", "p", "lr", "kappa", "T", "rho2", "measure", "output"), [
    ([1.0, 1.0], [0.0, 0.0], [0.5, 0.5], 0.5, 2, 2, 1.0, "value", "last"),
    ([1.0, 1.0], [0.0, 0.0], [0.3, 0.7], 0.4, 1, 2, 0.7, "value", "average"),
    ([1.0, 2.0], [0.0, 0.2], [0.5, 0.5], 0.3, 2, 1, 2.0, "value", "last"),
    ([1.0, 1.0], [0.1, 0.1], [0.5, 0.5], 0.5, 2, 2, 1.0, "distance", "last"),
])
def test_projected_fedavg_against_hand_pep(Ls: list[float], mus: list[float], p: list[float], lr: float,
                                           kappa: int, T: int, rho2: float, measure: str, output: str) -> None:
    D0 = 1.0
    L = Ls if Ls[0] != Ls[1] else Ls[0]
    mu = mus if mus[0] != mus[1] else mus[0]
    wc = worst_case(projected_fedavg_make, T, n=2, L=L, class_mu=mu, p=p, D0=D0, rho2=rho2, lr=lr, kappa=kappa,
                    measure=measure, output=output, constrained=True)
    hand = hand_projected_fedavg(Ls, mus, p, lr=lr, kappa=kappa, T=T, D0=D0, rho2=rho2, measure=measure,
                                 output=output)
    assert _close(wc.value, hand), (wc.value, hand)
    assert wc.value_is == "solver" and wc.extra["projections"] == T


def test_projected_fedavg_at_least_fedavg() -> None:
    """``C = R^d`` belongs to the constrained class (``N_C(x*) = {0}``, so ``sum_i p_i grad f_i(x*) = 0``, and the
    projection is the identity): projected FedAvg's worst case is at least FedAvg's."""
    kw = dict(n=2, L=1.0, D0=1.0, rho2=1.0, lr=1.0)
    cons = worst_case(projected_fedavg_make, 2, constrained=True, **kw).value
    free = worst_case(fedavg.make, 2, **kw).value
    assert cons >= free * (1 - 1e-6), (cons, free)


# ------------------------------------------------------------------ project_each itself
def test_project_each_records() -> None:
    prob = PEPProblem(2, L=1.0, D0=1.0, rho2=1.0, constrained=True)
    W = prob.xp.broadcast_to(prob.initial_point()[None, :], (2, prob.d))
    G = prob.grads_each(W)
    Y = W - 0.5 * G
    X = prob.project_each(Y)
    assert X.shape == (2, prob.d) and prob.projections == 2
    # x = y - s with s a new basis vector, and (x, s, 0) a point of the indicator
    ind = prob.indicator
    assert ind is not None and len(ind.points) == 3
    for k, pt in enumerate(ind.points[1:]):
        x = X[k].vecs()[0]
        assert (Y[k].vecs()[0] - pt.g).key() == x.key() and pt.x.key() == x.key()
        assert np.count_nonzero(pt.g.c) == 1 and pt.f.lin == {} and pt.f.const == 0  # a basis vector, value 0
    again = prob.project_each(Y[1:], clients=np.array([1]))
    assert np.array_equal(again.padded(), X[1:].padded()) and prob.projections == 2  # deterministic
    one = prob.project(Y[0])
    assert one.shape == (prob.d,) and np.array_equal(one.padded(), X[0].padded())
    # the optimum's normal vector is -sum_i p_i grad f_i(x*), with all n optimum gradients free
    assert len(prob.stars) == 2 and all(np.count_nonzero(g.c) == 1 for g in prob.stars)
    assert np.array_equal(ind.points[0].g.c[:2], -prob.p)


# ------------------------------------------------------------------ (e) validation
def test_project_each_needs_constrained() -> None:
    prob = PEPProblem(1, L=1.0, D0=1.0, rho2=0.0)
    with pytest.raises(FairtheoryValueError, match="constrained=True"):
        prob.project_each(prob.initial_point()[None, :])
    with pytest.raises(FairtheoryValueError, match="constrained=True"):
        worst_case(projected_gd_make, 1, n=1, L=1.0, D0=1.0, rho2=0.0, lr=1.0)


def test_project_each_validates_its_arguments() -> None:
    prob = PEPProblem(2, L=1.0, D0=1.0, rho2=1.0, constrained=True)
    W = prob.xp.broadcast_to(prob.initial_point()[None, :], (2, prob.d))
    with pytest.raises(FairtheoryValueError, match="W must have shape"):
        prob.project_each(W[:1])  # one row, but clients=None means all n = 2
    with pytest.raises(NotRepresentableError, match="W must be a symbolic"):
        prob.project_each(np.zeros((2, prob.d)))
    with pytest.raises(NotRepresentableError, match="w must be a symbolic"):
        prob.project(np.zeros(prob.d))
    with pytest.raises(FairtheoryTypeError, match="constrained"):
        PEPProblem(1, L=1.0, D0=1.0, rho2=0.0, constrained="yes")


def test_certificate_refuses_constrained() -> None:
    with pytest.raises(FairtheoryValueError, match="certificate.*constrained"):
        worst_case(projected_gd_make, 1, n=1, L=1.0, D0=1.0, rho2=1.0, lr=1.0, constrained=True, certificate=True)
    with pytest.raises(FairtheoryValueError, match="certificate.*constrained"):  # even for a method not projecting
        worst_case(fedavg.make, 1, n=1, L=1.0, D0=1.0, rho2=1.0, lr=1.0, constrained=True, certificate=True)
    prob = PEPProblem(1, L=1.0, D0=1.0, rho2=0.0, constrained=True)
    with pytest.raises(FairtheoryValueError, match="constrained"):
        prob.linear_statement([(1.0, [prob.x0])], ["value"])


@pytest.mark.parametrize(("kw", "name"), [(dict(measure="grad_norm"), "grad_norm"),
                                          (dict(measure=["value", "grad_norm"]), "grad_norm"),
                                          (dict(output="best"), "best"),
                                          (dict(constrained=1), "constrained")])
def test_constrained_refusals_name_the_option(kw: dict[str, Any], name: str) -> None:
    args: dict[str, Any] = dict(n=1, L=1.0, D0=1.0, rho2=1.0, lr=1.0, constrained=True)
    args.update(kw)
    with pytest.raises((FairtheoryValueError, FairtheoryTypeError), match=name):
        worst_case(projected_gd_make, 1, **args)


def test_best_distance_is_allowed() -> None:
    """``output="best"`` is refused only with the value measure; the distance contracts, so the best is the last."""
    L, mu, h, N, D0 = 1.0, 0.2, 1.5, 2, 1.0
    wc = worst_case(projected_gd_make, N, n=1, L=L, class_mu=mu, D0=D0, rho2=1.0, lr=h, measure="distance",
                    output="best", constrained=True)
    assert _close(wc.value, max((1 - h * mu) ** 2, (1 - h * L) ** 2) ** N * D0), wc.value
