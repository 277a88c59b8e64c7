r"""Relative fairness (001, reconstructed): one instance in, ``(measured, theory)`` out.

Ground truth: closed forms (sorting, eigenvalues at the vertices of the sets) and the certified SDP
route :func:`fairtheory.exact.relative.solve_integrated_minimax`, cross-checked by the independent
global search :func:`fairtheory.exact.relative.global_search_minimax` (``d <= 3``).  Notation: ``U(w) =
max_{lam in A} lam . f(w)``, ``V(w) = min_{lam in B} lam . f(w)``, index ``I = U/V`` (001 Def. 1),
``w*_phi`` a solution of problem (8) over ``Lambda_phi(A, B)`` (001 eqs. 6-8).

Functions: :func:`prop9_majorization` (001 Prop. 9), :func:`lemma8_strong_convexity` (001 Lemma 8 /
Prop. 10), :func:`routes_agree` (problem (8), two exact routes), :func:`certified_curve`,
:func:`theorem1_monotone` (001 Thm. 1), :func:`theorem2_strict` (001 Thm. 2), :func:`penguins_curve`
(001 Sec. 4.3), :func:`theorem3_rate` (001 Thm. 3, Scaff-PD-IA) and :func:`skewness_monotone`
(001 Sec. 6).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError, as_vector, check_in_range, check_integer
from fairtheory.backend import as_array
from fairtheory.instances import InstanceResult, check_problem
from fairtheory.objectives.relative import convex_regime, lemma8_bound, prop9_bounds, skewness, unfairness_parts
from fairtheory.problems.quadratic import QuadraticProblem
from fairtheory.sets import CappedSimplex, IntegratedSet

__all__ = [
    "ROUND",
    "MOVE_TOL",
    "PENGUIN_SETS",
    "worst_step",
    "prop9_majorization",
    "lemma8_extremal_problem",
    "lemma8_strong_convexity",
    "routes_agree",
    "monotone_allowance",
    "certified_curve",
    "theorem1_monotone",
    "theorem2_strict",
    "penguins_phi_grid",
    "penguins_curve",
    "theorem3_rate",
    "skewness_monotone",
]

Array = NDArray[np.float64]

#: relative float64 rounding added to the certified suboptimality of each exact solution
ROUND = 1e-12
#: a solution "moves" when ``||w*_phi - w*_0|| > MOVE_TOL (1 + ||w*_0||)``; far above the accuracy
#: ``sqrt(2 eps / mu) ~ 1e-5`` of certified solutions
MOVE_TOL = 1e-3
#: the two set choices of the penguins simulation (001 Sec. 4.3: the paper's sets were lost)
PENGUIN_SETS = {"Delta_3": lambda: CappedSimplex.simplex(3), "C(2/3)": lambda: CappedSimplex.cvar(3, 2.0 / 3.0)}


def worst_step(values: Any, *, increasing: bool) -> int:
    """Index ``j`` of the consecutive pair ``(values[j], values[j+1])`` that goes most against the
    direction (the smallest increase when ``increasing``, else the largest increase)."""
    v = as_vector(values, "values")
    if v.size < 2:
        raise FairtheoryValueError(f"values must hold at least 2 entries (a consecutive pair), got {v.size}")
    diff = v[1:] - v[:-1]
    return int(np.argmin(diff) if increasing else np.argmax(diff))


# ---------------------------------------------------------------------------- Prop. 9
def prop9_majorization(*, losses: Any, A: CappedSimplex, B: CappedSimplex, c_factor: float, C_factor: float,
                       phis: Any) -> InstanceResult:
    r"""001 Prop. 9 (reconstructed): ``phi + (U - phi V)/C <= U/V <= phi + (U - phi V)/c`` for
    ``0 < c <= V <= C``, here ``c = c_factor V``, ``C = C_factor V`` (``c_factor <= 1 <= C_factor``).

    ``measured``: the index ``U/V``; ``theory``: the tightest upper bound ``min_phi`` of the right-hand
    side.  ``extra``: ``U``, ``V``, ``c``, ``C``, ``phi``, the bound curves ``lower`` (non-decreasing in
    ``phi``) and ``upper`` (non-increasing), and ``tightest_lower = max_phi lower``."""
    c_factor = check_in_range(c_factor, "c_factor", low=0.0, high=1.0, low_inclusive=False)
    C_factor = check_in_range(C_factor, "C_factor", low=1.0)
    U, V = unfairness_parts(losses, A, B)
    c, C = V * c_factor, V * C_factor
    ph = as_array(phis, "phis", ndim=(0, 1))
    lo, hi = prop9_bounds(U, V, ph, c, C)
    return InstanceResult(U / V, float(np.min(hi)), {"U": U, "V": V, "c": c, "C": C, "phi": ph, "lower": lo,
                                                     "upper": hi, "tightest_lower": float(np.max(lo))})


# ---------------------------------------------------------------------------- Lemma 8
def lemma8_extremal_problem(*, mu: float, L: float, n: int, d: int) -> QuadraticProblem:
    """Clients with Hessians ``mu I``, ``L I`` and ``(mu + L)/2 I`` (the rest), centres 0: with
    ``A = B = Delta_n`` the minimum of ``lambda_min(H(lam))`` over ``Lambda_phi`` is exactly
    ``(mu - phi L)/(1 - phi)`` (attained at ``(e_1 - phi e_2)/(1 - phi)``)."""
    mu = check_in_range(mu, "mu", low=0.0)
    L = check_in_range(L, "L", low=mu)
    n = check_integer(n, "n", low=2)
    d = check_integer(d, "d", low=1)
    Hs = np.stack([mu * np.eye(d), L * np.eye(d)] + [np.eye(d) * (mu + L) / 2] * (n - 2))
    return QuadraticProblem(Hs, np.zeros((n, d)))


def lemma8_strong_convexity(*, problem: QuadraticProblem, A: CappedSimplex, B: CappedSimplex, phi: float,
                            mu: float | None = None, L: float | None = None) -> InstanceResult:
    r"""001 Lemma 8 / Prop. 10 (reconstructed): ``lambda_min(sum_i lam_i H_i) >= (mu - phi L)/(1 - phi)``
    for every ``lam in Lambda_phi(A, B)`` when every client is ``mu``-strongly convex and ``L``-smooth.

    ``measured``: ``min_{lam in Lambda_phi} lambda_min(H(lam))``, exact (vertex enumeration,
    :func:`~fairtheory.objectives.relative.convex_regime`); ``theory``: ``(mu - phi L)/(1 - phi)`` with
    ``mu``, ``L`` the problem's constants unless given.  ``extra``: the minimising member and the method."""
    check_problem(problem, QuadraticProblem)
    mu = problem.strong_convexity() if mu is None else check_in_range(mu, "mu", low=0.0)
    L = problem.smoothness() if L is None else check_in_range(L, "L", low=0.0)
    reg = convex_regime(problem, IntegratedSet(A, B, phi))
    return InstanceResult(reg.min_eig, lemma8_bound(mu, L, phi), {"lam": reg.lam, "method": reg.method, "mu": mu, "L": L})


