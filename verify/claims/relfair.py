"""Relative fairness claims (``relative.md``, a reconstruction of 001; ``exact.md`` Sec. 3).

Ground truth: closed forms (sorting, permutations, eigenvalues at the vertices of the sets) and the
certified SDP route :func:`fairtheory.exact.relative.solve_integrated_minimax`, cross-checked by the
independent global search :func:`fairtheory.exact.relative.global_search_minimax` (``d <= 3``).

Fixed tolerances (chosen before the runs, never tuned):
``EQ_TOL = 1e-12`` (relative, identities evaluated in float64), ``ROUTES_TOL = 1e-6`` (relative
agreement of the two exact routes, from the brief), ``ROUND = 1e-12`` (relative float64 rounding
added to the certified suboptimality of each exact solution).  The monotonicity allowance of
Theorem 1 is *derived* from the certified gaps (see :func:`monotone_allowance`), not chosen.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

import numpy as np

from fairtheory import metrics
from fairtheory.exact.relative import global_search_minimax, solve_integrated_minimax
from fairtheory.objectives.relative import (
    convex_regime,
    lemma8_bound,
    prop9_bounds,
    relative_index,
    skewness,
    unfairness_parts,
)
from fairtheory.problems.penguins import penguins_problem
from fairtheory.problems.quadratic import QuadraticProblem, random_quadratic
from fairtheory.sets import CappedSimplex, IntegratedSet
from verify.core import Context, Outcome, Tally, claim, combine

EQ_TOL = 1e-12
ROUTES_TOL = 1e-6
ROUND = 1e-12


# ---------------------------------------------------------------------------- independent references
def _top_mean(x: np.ndarray, q: float) -> float:
    """Mean of the largest ``q m`` entries, fractional last entry, by explicit sorting."""
    s = np.sort(x)[::-1]
    m = x.size
    take = np.clip(q * m - np.arange(m), 0.0, 1.0)
    return float(take @ s / (q * m))


def _bottom_mean(x: np.ndarray, q: float) -> float:
    return -_top_mean(-x, q)


def _loss_vector(rng: np.random.Generator, m: int) -> np.ndarray:
    kind = rng.integers(3)
    if kind == 0:
        return rng.uniform(0.1, 10.0, size=m)
    if kind == 1:
        return np.exp(rng.normal(0.0, 1.5, size=m))
    return rng.integers(1, 4, size=m).astype(float)  # ties


# ---------------------------------------------------------------------------- named measures
@claim("relfair.index.named_measures")
def named_measures(ctx: Context) -> Outcome:
    """001 Sec. 3.1, App. B (reconstructed): ``I(f; C(.2), C(.2))`` is the 20:20 ratio,
    ``I(f; C(.1), C(.4))`` is 4 x the Palma (share) ratio = top-10% mean / bottom-40% mean, and
    ``I(f; {uniform}, Delta)`` is mean/min = ``1/(1 - Atkinson_inf)``; references by explicit sorting."""
    rng = ctx.rng("named")
    parts = {k: Tally("equal") for k in ("ratio_2020", "palma", "atkinson")}
    for _ in range(ctx.count(200, 5000)):
        m = int(rng.integers(1, 60))
        f = _loss_vector(rng, m)
        n = f.size
        c2, c1, c4 = CappedSimplex.cvar(n, 0.2), CappedSimplex.cvar(n, 0.1), CappedSimplex.cvar(n, 0.4)
        inst = {"losses": f.tolist()}
        ref = _top_mean(f, 0.2) / _bottom_mean(f, 0.2)
        got = relative_index(f, c2, c2)
        parts["ratio_2020"].add(abs(got - ref) / ref, EQ_TOL, inst, size=m)
        parts["ratio_2020"].add(abs(metrics.ratio_2020(f) - ref) / ref, EQ_TOL, inst, size=m)
        ref_p = (0.1 * _top_mean(f, 0.1)) / (0.4 * _bottom_mean(f, 0.4))  # shares
        parts["palma"].add(abs(relative_index(f, c1, c4) / 4.0 - ref_p) / ref_p, EQ_TOL, inst, size=m)
        parts["palma"].add(abs(metrics.palma_ratio(f) - ref_p) / ref_p, EQ_TOL, inst, size=m)
        ref_a = f.mean() / f.min()
        got_a = relative_index(f, CappedSimplex.singleton(np.full(n, 1.0 / n)), CappedSimplex.simplex(n))
        parts["atkinson"].add(abs(got_a - ref_a) / ref_a, EQ_TOL, inst, size=m)
        parts["atkinson"].add(abs(metrics.atkinson(f) - (1.0 - 1.0 / ref_a)), EQ_TOL, inst, size=m)
    return combine({k: t.outcome() for k, t in parts.items()},
                   note="relative errors vs explicit sorting; Palma as share ratio (index/4)")


@claim("relfair.example2.sorted")
def example2_sorted(ctx: Context) -> Outcome:
    """001 Ex. 2 (reconstructed): with ``A = B = C(k/n)`` the index is (mean of top-k)/(mean of
    bottom-k), where top-k mean = ``max_sigma (1/k) sum_{j<=k} f_sigma(j)`` over all permutations
    (brute force, ``n <= 7``) and bottom-k mean the min."""
    rng = ctx.rng("ex2")
    t = Tally("equal")
    for _ in range(ctx.count(60, 600)):
        n = int(rng.integers(1, 8))
        k = int(rng.integers(1, n + 1))
        f = _loss_vector(rng, n)
        perms = np.array(list(itertools.permutations(range(n))))[:, :k]
        sums = f[perms].sum(axis=1) / k
        ref = sums.max() / sums.min()
        S = CappedSimplex.cvar(n, k / n)
        got = relative_index(f, S, S)
        t.add(abs(got - ref) / ref, EQ_TOL, {"losses": f.tolist(), "k": k}, size=n)
    return t.outcome(note="relative error vs permutation brute force")


# ---------------------------------------------------------------------------- Prop. 9
@claim("relfair.prop9.majorization")
def prop9(ctx: Context) -> Outcome:
    """001 Prop. 9 (reconstructed): ``phi + (U - phi V)/C <= U/V <= phi + (U - phi V)/c`` for
    ``0 < c <= V <= C``, ``U >= V`` (A and B share a point); lower bound non-decreasing and upper
    bound non-increasing along a grid of ``phi`` in ``[0, 1)``."""
    rng = ctx.rng("prop9")
    parts = {k: Tally("upper") for k in ("lower<=ratio", "ratio<=upper", "lower_monotone", "upper_monotone")}
    phis = np.linspace(0.0, 0.99, 34)
    for _ in range(ctx.count(100, 2000)):
        n = int(rng.integers(2, 12))
        P = random_quadratic(n, 2, rng=rng, offset=1.0)
        f = np.asarray(P.losses(rng.normal(size=2))) + 1e-3
        a = float(rng.uniform(1.0 / n, 1.0))
        A, B = CappedSimplex.cvar(n, a), CappedSimplex.cvar(n, float(rng.uniform(1.0 / n, 1.0)))
        U, V = unfairness_parts(f, A, B)
        c, C = V * float(rng.uniform(0.05, 1.0)), V * float(rng.uniform(1.0, 20.0))
        lo, hi = prop9_bounds(U, V, phis, c, C)
        inst = {"U": U, "V": V, "c": c, "C": C}
        scale = max(1.0, U / V)
        parts["lower<=ratio"].add(float(np.max(lo)) / scale, U / V / scale, inst)
        parts["ratio<=upper"].add(U / V / scale, float(np.min(hi)) / scale, inst)
        parts["lower_monotone"].add(float(np.max(lo[:-1] - lo[1:])), 0.0, inst)
        parts["upper_monotone"].add(float(np.max(hi[1:] - hi[:-1])), 0.0, inst)
    return combine({k: t.outcome() for k, t in parts.items()},
                   note="random quadratic losses, CVaR sets (shared uniform point), 34-point phi grid")


# ---------------------------------------------------------------------------- Lemma 8
@claim("relfair.lemma8.strong_convexity")
def lemma8(ctx: Context) -> Outcome:
    """001 Lemma 8 / Prop. 10 (reconstructed): every ``lam in Lambda_phi(A, B)`` gives
    ``lambda_min(H(lam)) >= (mu - phi L)/(1 - phi)``; the minimum over the set is computed exactly
    at the vertices; equality on the extremal instance ``H_1 = mu I``, ``H_2 = L I``, ``A = B = Delta``."""
    rng = ctx.rng("lemma8")
    bound_t, eq_t = Tally("upper"), Tally("equal")
    for _ in range(ctx.count(40, 400)):
        n, d = int(rng.integers(2, 6)), int(rng.integers(1, 4))
        mu = float(rng.uniform(0.1, 1.0))
        L = mu + float(rng.uniform(0.0, 3.0))
        P = random_quadratic(n, d, rng=rng, mu=mu, L=L)
        mu_p, L_p = P.strong_convexity(), P.smoothness()
        A = _random_set(rng, n)
        B = _random_set(rng, n)
        phi = float(rng.uniform(0.0, 0.95))
        reg = convex_regime(P, IntegratedSet(A, B, phi))
        bound_t.add(lemma8_bound(mu_p, L_p, phi) - reg.min_eig, 0.0, {"n": n, "d": d, "phi": phi}, size=n)
        # extremal instance
        Hs = np.stack([mu * np.eye(d), L * np.eye(d)] + [np.eye(d) * (mu + L) / 2] * (n - 2))
        Pe = QuadraticProblem(Hs, np.zeros((n, d)))
        Sn = CappedSimplex.simplex(n)
        m_e = convex_regime(Pe, IntegratedSet(Sn, Sn, phi)).min_eig
        ref = lemma8_bound(mu, L, phi)
        eq_t.add(abs(m_e - ref) / max(1.0, abs(ref)), EQ_TOL, {"mu": mu, "L": L, "phi": phi}, size=n)
    return combine({"bound": bound_t.outcome(note="measured = (mu - phi L)/(1 - phi) - min eig, bound = 0"),
                    "attained": eq_t.outcome()})


def _random_set(rng: np.random.Generator, n: int) -> CappedSimplex:
    kind = rng.integers(3)
    if kind == 0:
        return CappedSimplex.simplex(n)
    if kind == 1:
        return CappedSimplex.cvar(n, float(rng.uniform(1.0 / n, 1.0)))
    caps = rng.uniform(0.0, 1.0, size=n)
    return CappedSimplex(caps / caps.sum() * float(rng.uniform(1.0, 2.5)))


# ---------------------------------------------------------------------------- exact routes
@claim("relfair.exact.routes_agree")
def routes_agree(ctx: Context) -> Outcome:
    """``exact.md`` Sec. 3: the certified SDP dual route and the closed-form global search agree to
    ``1e-6`` relative on convex-regime instances with ``d <= 3``."""
    rng = ctx.rng("routes")
    t = Tally("equal")
    gaps = []
    for _ in range(ctx.count(5, 60)):
        n, d = int(rng.integers(2, 5 if ctx.quick else 7)), int(rng.integers(1, 4))
        P = random_quadratic(n, d, rng=rng, mu=float(rng.uniform(0.3, 1.0)), L=2.0,
                             spread=float(rng.uniform(0.5, 3.0)), offset=1.0)
        A = _random_set(rng, n)
        B = A if rng.random() < 0.5 else _random_set(rng, n)
        phi = float(rng.uniform(0.0, 0.9))
        while not convex_regime(P, IntegratedSet(A, B, phi)).convex:
            phi *= 0.5
        I = IntegratedSet(A, B, phi)
        sdp = solve_integrated_minimax(P, I)
        gs = global_search_minimax(P, I, rng=rng)
        gaps.append(sdp.certificate["gap_closed_form"])
        t.add(abs(gs.value - sdp.value) / max(1.0, abs(sdp.value)), ROUTES_TOL,
              {"n": n, "d": d, "phi": phi, "sdp": sdp.value, "global_search": gs.value}, size=n * d)
    return t.outcome(note="relative |global search - SDP|",
                     details={"max_certified_gap": float(np.max(gaps))})


# ---------------------------------------------------------------------------- Theorem 1 / 2
def monotone_allowance(U: float, V: float, Vn: float, eps: float, eps_n: float, dphi: float,
                       phi_n: float) -> float:
    r"""Largest increase ``I(w') - I(w)`` compatible with Theorem 1 when ``w``, ``w'`` are only
    ``eps``-, ``eps'``-optimal for ``D_phi``, ``D_phi'`` (``phi < phi'``, ``dphi = phi' - phi``).

    Optimality gives ``(phi' - phi)(V' - V) >= -(eps + eps')`` and
    ``U' <= U + phi'(V' - V) + eps'``, hence (with ``U >= phi' V``)
    ``I' - I <= [delta (U - phi' V) + eps' V]/(V V')``, ``delta = (eps + eps')/(phi' - phi)``.
    Exact solutions (``eps = 0``) give the theorem's ``I' <= I``."""
    delta = (eps + eps_n) / dphi
    return (delta * max(U - phi_n * V, 0.0) + eps_n * V) / (V * Vn)


def _certified_curve(P: QuadraticProblem, A: CappedSimplex, B: CappedSimplex, phis: np.ndarray,
                     require_convex: bool = True) -> dict[str, np.ndarray]:
    """Exact solutions on the grid; ``eps`` = certified suboptimality of ``w*_phi`` for ``D_phi``."""
    rows = []
    for phi in phis:
        try:
            r = solve_integrated_minimax(P, IntegratedSet(A, B, float(phi)), require_convex=require_convex)
        except Exception:  # uncertified point (non-convex regime with a duality gap): left out, counted
            continue
        U, V = unfairness_parts(np.asarray(P.losses(r.argmin)), A, B)
        eps = (1.0 - phi) * (max(r.certificate["gap_closed_form"], 0.0) + ROUND * max(1.0, abs(r.value)))
        rows.append((phi, U, V, eps, *r.argmin))
    arr = np.array(rows).reshape(-1, 4 + P.d)
    return {"phi": arr[:, 0], "U": arr[:, 1], "V": arr[:, 2], "eps": arr[:, 3],
            "index": arr[:, 1] / arr[:, 2],
            "w": arr[:, 4:], "uncertified": len(phis) - arr.shape[0]}


@functools.lru_cache(maxsize=4)
def _theorem_instances(quick: bool, seed: int) -> list[dict[str, Any]]:
    """Random instances with certified curves (shared by Theorems 1 and 2)."""
    ctx = Context(quick, seed)
    rng = ctx.rng("theorem1")
    n_inst = ctx.count(4, 100)
    n_phi = ctx.count(8, 20)
    out = []
    for j in range(n_inst):
        kind = ("common", "hetero", "wide")[j % 3]
        n, d = int(rng.integers(3, 8)), int(rng.integers(1, 4))
        if kind == "common":  # f_i = 0.5 (w - c_i)^T H (w - c_i) + e_i: convex for every phi
            Q = random_quadratic(1, d, rng=rng, mu=0.5, L=2.0).H[0]
            P = QuadraticProblem(np.broadcast_to(Q, (n, d, d)).copy(), 2.0 * rng.normal(size=(n, d)),
                                 rng.uniform(0.05, 1.0, size=n))
            phis, req = np.linspace(0.0, 0.95, n_phi), True
        else:
            mu, L = 1.0, float(rng.uniform(1.5, 4.0))
            P = random_quadratic(n, d, rng=rng, mu=mu, L=L, spread=2.0, offset=1.0)
            if kind == "hetero":  # Lemma 8 regime phi < mu/L
                phis, req = np.linspace(0.0, 0.95 * mu / L, n_phi), True
            else:  # wide grid, certified by the duality gap where it closes
                phis, req = np.linspace(0.0, 0.95, n_phi), False
        A = (_random_set(rng, n) if rng.random() < 0.5
             else CappedSimplex.cvar(n, float(rng.uniform(1.0 / n, 1.0))))
        B = A if rng.random() < 0.5 else CappedSimplex.cvar(n, float(rng.uniform(1.0 / n, 1.0)))
        if not (A.caps.min() >= 1.0 / n - 1e-15 and B.caps.min() >= 1.0 / n - 1e-15):
            B = A  # Theorem 1's proof needs A and B to share a point (then U >= V)
        curve = _certified_curve(P, A, B, phis, req)
        out.append({"kind": kind, "n": n, "d": d, "P": P, "A": A, "B": B, "curve": curve})
    return out


@claim("relfair.theorem1.monotone")
def theorem1(ctx: Context) -> Outcome:
    """001 Thm. 1 (reconstructed): ``phi -> I(w*_phi; A, B)`` is non-increasing.  Exact certified
    solutions on a ``phi`` grid (20 points in full mode); each consecutive increase must stay below the
    allowance derived from the certified gaps (:func:`monotone_allowance`)."""
    t = Tally("upper")
    uncert = 0
    for inst in _theorem_instances(ctx.quick, ctx.seed):
        c = inst["curve"]
        uncert += c["uncertified"]
        for j in range(c["phi"].size - 1):
            allow = monotone_allowance(c["U"][j], c["V"][j], c["V"][j + 1], c["eps"][j], c["eps"][j + 1],
                                       c["phi"][j + 1] - c["phi"][j], c["phi"][j + 1])
            t.add(c["index"][j + 1] - c["index"][j], allow,
                  {"kind": inst["kind"], "n": inst["n"], "d": inst["d"], "phi": c["phi"][j],
                   "phi_next": c["phi"][j + 1], "index": c["index"][j], "index_next": c["index"][j + 1]},
                  size=inst["n"] * inst["d"])
    return t.outcome(note="measured = I(phi') - I(phi), consecutive grid points; bound = certified allowance",
                     details={"instances": len(_theorem_instances(ctx.quick, ctx.seed)),
                              "uncertified_points": uncert})


#: a solution "moves" when ``||w*_phi - w*_0|| > MOVE_TOL (1 + ||w*_0||)``; far above the accuracy
#: ``sqrt(2 eps / mu) ~ 1e-5`` of certified solutions
MOVE_TOL = 1e-3


@claim("relfair.theorem2.strict")
def theorem2(ctx: Context) -> Outcome:
    """001 Thm. 2 (reconstructed): under the imbalance Assumption 2 the index decreases strictly for
    some ``phi > 0``.  The precise assumption was lost; the surviving text says it forces the
    solutions ``w*_phi`` to differ from ``w*_0``.  Checked: on every instance whose certified solution
    moves on the grid (``||w*_phi - w*_0|| > MOVE_TOL (1 + ||w*_0||)``), the index at the first such
    ``phi`` is strictly below ``I(0)`` by more than the certified allowance.  Measured:
    ``I(phi) - I(0) + allowance``; must be ``<= 0``.  Instances whose solution never moves do not meet
    the assumption and are counted in ``details``."""
    t = Tally("upper")
    decreases, still = [], 0
    for inst in _theorem_instances(ctx.quick, ctx.seed):
        c = inst["curve"]
        if c["phi"].size < 2 or c["phi"][0] != 0.0:
            continue
        w0 = c["w"][0]
        moved = np.flatnonzero(np.linalg.norm(c["w"] - w0, axis=1) > MOVE_TOL * (1.0 + np.linalg.norm(w0)))
        if moved.size == 0:
            still += 1
            continue
        j = int(moved[0])
        allow = monotone_allowance(c["U"][0], c["V"][0], c["V"][j], c["eps"][0], c["eps"][j],
                                   c["phi"][j] - c["phi"][0], c["phi"][j])
        dec = c["index"][j] - c["index"][0]
        decreases.append(-dec)
        t.add(dec + allow, 0.0,
              {"kind": inst["kind"], "n": inst["n"], "d": inst["d"], "index0": c["index"][0],
               "phi": c["phi"][j], "index": c["index"][j]}, size=inst["n"] * inst["d"])
    return t.outcome(note="measured = I(phi) - I(0) + allowance at the first phi where w* moved",
                     details={"instances_solution_never_moved": still,
                              "min_decrease": float(np.min(decreases)) if decreases else None,
                              "median_decrease": float(np.median(decreases)) if decreases else None})


# ---------------------------------------------------------------------------- penguins
PENGUIN_SETS = {"Delta_3": lambda: CappedSimplex.simplex(3),
                "C(2/3)": lambda: CappedSimplex.cvar(3, 2.0 / 3.0)}


def penguins_phi_grid(quick: bool) -> np.ndarray:
    """Dense near 0 (where the curves move), then coarse up to 0.95."""
    k = 6 if quick else 21
    return np.unique(np.concatenate([np.linspace(0.0, 0.1, k), np.linspace(0.1, 0.95, k)]))


@claim("relfair.penguins.figure")
def penguins(ctx: Context) -> Outcome:
    """001 Sec. 4.3 (reconstructed): the Palmer penguins index curve ``phi -> I(w*_phi)`` is
    non-increasing for ``A = B = Delta_3`` and ``A = B = C(2/3)``.  Problem (8) is outside the convex
    regime for every ``phi > 0`` here; each point is certified by the closed-form duality gap."""
    parts = {}
    info = {}
    P = penguins_problem()
    phis = penguins_phi_grid(ctx.quick)
    for name, mk in PENGUIN_SETS.items():
        S = mk()
        c = _certified_curve(P, S, S, phis, require_convex=False)
        t = Tally("upper")
        for j in range(c["phi"].size - 1):
            allow = monotone_allowance(c["U"][j], c["V"][j], c["V"][j + 1], c["eps"][j], c["eps"][j + 1],
                                       c["phi"][j + 1] - c["phi"][j], c["phi"][j + 1])
            t.add(c["index"][j + 1] - c["index"][j], allow, {"sets": name, "phi": c["phi"][j]})
        out = t.outcome()
        if c["uncertified"]:
            out.status = "inconclusive"
        parts[name] = out
        info[name] = {"index_at_0": float(c["index"][0]), "index_at_end": float(c["index"][-1]),
                      "uncertified": c["uncertified"], "max_eps": float(c["eps"].max())}
    res = combine(parts, note="consecutive increases vs certified allowance")
    res.details["curves"] = info
    return res


# ---------------------------------------------------------------------------- skewness
@claim("relfair.skewness.monotone")
def skewness_monotone(ctx: Context) -> Outcome:
    """001 Sec. 6 / Prop. 5 (reconstructed): ``phi -> s(Lambda_phi(A, B))`` is non-decreasing, checked
    exactly (vertex enumeration) for ``A = B`` and nested ``A subset B`` (CVaR sets).  Outside that
    setting it can fail (e.g. singletons ``A = {(0.4, 0.6)}``, ``B = {(0, 1)}``; see details)."""
    rng = ctx.rng("skew")
    t = Tally("upper")
    phis = np.linspace(0.0, 0.95, 20)
    for _ in range(ctx.count(15, 200)):
        n = int(rng.integers(2, 8))
        a1, a2 = sorted(rng.uniform(1.0 / n, 1.0, size=2))
        kind = int(rng.integers(3))
        if kind == 0:
            A = B = _random_set(rng, n)
        elif kind == 1:
            A, B = CappedSimplex.cvar(n, a2), CappedSimplex.cvar(n, a1)  # larger a = smaller set: A in B
        else:
            A = B = CappedSimplex.cvar(n, a1)
        s = np.array([skewness(IntegratedSet(A, B, float(p))) for p in phis])
        t.add(float(np.max(s[:-1] - s[1:])) / max(1.0, float(s.max())), 0.0,
              {"n": n, "capsA": A.caps.tolist(), "capsB": B.caps.tolist()}, size=n)
    A0, B0 = CappedSimplex.singleton([0.4, 0.6]), CappedSimplex.singleton([0.0, 1.0])
    outside = [skewness(IntegratedSet(A0, B0, p)) for p in (0.0, 0.1)]
    return t.outcome(note="measured = largest relative decrease between consecutive phi",
                     details={"outside_setting_singletons_s(0), s(0.1)": outside})
