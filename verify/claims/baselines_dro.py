"""DRO baselines and Scaff-PD-IA against exact solutions (``baselines.md``; ``relative.md`` Sec. 6).

Ground truth: :func:`fairtheory.exact.rcfl.solve_afl` (AFL value, cvxpy + KKT polish),
:func:`fairtheory.exact.rcfl.solve_fedavg` plus the closed form ``(sum p_i H_i)^{-1} sum p_i H_i c_i``
(FedAvg objective of quadratics), :func:`fairtheory.exact.relative.solve_integrated_minimax`
(certified saddle point of problem (8), ``phi = 0`` = DRO over ``A``).  The algorithms under test
are never used as ground truth.

Tolerances are fixed constants of this module, chosen before the final runs and never tuned:
``SLOPE_TOL = 0.25`` for ``relfair.theorem3.rate`` (the value suggested in the brief), ``1e-6`` for
distances to exact optima, relative ``1e-1`` for DRFA's value error.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fairtheory.algorithms import afl, drfa, scaffold, scaffpd
from fairtheory.problems.quadratic import QuadraticProblem, random_quadratic
from fairtheory.sets import CappedSimplex, IntegratedSet
from verify.core import Context, Outcome, Tally, claim, combine

#: allowed excess of a fitted log-log slope over the rate exponent (relfair.theorem3.rate)
SLOPE_TOL = 0.25
#: distance tolerance for methods that converge to the exact optimum
DIST_TOL = 1e-6
#: squared distances below this are at the accuracy of the exact solution (fit window ends there)
FLOOR = 1e-16
#: relative tolerance on the DRO value of DRFA's averaged model (its rate is only T^{-3/8})
DRFA_VALUE_TOL = 1e-1


# ---------------------------------------------------------------------------- helpers
def _dual_value(P: QuadraticProblem, lam: np.ndarray) -> tuple[float, np.ndarray]:
    """``min_w lam . f(w)`` and its minimiser for quadratic clients (closed form, ``H(lam)`` PD)."""
    Hl = np.einsum("i,ijk->jk", lam, P.H)
    rl = lam @ P.r
    w = np.linalg.solve(Hl, rl)
    return float(lam @ P.k - 0.5 * rl @ w), w


def certified_distance(P: QuadraticProblem, I: IntegratedSet, w: np.ndarray, a: np.ndarray,
                       b: np.ndarray, mu: float) -> float:
    """Rigorous bound on ``||w - w*||`` from a closed-form duality gap (no solver involved).

    ``Phi(w) = max_{lam in Lambda_phi} lam . f(w)`` is ``mu``-strongly convex in the convex regime
    (001 Lemma 8) and ``Phi* >= g(lam) = min_w lam . f(w)`` for every ``lam`` in the set (weak
    duality), so ``mu/2 ||w - w*||^2 <= Phi(w) - Phi* <= Phi(w) - g(lam)``.  ``a``, ``b`` are
    projected onto ``A``, ``B`` first so that ``lam = (a - phi b)/(1 - phi)`` is a member of the set
    to rounding (a dual point off the set by ``1e-12`` can overstate ``g`` and void the bound)."""
    a_p, b_p = I.A.project(np.asarray(a, dtype=np.float64)), I.B.project(np.asarray(b, dtype=np.float64))
    lam = (a_p - I.phi * b_p) / (1.0 - I.phi)
    gap = I.support(P.losses(w)) - _dual_value(P, lam)[0]
    return math.sqrt(max(2.0 * gap / mu, 0.0))


def _fedavg_closed_form(P: QuadraticProblem) -> np.ndarray:
    Hp = np.einsum("i,ijk->jk", P.p, P.H)
    return np.linalg.solve(Hp, P.p @ P.r)


def _instance(rng: np.random.Generator, n: int, d: int, *, mu: float = 1.0, L: float = 3.0,
              spread: float = 2.0) -> QuadraticProblem:
    return random_quadratic(n, d, rng=rng, mu=mu, L=L, spread=spread, offset=1.0)


def _safe_steps(P: QuadraticProblem, phi: float = 0.0) -> dict[str, float]:
    """Scaff-PD(-IA) steps from the problem constants: ``eta_l = 1/(4 L_phi J)`` with
    ``L_phi = L (1 + phi)/(1 - phi)`` and ``sigma`` with ``tau sigma ||Jf(w0)||^2 <= 1/4``."""
    L = P.smoothness()
    Lphi = L * (1 + phi) / (1 - phi)
    J = 5
    eta_l = 1.0 / (4 * Lphi * J)
    tau = J * eta_l
    G = float(np.linalg.norm(P.grads(np.zeros(P.d)), 2)) / (1 - phi)
    sigma = 0.25 / (tau * max(G, 1.0) ** 2)
    return {"J": J, "eta_l": eta_l, "eta_g": 1.0, "sigma": sigma}


def _scaffpd_run(P: QuadraticProblem, I: IntegratedSet, w_star: np.ndarray, rounds: int,
                 rng: np.random.Generator, **hyper: Any) -> tuple[np.ndarray, Any]:
    """Squared distances ``||w_r - w*||^2`` after rounds ``1..R`` and the final state."""
    st = scaffpd.init(P, I)
    err = np.empty(rounds)
    for r in range(rounds):
        st = scaffpd.step(st, P, rng, iset=I, **hyper)
        err[r] = float(np.sum((np.asarray(st.w) - w_star) ** 2))
    return err, st


def _scaffpd_errors(P: QuadraticProblem, I: IntegratedSet, w_star: np.ndarray, rounds: int,
                    rng: np.random.Generator, **hyper: Any) -> np.ndarray:
    return _scaffpd_run(P, I, w_star, rounds, rng, **hyper)[0]


def loglog_slope(err: np.ndarray, r0: int = 10, floor: float = FLOOR, points: int = 12) -> dict[str, Any]:
    """Least-squares slope of ``log err_r`` vs ``log r`` on log-spaced rounds ``r in [r0, r_end]``.

    ``r_end`` is the last round before ``err`` first drops below ``floor`` (the exact solution's
    accuracy) or the horizon.  ``reached_floor`` says the iterates hit the floor - geometric
    (linear) convergence, faster than any polynomial, within the horizon."""
    R = err.size
    below = np.flatnonzero(err < floor)
    r_end = int(below[0]) if below.size else R  # rounds are 1-based: err[r-1] is after r rounds
    r_end = max(r_end, r0 + 2)
    rs = np.unique(np.round(np.geomspace(r0, r_end, points)).astype(int))
    rs = rs[(rs >= 1) & (rs <= R)]
    y = np.log(np.maximum(err[rs - 1], 1e-300))
    slope = float(np.polyfit(np.log(rs), y, 1)[0])
    return {"slope": slope, "rounds": rs.tolist(), "errors": err[rs - 1].tolist(),
            "reached_floor": bool(below.size), "first_floor_round": int(below[0]) + 1 if below.size else None}


# ---------------------------------------------------------------------------- AFL
@claim("base.afl.converges")
def check_afl(ctx: Context) -> Outcome:
    """Stochastic-AFL (Mohri et al. 2019): averaged iterates reach the exact AFL minimax value.

    Deterministic oracles, full participation, steps ``g_w = 1/(L sqrt T)``, ``g_l = 1/(2 sqrt T)``
    (the classical ``O(1/sqrt T)`` choice).  Per instance and horizon ``T``:
    (i) the duality gap ``max_i f_i(w_avg) - min_w lam_avg . f(w)`` is at most the regret bound of
    simultaneous projected GDA, ``||w_0 - w_c||^2/(2 g_w T) + ||lam_0 - lam_c||^2/(2 g_l T) +
    (1/2T) sum_t (g_w ||G_t||^2 + g_l ||f_t||^2)`` with comparators ``w_c = argmin_w lam_avg . f(w)``,
    ``lam_c = argmax_lam lam . f(w_avg)`` (this bound is ``O(1/sqrt T)``, so the gap goes to 0);
    (ii) the error ``|max_i f_i(w_avg) - V*|`` against ``V*`` from ``exact.rcfl.solve_afl`` is at most
    that gap (the exact value lies between the two sides of the gap).  Reported: the relative value
    errors at ``T`` and ``4T`` and their ratio."""
    from fairtheory.exact.rcfl import solve_afl

    rng = ctx.rng("base.afl")
    T0 = ctx.count(500, 4000)
    gap_t, val_t = Tally("upper"), Tally("upper")
    rel_errors = []
    for _ in range(ctx.count(2, 8)):
        n, d = int(rng.integers(3, 7)), int(rng.integers(2, 4))
        P = _instance(rng, n, d)
        ex = solve_afl(P)
        errs = []
        for T in (T0, 4 * T0):
            lr_w, lr_l = 1.0 / (P.smoothness() * math.sqrt(T)), 0.5 / math.sqrt(T)
            st = afl.init(P)
            w0, lam0 = np.asarray(st.w).copy(), np.asarray(st.lam).copy()
            sq = 0.0
            r = np.random.default_rng(0)
            for _t in range(T):
                g = np.asarray(st.lam) @ P.grads(st.w)
                sq += lr_w * float(g @ g) + lr_l * float(np.sum(P.losses(st.w) ** 2))
                st = afl.step(st, P, r, lr_w=lr_w, lr_lam=lr_l)
            f_avg = P.losses(st.w_avg)
            dual, w_c = _dual_value(P, np.asarray(st.lam_avg))
            lam_c = CappedSimplex.simplex(n).argmax(f_avg)
            gap = float(f_avg.max()) - dual
            bound = (np.sum((w0 - w_c) ** 2) / (2 * lr_w * T) + np.sum((lam0 - lam_c) ** 2) / (2 * lr_l * T)
                     + sq / (2 * T))
            inst = {"n": n, "d": d, "T": T, "V*": ex.value}
            gap_t.add(gap, bound, inst, size=n * d)
            err = abs(float(f_avg.max()) - ex.value)
            val_t.add(err, gap, inst, size=n * d)
            errs.append(err / max(1.0, abs(ex.value)))
        rel_errors.append({"T": T0, "rel_error_T": errs[0], "rel_error_4T": errs[1], "ratio": errs[1] / errs[0]})
    return combine({"gap<=regret_bound": gap_t.outcome(), "value_error<=gap": val_t.outcome(details={
        "relative_value_errors": rel_errors})},
                   note=f"averaged Stochastic-AFL iterates, T={T0} and {4 * T0}, vs exact solve_afl")


# ---------------------------------------------------------------------------- DRFA
@claim("base.drfa.converges")
def check_drfa(ctx: Context) -> Outcome:
    """DRFA (Deng et al. 2020) reaches the exact DRO (AFL) value within its theory's tolerance.

    DRFA's convex-linear guarantee (Thm. 1) is ``O(T^{-3/8})`` for the duality gap of the averaged
    iterates with ``eta ~ T^{-1/2}``, ``gamma ~ T^{-5/8}``, ``tau ~ T^{1/4}`` (constants not
    restated here).  With that schedule (``eta = 1/(6 L sqrt T)``, ``gamma = 0.1 T^{-5/8}``,
    ``tau = round(T^{1/4})``, ``m = n`` draws by ``lam``, 4 seeds) the check is: mean over seeds of
    ``(max_i f_i(w_avg) - V*)/V* <= 0.1`` (a tolerance fixed in advance; DRFA's sampling noise
    decays only like ``T^{-3/8}``), with the certified duality gap reported alongside."""
    from fairtheory.exact.rcfl import solve_afl

    rng = ctx.rng("base.drfa")
    T = ctx.count(4000, 32000)
    tau = max(1, int(round(T ** 0.25)))
    rounds = T // tau
    tally = Tally("equal")
    gaps = []
    for _ in range(ctx.count(1, 6)):
        n, d = int(rng.integers(3, 7)), int(rng.integers(2, 4))
        P = _instance(rng, n, d)
        ex = solve_afl(P)
        eta = 1.0 / (6 * P.smoothness() * math.sqrt(T))
        gamma = 0.1 / T ** 0.625
        errs, gs = [], []
        for seed in range(4):
            r = np.random.default_rng(seed)
            st = drfa.init(P)
            for _s in range(rounds):
                st = drfa.step(st, P, r, tau=tau, eta=eta, gamma=gamma, m=n)
            v = float(np.max(P.losses(st.w_avg)))
            errs.append((v - ex.value) / max(1.0, abs(ex.value)))
            gs.append(v - _dual_value(P, np.asarray(st.lam_avg))[0])
        gaps.append(float(np.mean(gs)))
        tally.add(float(np.mean(errs)), DRFA_VALUE_TOL, {"n": n, "d": d, "T": T, "tau": tau, "V*": ex.value},
                  size=n * d)
    return tally.outcome(note=f"DRFA averaged model, T={T} local steps, tau={tau}; rate T^(-3/8)",
                         details={"mean_duality_gaps": gaps, "T": T, "tau": tau, "T^(-3/8)": T ** -0.375})


# ---------------------------------------------------------------------------- Scaffold
@claim("base.scaffold.converges")
def check_scaffold(ctx: Context) -> Outcome:
    """Scaffold (option II) reaches the exact minimiser of ``sum p_i f_i`` with ``J = 10`` local steps
    on heterogeneous quadratics (full participation with Dirichlet ``p``; ``K = 3`` draws with uniform
    ``p``), ``||w_R - w*|| <= 1e-6``;
    ``w*`` from ``exact.rcfl.solve_fedavg`` (checked against the closed form).  The distance of a
    drift-prone method (plain local GD with the same steps, Scaffold with frozen zero controls) is
    reported for contrast."""
    from fairtheory.exact.rcfl import solve_fedavg

    rng = ctx.rng("base.scaffold")
    R = ctx.count(300, 800)
    tally = Tally("equal")
    drift = []
    for _ in range(ctx.count(3, 10)):
        n, d = int(rng.integers(3, 8)), int(rng.integers(2, 5))
        p = rng.dirichlet(np.ones(n))
        P = random_quadratic(n, d, rng=rng, mu=0.5, L=3.0, spread=3.0, p=p)
        ex = solve_fedavg(P)
        J, eta_l = 10, 0.5 / (P.smoothness() * 10)
        Pu = QuadraticProblem(P.H, P.c, P.e)  # same clients, uniform p (Scaffold's sampling setting)
        for K, Q in ((None, P), (3, Pu)):
            exQ = ex if Q is P else solve_fedavg(Q)
            r = np.random.default_rng(1)
            st = scaffold.init(Q)
            for _r in range(R):
                st = scaffold.step(st, Q, r, J=J, eta_l=eta_l, K=K)
            dist = float(np.linalg.norm(np.asarray(st.w) - exQ.argmin))
            tally.add(dist, DIST_TOL, {"n": n, "d": d, "K": K, "R": R, "exact_vs_closed_form":
                                       float(np.linalg.norm(exQ.argmin - _fedavg_closed_form(Q)))},
                      size=n * d)
        # contrast: local GD without control variates (FedAvg with J local steps)
        w = np.zeros(d)
        for _r in range(R):
            Y = np.broadcast_to(w, (n, d))
            for _j in range(J):
                Y = Y - eta_l * P.grads_each(Y)
            w = P.p @ Y
        drift.append(float(np.linalg.norm(w - ex.argmin)))
    return tally.outcome(note=f"Scaffold J=10, R={R} rounds vs exact solve_fedavg",
                         details={"local_gd_distance_without_controls": drift})


# ---------------------------------------------------------------------------- Scaff-PD
@claim("base.scaffpd.converges")
def check_scaffpd(ctx: Context) -> Outcome:
    """Scaff-PD (``phi = 0``) reaches the exact DRO saddle point, ``A`` the simplex (vs
    ``exact.rcfl.solve_afl``) and ``A = C(1/2)`` (vs ``exact.relative.solve_integrated_minimax``),
    deterministic oracles, ``J = 5`` Scaffold-corrected local steps, constant steps, ``R`` rounds:

    * ``certified``: the duality-gap bound ``sqrt(2 (Phi(w_R) - g(lam_R))/mu)`` on ``||w_R - w*||``
      (:func:`certified_distance`, a proof, not a solver) is ``<= 1e-6``;
    * ``value``: ``|Phi(w_R) - V*| <= 1e-6 max(1, V*)`` with ``V*`` the exact solver's value;
    * ``distance``: ``||w_R - w*_exact|| <= 1e-6 + u``, ``u`` the exact solution's own certified
      uncertainty ``certified_distance(w*_exact, a*_exact, b*_exact)`` (the SDP's ``w*`` is accurate
      to about ``1e-6``: its reported gap uses the solver's dual value, which can exceed the
      closed-form ``g`` of the slightly infeasible ``lam*``)."""
    from fairtheory.exact.rcfl import solve_afl
    from fairtheory.exact.relative import solve_integrated_minimax

    rng = ctx.rng("base.scaffpd")
    R = ctx.count(1500, 4000)
    cert_t, dist_t, val_t = Tally("equal"), Tally("equal"), Tally("equal")
    for _ in range(ctx.count(2, 6)):
        n, d = int(rng.integers(3, 7)), int(rng.integers(2, 4))
        P = _instance(rng, n, d)
        mu = P.strong_convexity()
        for name, A in (("simplex", CappedSimplex.simplex(n)), ("cvar0.5", CappedSimplex.cvar(n, 0.5))):
            I = IntegratedSet(A, A, 0.0)
            ex = solve_afl(P) if name == "simplex" else solve_integrated_minimax(P, I)
            a_ex = np.asarray(ex.extra.get("a", ex.weights)) if ex.extra else np.asarray(ex.weights)
            b_ex = np.asarray(ex.extra.get("b", a_ex)) if ex.extra else a_ex
            unc_exact = certified_distance(P, I, ex.argmin, a_ex, b_ex, mu)
            err, st = _scaffpd_run(P, I, ex.argmin, R, np.random.default_rng(0), **_safe_steps(P))
            w = np.asarray(st.w)
            inst = {"n": n, "d": d, "A": name, "R": R, "V*": ex.value, "exact_w_uncertainty": unc_exact}
            cert_t.add(certified_distance(P, I, w, np.asarray(st.a), np.asarray(st.b), mu), DIST_TOL, inst,
                       size=n * d)
            dist_t.add(math.sqrt(err[-1]), DIST_TOL + unc_exact, inst, size=n * d)
            v = A.support(P.losses(w))
            val_t.add(abs(v - ex.value) / max(1.0, abs(ex.value)), DIST_TOL, inst, size=n * d)
    return combine({"certified": cert_t.outcome(), "distance": dist_t.outcome(), "value": val_t.outcome()},
                   note=f"Scaff-PD (phi=0), R={R} rounds, deterministic")


# ---------------------------------------------------------------------------- Theorem 3
def _rate_instance(rng: np.random.Generator) -> tuple[QuadraticProblem, IntegratedSet, float]:
    n, d = int(rng.integers(4, 7)), int(rng.integers(2, 4))
    P = _instance(rng, n, d, mu=1.0, L=2.0)
    phi = float(rng.uniform(0.1, 0.35))  # convex regime: phi < mu/L = 0.5
    A = CappedSimplex.cvar(n, 0.5)
    return P, IntegratedSet(A, A, phi), phi


@claim("relfair.theorem3.rate")
def check_theorem3(ctx: Context) -> Outcome:
    """001 Thm. 3 (reconstructed): Scaff-PD-IA converges at ``O(1/R^2)`` (deterministic) and
    ``O(1/R)`` (stochastic gradients) in ``||w_R - w*||^2``.

    Instances: quadratics with ``mu = 1``, ``L = 2``, ``A = B = C(1/2)``, ``phi in [0.1, 0.35]``
    (strongly convex regime ``phi < mu/L``), exact ``w*`` from ``solve_integrated_minimax``.
    Scaff-PD-IA with ``J = 5`` local steps and the acceleration schedule driven by
    ``mu_accel = (mu - phi L)/(2(1 - phi))`` (half the strong-convexity modulus of 001 Lemma 8).
    Fitted least-squares slope of ``log ||w_r - w*||^2`` against ``log r`` on log-spaced rounds
    from 10 up to the first round at the exact solution's accuracy (``max(1e-16, 100 u^2)``, ``u`` the
    closed-form certified uncertainty of the SDP's ``w*``) or the horizon:

    * deterministic: slope ``<= -2 + 0.25``;
    * stochastic gradients (additive ``N(0, 1)`` noise on every client gradient, exact losses as
      in the theorem's Assumption 5; mean of the squared distance over 4 seeds; fit on the last
      decade ``[R/10, R]`` so the deterministic transient does not count): slope ``<= -1 + 0.25``.

    ``SLOPE_TOL = 0.25`` was fixed before the runs.  A geometric (linear) decay gives a slope steeper
    than any polynomial one over the window and satisfies the claim; ``details`` says when the
    iterates reached the floor."""
    from fairtheory.exact.relative import solve_integrated_minimax

    rng = ctx.rng("relfair.theorem3")
    R_det, R_noisy, seeds = ctx.count(600, 3000), ctx.count(600, 4000), ctx.count(4, 16)
    det_t, noisy_t = Tally("upper"), Tally("upper")
    det_info, noisy_info = [], []
    for _ in range(ctx.count(2, 5)):
        P, I, phi = _rate_instance(rng)
        ex = solve_integrated_minimax(P, I)
        hyper = _safe_steps(P, phi)
        mu_eff = (1.0 - phi * 2.0) / (1.0 - phi)
        mu_acc = mu_eff / 2.0
        unc = certified_distance(P, I, ex.argmin, ex.extra["a"], ex.extra["b"], mu_eff)
        floor = max(FLOOR, 100.0 * unc ** 2)  # below this the reference w* itself is uncertain
        inst = {"n": P.n, "d": P.d, "phi": phi, "floor": floor}
        err = _scaffpd_errors(P, I, ex.argmin, R_det, np.random.default_rng(0), mu_accel=mu_acc, **hyper)
        fit = loglog_slope(err, floor=floor)
        det_t.add(fit["slope"], -2.0 + SLOPE_TOL, inst, size=P.n * P.d)
        det_info.append({**inst, **fit})
        errs = np.mean([_scaffpd_errors(P, I, ex.argmin, R_noisy, np.random.default_rng(s), mu_accel=mu_acc,
                                        grad_noise=1.0, **hyper) for s in range(seeds)], axis=0)
        fit_n = loglog_slope(errs, r0=max(10, R_noisy // 10), floor=floor)  # last decade: asymptotic rate
        noisy_t.add(fit_n["slope"], -1.0 + SLOPE_TOL, inst, size=P.n * P.d)
        noisy_info.append({**inst, **fit_n})
    out = combine({"deterministic slope<=-1.75": det_t.outcome(details={"fits": det_info}),
                   "noisy slope<=-0.75": noisy_t.outcome(details={"fits": noisy_info})},
                  note="Scaff-PD-IA ||w_r - w*||^2 vs rounds (log-log); tol 0.25 fixed in advance")
    out.details["deterministic_fits"] = det_info
    out.details["noisy_fits"] = noisy_info
    return out