# ---------------------------------------------------------------------------- exact routes
def routes_agree(*, problem: QuadraticProblem, A: CappedSimplex, B: CappedSimplex, phi: float,
                 rng: Any = None) -> InstanceResult:
    r"""Problem (8) solved by two independent exact routes (convex regime, ``d <= 3``).

    ``measured``: the value of the global search :func:`~fairtheory.exact.relative.global_search_minimax`
    (grid plus multistart, jittered by ``rng``: a Generator or a seed); ``theory``: the value of the
    certified SDP dual route :func:`~fairtheory.exact.relative.solve_integrated_minimax`.  ``extra``:
    the SDP's closed-form certified gap."""
    from fairtheory.exact.relative import global_search_minimax, solve_integrated_minimax

    check_problem(problem, QuadraticProblem)
    I = IntegratedSet(A, B, phi)
    sdp = solve_integrated_minimax(problem, I)
    gs = global_search_minimax(problem, I, rng=np.random.default_rng(rng))
    return InstanceResult(float(gs.value), float(sdp.value), {"certified_gap": float(sdp.certificate["gap_closed_form"])})


# ---------------------------------------------------------------------------- Theorems 1 and 2
def monotone_allowance(U: float, V: float, Vn: float, eps: float, eps_n: float, dphi: float, phi_n: float) -> float:
    r"""Largest increase ``I(w') - I(w)`` compatible with 001 Thm. 1 when ``w``, ``w'`` are only
    ``eps``-, ``eps'``-optimal for ``D_phi``, ``D_phi'`` (``phi < phi'``, ``dphi = phi' - phi``).

    Optimality gives ``(phi' - phi)(V' - V) >= -(eps + eps')`` and
    ``U' <= U + phi'(V' - V) + eps'``, hence (with ``U >= phi' V``)
    ``I' - I <= [delta (U - phi' V) + eps' V]/(V V')``, ``delta = (eps + eps')/(phi' - phi)``.
    Exact solutions (``eps = 0``) give the theorem's ``I' <= I``."""
    U = check_in_range(U, "U")
    V = check_in_range(V, "V", low=0.0, low_inclusive=False)
    Vn = check_in_range(Vn, "Vn", low=0.0, low_inclusive=False)
    eps = check_in_range(eps, "eps", low=0.0)
    eps_n = check_in_range(eps_n, "eps_n", low=0.0)
    dphi = check_in_range(dphi, "dphi", low=0.0, low_inclusive=False)
    phi_n = check_in_range(phi_n, "phi_n", low=0.0, high=1.0, high_inclusive=False)
    delta = (eps + eps_n) / dphi
    return (delta * max(U - phi_n * V, 0.0) + eps_n * V) / (V * Vn)


