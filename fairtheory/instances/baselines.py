r"""DRO baselines against exact solutions: one instance in, ``(measured, theory)`` out.

Stochastic-AFL (Mohri et al. 2019), DRFA (Deng et al. 2020), Scaffold (Karimireddy et al. 2020) and
Scaff-PD (Yu et al. 2023) on quadratic clients ``f_i(w) = 0.5 (w - c_i)^T H_i (w - c_i) + e_i``,
compared with ground truth that never uses the algorithm under test:
:func:`fairtheory.exact.rcfl.solve_afl` (AFL value), :func:`fairtheory.exact.rcfl.solve_fedavg` (checked
against the closed form ``(sum p_i H_i)^{-1} sum p_i H_i c_i``) and
:func:`fairtheory.exact.relative.solve_integrated_minimax` (certified saddle point of 001 problem (8);
``phi = 0`` is DRO over ``A``).  Also the shared pieces of the Scaff-PD(-IA) checks and figures:
:func:`certified_distance` (a closed-form duality-gap bound on ``||w - w*||``), :func:`safe_steps`,
:func:`scaffpd_errors` and :func:`loglog_slope`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fairtheory._validation import (
    FairtheoryValueError,
    as_vector,
    check_in_range,
    check_integer,
    check_positive,
)
from fairtheory.algorithms import afl, drfa, scaffold, scaffpd
from fairtheory.algorithms.base import run
from fairtheory.instances import InstanceResult, check_problem
from fairtheory.problems.quadratic import QuadraticProblem
from fairtheory.sets import CappedSimplex, IntegratedSet

__all__ = [
    "FLOOR",
    "dual_value",
    "certified_distance",
    "fedavg_closed_form",
    "safe_steps",
    "scaffpd_errors",
    "loglog_slope",
    "afl_convergence",
    "drfa_convergence",
    "scaffold_convergence",
    "scaffpd_convergence",
]

Array = NDArray[np.float64]

#: squared distances below this are at the accuracy of an exact solution (a rate fit window ends there)
FLOOR = 1e-16


# ---------------------------------------------------------------------------- closed forms and helpers
def dual_value(problem: QuadraticProblem, lam: Any) -> tuple[float, Array]:
    """``g(lam) = min_w lam . f(w)`` and its minimiser for quadratic clients (closed form, ``H(lam)`` PD)."""
    check_problem(problem, QuadraticProblem)
    lam = as_vector(lam, "lam")
    if lam.shape != (problem.n,):
        raise FairtheoryValueError(f"lam must have shape ({problem.n},) (one weight per client), got {lam.shape}")
    Hl = np.einsum("i,ijk->jk", lam, problem.H)
    rl = lam @ problem.r
    w = np.linalg.solve(Hl, rl)
    return float(lam @ problem.k - 0.5 * rl @ w), w


def certified_distance(problem: QuadraticProblem, iset: IntegratedSet, w: Any, a: Any, b: Any, mu: float) -> float:
    r"""Rigorous bound on ``||w - w*||`` from a closed-form duality gap (no solver involved).

    ``Phi(w) = max_{lam in Lambda_phi} lam . f(w)`` is ``mu``-strongly convex in the convex regime
    (001 Lemma 8, reconstructed) and ``Phi* >= g(lam) = min_w lam . f(w)`` for every ``lam`` in the set
    (weak duality), so ``mu/2 ||w - w*||^2 <= Phi(w) - Phi* <= Phi(w) - g(lam)``.  ``a``, ``b`` are
    projected onto ``A``, ``B`` first so that ``lam = (a - phi b)/(1 - phi)`` is a member of the set
    to rounding (a dual point off the set by ``1e-12`` can overstate ``g`` and void the bound)."""
    mu = check_positive(mu, "mu")
    a_p = iset.A.project(as_vector(a, "a"))
    b_p = iset.B.project(as_vector(b, "b"))
    lam = (a_p - iset.phi * b_p) / (1.0 - iset.phi)
    gap = iset.support(problem.losses(np.asarray(w, dtype=np.float64))) - dual_value(problem, lam)[0]
    return math.sqrt(max(2.0 * gap / mu, 0.0))


def fedavg_closed_form(problem: QuadraticProblem) -> Array:
    """``argmin_w sum_i p_i f_i(w) = (sum_i p_i H_i)^{-1} sum_i p_i r_i`` for quadratic clients."""
    check_problem(problem, QuadraticProblem)
    Hp = np.einsum("i,ijk->jk", problem.p, problem.H)
    return np.linalg.solve(Hp, problem.p @ problem.r)


def safe_steps(problem: QuadraticProblem, phi: float = 0.0, *, kappa: int = 5) -> dict[str, float]:
    """Scaff-PD(-IA) steps from the problem constants, keyword arguments of :func:`fairtheory.algorithms.scaffpd.make`:
    ``lr = 1/(4 L_phi kappa)`` with ``L_phi = L (1 + phi)/(1 - phi)``, ``server_lr = 1`` and ``dual_lr = sigma`` with
    ``tau sigma ||Jf(0)||^2 <= 1/4`` (``tau = kappa lr``, ``||Jf(0)||`` the spectral norm of the client gradients at 0
    over ``1 - phi``; 001 Alg. 2's ``eta_l``, ``eta_g``, ``sigma``)."""
    phi = check_in_range(phi, "phi", low=0.0, high=1.0, high_inclusive=False)
    kappa = check_integer(kappa, "kappa", low=1)
    L = problem.smoothness()
    Lphi = L * (1 + phi) / (1 - phi)
    lr = 1.0 / (4 * Lphi * kappa)
    tau = kappa * lr
    G = float(np.linalg.norm(problem.grads(np.zeros(problem.d)), 2)) / (1 - phi)
    sigma = 0.25 / (tau * max(G, 1.0) ** 2)
    return {"kappa": kappa, "lr": lr, "server_lr": 1.0, "dual_lr": sigma}


def scaffpd_errors(problem: QuadraticProblem, aggregator: Any, w_star: Any, rounds: int, *, seed: int = 0,
                   **hyper: Any) -> tuple[Array, Any]:
    """``||w_r - w*||^2`` after rounds ``r = 1..rounds`` of Scaff-PD(-IA) over ``aggregator`` (a set or a
    set-support aggregator) and the final state; ``hyper`` go to :func:`fairtheory.algorithms.scaffpd.make`,
    ``seed`` seeds the oracle noise."""
    rounds = check_integer(rounds, "rounds", low=1)
    alg = scaffpd.make(problem, aggregator=aggregator, **hyper)
    w_star = as_vector(w_star, "w_star")
    err = np.empty(rounds)

    def record(k: int, state: Any) -> None:
        err[k - 1] = float(np.sum((np.asarray(state.w) - w_star) ** 2))

    state, _ = run(alg, rounds, rng=np.random.default_rng(seed), record_every=max(rounds, 1), record_losses=False,
                   callback=record)
    return err, state


def loglog_slope(err: Any, r0: int = 10, floor: float = FLOOR, points: int = 12) -> dict[str, Any]:
    """Least-squares slope of ``log err_r`` vs ``log r`` on log-spaced rounds ``r in [r0, r_end]``.

    ``err[r-1]`` is the error after ``r`` rounds.  ``r_end`` is the last round before ``err`` first drops
    below ``floor`` (the exact solution's accuracy) or the horizon.  ``reached_floor`` says the iterates
    hit the floor - geometric (linear) convergence, faster than any polynomial, within the horizon."""
    err = as_vector(err, "err")
    r0 = check_integer(r0, "r0", low=1)
    floor = check_in_range(floor, "floor", low=0.0)
    points = check_integer(points, "points", low=2)
    R = err.size
    below = np.flatnonzero(err < floor)
    r_end = int(below[0]) if below.size else R
    r_end = max(r_end, r0 + 2)
    rs = np.unique(np.round(np.geomspace(r0, r_end, points)).astype(int))
    rs = rs[(rs >= 1) & (rs <= R)]
    y = np.log(np.maximum(err[rs - 1], 1e-300))
    slope = float(np.polyfit(np.log(rs), y, 1)[0])
    return {"slope": slope, "rounds": rs.tolist(), "errors": err[rs - 1].tolist(),
            "reached_floor": bool(below.size), "first_floor_round": int(below[0]) + 1 if below.size else None}


# ---------------------------------------------------------------------------- AFL
def afl_convergence(*, problem: QuadraticProblem, T: int) -> InstanceResult:
    r"""Stochastic-AFL (Mohri et al. 2019), deterministic oracles, ``T`` steps of sizes ``g_w = 1/(L sqrt T)``,
    ``g_l = 1/(2 sqrt T)`` over the simplex.

    ``measured``: the duality gap ``max_i f_i(w_avg) - min_w lam_avg . f(w)`` of the averaged iterates;
    ``theory``: the regret bound of simultaneous projected GDA, ``||w_0 - w_c||^2/(2 g_w T) +
    ||lam_0 - lam_c||^2/(2 g_l T) + (1/2T) sum_t (g_w ||G_t||^2 + g_l ||f_t||^2)`` with comparators
    ``w_c = argmin_w lam_avg . f(w)``, ``lam_c = argmax_lam lam . f(w_avg)`` (``O(1/sqrt T)``).
    ``extra``: ``value = max_i f_i(w_avg)``, ``exact_value`` (``V*`` of :func:`~fairtheory.exact.rcfl.solve_afl`,
    between the two sides of the gap) and ``value_error = |value - V*|``."""
    from fairtheory.exact.rcfl import solve_afl

    check_problem(problem, QuadraticProblem)
    T = check_integer(T, "T", low=1)
    ex = solve_afl(problem)
    n = problem.n
    lr_w, lr_l = 1.0 / (problem.smoothness() * math.sqrt(T)), 0.5 / math.sqrt(T)
    alg = afl.make(problem, lr=lr_w, dual_lr=lr_l)
    st = alg.init()
    w0, lam0 = np.asarray(st.w).copy(), np.asarray(st.lam).copy()
    sq = 0.0
    for _t in range(T):  # the regret bound needs the oracle values at every iterate
        g = np.asarray(st.lam) @ problem.grads(st.w)
        sq += lr_w * float(g @ g) + lr_l * float(np.sum(problem.losses(st.w) ** 2))
        st = alg.step(st, None)
    f_avg = problem.losses(st.w_avg)
    dual, w_c = dual_value(problem, np.asarray(st.lam_avg))
    lam_c = CappedSimplex.simplex(n).argmax(f_avg)
    gap = float(f_avg.max()) - dual
    bound = (np.sum((w0 - w_c) ** 2) / (2 * lr_w * T) + np.sum((lam0 - lam_c) ** 2) / (2 * lr_l * T)
             + sq / (2 * T))
    value = float(f_avg.max())
    return InstanceResult(gap, float(bound), {"value": value, "exact_value": float(ex.value),
                                              "value_error": abs(value - float(ex.value)), "T": T})


# ---------------------------------------------------------------------------- DRFA
def drfa_convergence(*, problem: QuadraticProblem, T: int, seeds: int = 4) -> InstanceResult:
    r"""DRFA (Deng et al. 2020) with its convex-linear schedule for ``T`` local steps: ``kappa = round(T^{1/4})``,
    ``eta = 1/(6 L sqrt T)``, ``gamma = 0.1 T^{-5/8}``, ``K = n`` draws, ``T // kappa`` rounds, ``seeds`` runs.

    ``measured``: the mean over seeds of the DRO value ``max_i f_i(w_avg)`` of the averaged model;
    ``theory``: the exact value ``V*`` (:func:`~fairtheory.exact.rcfl.solve_afl`).  ``extra``: the mean
    duality gap ``max_i f_i(w_avg) - min_w lam_avg . f(w)``, ``kappa``, ``T^{-3/8}``."""
    from fairtheory.exact.rcfl import solve_afl

    check_problem(problem, QuadraticProblem)
    T = check_integer(T, "T", low=1)
    seeds = check_integer(seeds, "seeds", low=1)
    ex = solve_afl(problem)
    kappa = max(1, int(round(T ** 0.25)))
    alg = drfa.make(problem, kappa=kappa, lr=1.0 / (6 * problem.smoothness() * math.sqrt(T)), dual_lr=0.1 / T ** 0.625,
                    K=problem.n)
    values, gaps = [], []
    for seed in range(seeds):
        st, _ = run(alg, T // kappa, rng=np.random.default_rng(seed), record_every=max(T // kappa, 1),
                    record_losses=False)
        v = float(np.max(problem.losses(st.w_avg)))
        values.append(v)
        gaps.append(v - dual_value(problem, np.asarray(st.lam_avg))[0])
    return InstanceResult(float(np.mean(values)), float(ex.value),
                          {"mean_duality_gap": float(np.mean(gaps)), "kappa": kappa, "T": T, "T^(-3/8)": T ** -0.375})


# ---------------------------------------------------------------------------- Scaffold
def scaffold_convergence(*, problem: QuadraticProblem, rounds: int, kappa: int = 10, K: int | None = None,
                         seed: int = 1) -> InstanceResult:
    r"""Scaffold (option II), ``kappa`` local steps of size ``0.5/(L kappa)``, ``rounds`` rounds, full
    participation (``K=None``) or ``K`` draws by ``p`` (from ``default_rng(seed)``).

    ``measured``: ``||w_R - w*||``; ``theory``: 0 (``w*`` the exact minimiser of ``sum_i p_i f_i``,
    :func:`~fairtheory.exact.rcfl.solve_fedavg`).  ``extra``: ``exact_vs_closed_form`` (distance of the
    solver's ``w*`` to the closed form) and, for contrast, ``local_gd_distance``: the distance reached by
    local GD without control variates (FedAvg with the same steps), which drifts."""
    from fairtheory.exact.rcfl import solve_fedavg

    check_problem(problem, QuadraticProblem)
    rounds = check_integer(rounds, "rounds", low=1)
    kappa = check_integer(kappa, "kappa", low=1)
    K = None if K is None else check_integer(K, "K", low=1)
    ex = solve_fedavg(problem)
    lr = 0.5 / (problem.smoothness() * kappa)
    alg = scaffold.make(problem, kappa=kappa, lr=lr, K=K)
    st, _ = run(alg, rounds, rng=np.random.default_rng(seed), record_every=max(rounds, 1), record_losses=False)
    dist = float(np.linalg.norm(np.asarray(st.w) - ex.argmin))
    n, d = problem.n, problem.d
    w = np.zeros(d)
    for _r in range(rounds):  # contrast: local GD without control variates
        Y = np.broadcast_to(w, (n, d))
        for _j in range(kappa):
            Y = Y - lr * problem.grads_each(Y)
        w = problem.p @ Y
    return InstanceResult(dist, 0.0, {"exact_vs_closed_form": float(np.linalg.norm(ex.argmin - fedavg_closed_form(problem))),
                                      "local_gd_distance": float(np.linalg.norm(w - ex.argmin))})


# ---------------------------------------------------------------------------- Scaff-PD
def scaffpd_convergence(*, problem: QuadraticProblem, A: CappedSimplex, rounds: int) -> InstanceResult:
    r"""Scaff-PD (``phi = 0``) over the capped simplex ``A``, deterministic oracles, :func:`safe_steps`
    (``kappa = 5``, constant steps), ``rounds`` rounds.

    ``measured``: ``Phi(w_R) = max_{lam in A} lam . f(w_R)``; ``theory``: the exact DRO value ``V*``
    (:func:`~fairtheory.exact.rcfl.solve_afl` when ``A`` is the simplex, else
    :func:`~fairtheory.exact.relative.solve_integrated_minimax`).  ``extra``: ``certified_distance``
    (the duality-gap bound on ``||w_R - w*||``, a proof, not a solver), ``distance`` (``||w_R - w*_exact||``)
    and ``exact_w_uncertainty`` (the exact solution's own certified distance bound)."""
    from fairtheory.exact.rcfl import solve_afl
    from fairtheory.exact.relative import solve_integrated_minimax

    check_problem(problem, QuadraticProblem)
    rounds = check_integer(rounds, "rounds", low=1)
    I = IntegratedSet(A, A, 0.0)
    simplex = bool(np.all(A.caps >= 1.0))
    ex = solve_afl(problem) if simplex else solve_integrated_minimax(problem, I)
    a_ex = np.asarray(ex.extra.get("a", ex.weights)) if ex.extra else np.asarray(ex.weights)
    b_ex = np.asarray(ex.extra.get("b", a_ex)) if ex.extra else a_ex
    mu = problem.strong_convexity()
    unc = certified_distance(problem, I, ex.argmin, a_ex, b_ex, mu)
    err, st = scaffpd_errors(problem, I, ex.argmin, rounds, seed=0, **safe_steps(problem))
    w = np.asarray(st.w)
    return InstanceResult(float(A.support(problem.losses(w))), float(ex.value), {
        "certified_distance": certified_distance(problem, I, w, np.asarray(st.a), np.asarray(st.b), mu),
        "distance": math.sqrt(err[-1]), "exact_w_uncertainty": unc})