def certified_curve(*, problem: QuadraticProblem, A: CappedSimplex, B: CappedSimplex, phis: Any,
                    require_convex: bool = True) -> dict[str, Any]:
    """Certified exact solutions ``w*_phi`` of problem (8) on a grid of ``phi`` and ``U``, ``V``, ``I`` there.

    ``eps`` is the certified suboptimality of ``w*_phi`` for ``D_phi``: ``(1 - phi)`` times the
    closed-form duality gap plus float64 rounding (:data:`ROUND`).  Points the solver cannot certify
    (non-convex regime with a duality gap) are left out and counted in ``uncertified``."""
    from fairtheory.exact.relative import solve_integrated_minimax

    check_problem(problem, QuadraticProblem)
    rows = []
    for phi in as_array(phis, "phis", ndim=1):  # one SDP per grid point
        try:
            r = solve_integrated_minimax(problem, IntegratedSet(A, B, float(phi)), require_convex=require_convex)
        except Exception:  # uncertified point: left out, counted
            continue
        U, V = unfairness_parts(np.asarray(problem.losses(r.argmin)), A, B)
        eps = (1.0 - phi) * (max(r.certificate["gap_closed_form"], 0.0) + ROUND * max(1.0, abs(r.value)))
        rows.append((phi, U, V, eps, *r.argmin))
    arr = np.array(rows).reshape(-1, 4 + problem.d)
    return {"phi": arr[:, 0], "U": arr[:, 1], "V": arr[:, 2], "eps": arr[:, 3], "index": arr[:, 1] / arr[:, 2],
            "w": arr[:, 4:], "uncertified": len(np.atleast_1d(phis)) - arr.shape[0]}


def theorem1_monotone(*, problem: QuadraticProblem, A: CappedSimplex, B: CappedSimplex, phis: Any,
                      require_convex: bool = True, curve: dict[str, Any] | None = None) -> InstanceResult:
    r"""001 Thm. 1 (reconstructed): ``phi -> I(w*_phi; A, B)`` is non-increasing.

    Along the grid, each consecutive increase ``I(w*_phi') - I(w*_phi)`` must stay below the allowance
    :func:`monotone_allowance` derived from the certified suboptimality of the two exact solutions.
    ``measured``/``theory``: the increase and its allowance at the pair of smallest margin.
    ``extra``: ``increase`` and ``allowance`` for every consecutive pair, ``pair`` (the worst one's
    index) and the ``curve`` (:func:`certified_curve`; pass ``curve`` to reuse one computed for the
    same arguments)."""
    c = certified_curve(problem=problem, A=A, B=B, phis=phis, require_convex=require_convex) if curve is None else curve
    m = c["phi"].size
    inc = c["index"][1:] - c["index"][:-1]
    allow = np.array([monotone_allowance(c["U"][j], c["V"][j], c["V"][j + 1], c["eps"][j], c["eps"][j + 1],
                                         c["phi"][j + 1] - c["phi"][j], c["phi"][j + 1]) for j in range(m - 1)])
    if m < 2:
        return InstanceResult(float("nan"), float("nan"), {"increase": inc, "allowance": allow, "pair": None,
                                                           "curve": c})
    j = int(np.argmin(allow - inc))
    return InstanceResult(float(inc[j]), float(allow[j]), {"increase": inc, "allowance": allow, "pair": j, "curve": c})


def theorem2_strict(*, problem: QuadraticProblem, A: CappedSimplex, B: CappedSimplex, phis: Any,
                    require_convex: bool = True, move_tol: float = MOVE_TOL,
                    curve: dict[str, Any] | None = None) -> InstanceResult:
    r"""001 Thm. 2 (reconstructed): under the imbalance assumption the index decreases strictly for some
    ``phi > 0``.  The assumption's text was lost; what survives says it forces ``w*_phi != w*_0``.

    At the first grid ``phi`` where the certified solution moved (``||w*_phi - w*_0|| > move_tol
    (1 + ||w*_0||)``): ``measured`` = ``I(w*_phi)``, ``theory`` = ``I(w*_0)`` minus the allowance of
    :func:`monotone_allowance` (the claim is ``measured <= theory``: a strict decrease beyond what the
    certified suboptimality can explain).  When the solution never moves (the assumption fails) both are
    ``nan`` and ``extra["moved"]`` is ``False``.  ``phis`` must start at 0."""
    c = certified_curve(problem=problem, A=A, B=B, phis=phis, require_convex=require_convex) if curve is None else curve
    nan = InstanceResult(float("nan"), float("nan"), {"moved": False, "curve": c})
    if c["phi"].size < 2 or c["phi"][0] != 0.0:
        return nan
    w0 = c["w"][0]
    moved = np.flatnonzero(np.linalg.norm(c["w"] - w0, axis=1) > move_tol * (1.0 + np.linalg.norm(w0)))
    if moved.size == 0:
        return nan
    j = int(moved[0])
    allow = monotone_allowance(c["U"][0], c["V"][0], c["V"][j], c["eps"][0], c["eps"][j], c["phi"][j] - c["phi"][0],
                               c["phi"][j])
    return InstanceResult(float(c["index"][j]), float(c["index"][0] - allow),
                          {"moved": True, "phi": float(c["phi"][j]), "index0": float(c["index"][0]), "allowance": allow,
                           "decrease": float(c["index"][0] - c["index"][j]), "curve": c})


# ---------------------------------------------------------------------------- penguins
def penguins_phi_grid(quick: bool) -> Array:
    """Dense near 0 (where the curves move), then coarse up to 0.95 (``quick``: 11 points, else 41)."""
    if not isinstance(quick, (bool, np.bool_)):
        raise FairtheoryTypeError(f"quick must be True or False, got {quick!r}")
    k = 6 if quick else 21
    return np.unique(np.concatenate([np.linspace(0.0, 0.1, k), np.linspace(0.1, 0.95, k)]))


def penguins_curve(*, sets: str, phis: Any) -> InstanceResult:
    r"""001 Sec. 4.3 (reconstructed): the Palmer penguins index curve ``phi -> I(w*_phi)`` for ``A = B`` one
    of :data:`PENGUIN_SETS` (``"Delta_3"`` or ``"C(2/3)"``), through :func:`theorem1_monotone`.

    Problem (8) is outside the convex regime for every ``phi > 0`` here; each point is certified by the
    closed-form duality gap (``require_convex=False``).  ``extra`` additionally holds the per-species
    ``losses`` at every ``w*_phi`` (rows follow ``curve["phi"]``)."""
    from fairtheory.problems.penguins import penguins_problem

    if sets not in PENGUIN_SETS:
        raise FairtheoryValueError(f"sets must be one of {tuple(PENGUIN_SETS)}, got {sets!r}")
    P = penguins_problem()
    S = PENGUIN_SETS[sets]()
    res = theorem1_monotone(problem=P, A=S, B=S, phis=phis, require_convex=False)
    F = np.array([np.asarray(P.losses(w)) for w in res.extra["curve"]["w"]])
    return InstanceResult(res.measured, res.theory, {**res.extra, "losses": F})


# ---------------------------------------------------------------------------- Theorem 3
def theorem3_rate(*, problem: QuadraticProblem, A: CappedSimplex, phi: float, rounds: int, seeds: int = 1,
                  grad_noise: float = 0.0, accelerate: bool = True, mu: float | None = None, L: float | None = None,
                  fit_from: int | None = None) -> InstanceResult:
    r"""001 Thm. 3 (reconstructed): Scaff-PD-IA converges at ``O(1/R^2)`` (deterministic) and ``O(1/R)``
    (stochastic gradients) in ``||w_R - w*||^2``.

    Scaff-PD-IA over ``Lambda_phi(A, A)`` (strongly convex regime ``phi < mu/L``) with
    :func:`~fairtheory.instances.baselines.safe_steps` (``kappa = 5``) and, with ``accelerate``, the
    acceleration schedule driven by ``mu_accel = (mu - phi L)/(2(1 - phi))`` (half the modulus of
    001 Lemma 8; ``mu``, ``L`` the problem's constants unless given).  ``w*`` is the exact SDP
    solution; ``grad_noise`` adds ``N(0, grad_noise^2 I)`` to every client gradient (exact losses, as in
    the theorem's Assumption 5) and the squared distance is averaged over ``seeds`` seeds.

    ``measured``: the least-squares slope of ``log ||w_r - w*||^2`` against ``log r`` on log-spaced
    rounds from ``fit_from`` (default 10, or the last decade ``max(10, R/10)`` with noise, so the
    deterministic transient does not count) up to the first round at the exact solution's accuracy
    (``floor = max(1e-16, 100 u^2)``, ``u`` the closed-form certified uncertainty of the SDP's ``w*``) or
    the horizon; ``theory``: the theorem's slope, ``-2`` (deterministic) or ``-1`` (noisy).  A geometric
    decay gives a steeper slope than any polynomial one.  ``extra``: the fit
    (:func:`~fairtheory.instances.baselines.loglog_slope`), the ``floor`` and ``error_curve``, the squared
    distance after every round."""
    from fairtheory.exact.relative import solve_integrated_minimax
    from fairtheory.instances.baselines import FLOOR, certified_distance, loglog_slope, safe_steps, scaffpd_errors

    check_problem(problem, QuadraticProblem)
    I = IntegratedSet(A, A, phi)
    rounds = check_integer(rounds, "rounds", low=1)
    seeds = check_integer(seeds, "seeds", low=1)
    grad_noise = check_in_range(grad_noise, "grad_noise", low=0.0)
    mu = problem.strong_convexity() if mu is None else check_in_range(mu, "mu", low=0.0)
    L = problem.smoothness() if L is None else check_in_range(L, "L", low=0.0)
    ex = solve_integrated_minimax(problem, I)
    mu_eff = lemma8_bound(mu, L, phi)
    unc = certified_distance(problem, I, ex.argmin, ex.extra["a"], ex.extra["b"], mu_eff)
    floor = max(FLOOR, 100.0 * unc ** 2)  # below this the reference w* itself is uncertain
    hyper: dict[str, Any] = dict(safe_steps(problem, phi))
    if accelerate:
        hyper["mu_accel"] = mu_eff / 2.0
    if grad_noise > 0:
        hyper["grad_noise"] = grad_noise
    errs = np.mean([scaffpd_errors(problem, I, ex.argmin, rounds, seed=s, **hyper)[0] for s in range(seeds)], axis=0)
    r0 = fit_from if fit_from is not None else (10 if grad_noise == 0 else max(10, rounds // 10))
    fit = loglog_slope(errs, r0=r0, floor=floor)
    return InstanceResult(fit["slope"], -2.0 if grad_noise == 0 else -1.0, {**fit, "floor": floor, "error_curve": errs})


# ---------------------------------------------------------------------------- skewness
def skewness_monotone(*, A: CappedSimplex, B: CappedSimplex, phis: Any) -> InstanceResult:
    r"""001 Sec. 6 / Prop. 5 (reconstructed): ``phi -> s(Lambda_phi(A, B))`` is non-decreasing, with
    ``s(Lambda) = max_{lam in Lambda} n ||lam||^2`` computed exactly (vertex enumeration).

    ``measured``/``theory``: ``s`` at ``phi_{j+1}`` and at ``phi_j`` for the consecutive pair with the
    smallest increase (the claim is ``measured >= theory``).  ``extra``: ``phi``, ``skewness`` along
    the grid, ``pair`` = ``j``."""
    ph = as_array(phis, "phis", ndim=1)
    s = np.array([skewness(IntegratedSet(A, B, float(p))) for p in ph])
    j = worst_step(s, increasing=True)
    return InstanceResult(float(s[j + 1]), float(s[j]), {"phi": ph, "skewness": s, "pair": j})
