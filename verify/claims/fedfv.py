"""FedFV claims (004; spec ``fedfv.md``): projection step, alpha limits, Theorems 1-4, order effect.

Gradient sets come from seeded generators (Gaussian, wide magnitudes, near-antiparallel pairs,
noisy regular simplices whose steps all conflict) plus a hill-climbing adversary that maximises the
violation inside Theorem 1-2's hypothesis.  Theorems 1-2 are judged on the sets that meet their
hypothesis (every projection step meets a conflict, :func:`all_steps_conflict`); what happens
outside it is reported in ``details``.  Minimal counterexamples found by hand (see the docstrings of
the ``_MIN_*`` constants) are checked first so that the reported counterexample is the smallest.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from fairtheory.algorithms.fedfv_aggregate import (
    aggregate,
    internal_projection,
    n_unprojected,
    projection_coefficients,
)
from fairtheory.bounds.fedfv import (
    all_steps_conflict,
    epsilons,
    sequential_projections,
    theorem1_bound,
    theorem2_bound,
)
from fairtheory.exact.pareto import min_norm_point_2
from verify.core import Context, Outcome, Tally, claim, combine

#: 004 Thm. 1/2 absolute versions: m = 2, d = 2, inside the hypothesis (g_1 . g_2 = -1 < 0).
#: g_1' = (1/2, 1/2), g_2' = (0, 1), gbar' = (1/4, 3/4); g_2 . gbar' = 1/2 > 0 = bound at k = m.
_MIN_ABS = np.array([[1.0, 0.0], [-1.0, 1.0]])
#: App. A.1 "last target never conflicts": m = 3, d = 2.  g_3 = (1,0) is projected onto g_1's and
#: g_2's normal planes: (1/2, 1/2) then (-3/29, 15/58); g_1^(3) = (0,1), g_2^(3) = (0,-2) are
#: orthogonal to g_3, so g_3 . gbar' = -1/29 (3 vectors, 2 dims is minimal: m = 2 gives
#: g_2^(1) . g_2 >= 0 by Cauchy-Schwarz and d = 1 projections give 0).
_MIN_LAST = np.array([[-1.0, 1.0], [-5.0, -2.0], [1.0, 0.0]])
#: 004 Thm. 3 eq. 18: F_i = 0.5 ||theta - a_i||^2 (L = 1), theta = 0, eta = 1/L = 1.
_MIN_T3 = {"a1": [1.0, 0.0], "a2": [-0.1, 1.0], "theta": [0.0, 0.0], "eta": 1.0, "L": 1.0}
#: 004 Thm. 3 convergence: H_1 = diag(1, 0.2), H_2 = diag(0.2, 1), c_1 = (2, -2), c_2 = (-2, 2),
#: eta = 1/L = 1; the eq. 10 iteration has a 2-cycle through theta ~ (1.7923, 1.7923) (found by the
#: search below, confirmed with a plain formula implementation) with rho ~ 0.389.
_MIN_T3P = {"H1": [[1.0, 0.0], [0.0, 0.2]], "H2": [[0.2, 0.0], [0.0, 1.0]], "c1": [2.0, -2.0],
            "c2": [-2.0, 2.0], "eta": 1.0}


# --------------------------------------------------------------------------------- gradient sets
def _simplex(m: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """Noisy regular-simplex directions (pairwise cos = -1/(m-1)) with random magnitudes."""
    E = np.eye(m) - 1.0 / m
    Q, _ = np.linalg.qr(rng.normal(size=(max(d, m), max(d, m))))
    V = E @ Q[:m, :d] if d >= m - 1 else E[:, :d]
    V = V + 0.15 * rng.normal(size=V.shape) * np.linalg.norm(V, axis=1, keepdims=True).mean()
    return V * np.exp(rng.normal(size=(m, 1)))


def gradient_sets(rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """Seeded mix: Gaussian, wide magnitudes, near-antiparallel, noisy simplices."""
    out = []
    for i in range(count):
        m, d = int(rng.integers(2, 7)), int(rng.integers(2, 6))
        kind = i % 4
        if kind == 0:
            A = rng.normal(size=(m, d))
        elif kind == 1:
            A = rng.normal(size=(m, d)) * np.exp(2.0 * rng.normal(size=(m, 1)))
        elif kind == 2:
            base = rng.normal(size=d)
            sign = np.where(np.arange(m) % 2 == 0, 1.0, -1.0)[:, None]
            A = (sign * base + 0.1 * rng.normal(size=(m, d))) * np.exp(rng.normal(size=(m, 1)))
        else:
            A = _simplex(m, max(d, m - 1), rng)
        out.append(A)
    return out


def _analyse(A: np.ndarray) -> dict[str, Any]:
    P = sequential_projections(A)
    c = A @ P[-1].mean(axis=0)
    e1, e2 = epsilons(A)
    return {"c": c, "b1": theorem1_bound(A, e2), "b2": theorem2_bound(A, e1, e2),
            "hyp": all_steps_conflict(A), "eps1": e1, "eps2": e2,
            "scale": float(np.max(np.sum(A * A, axis=1)))}


def _adversarial(rng: np.random.Generator, restarts: int, iters: int) -> list[np.ndarray]:
    """Hill-climb inside the hypothesis, maximising max_k (-c_k - min(b1_k, b2_k)) / max||g||^2."""
    found = []
    for _ in range(restarts):
        m, d = int(rng.integers(3, 6)), int(rng.integers(2, 4))
        A = _simplex(m, max(d, m - 1), rng)

        def score(B: np.ndarray) -> float:
            if not all_steps_conflict(B):
                return -np.inf
            a = _analyse(B)
            return float(np.max(-a["c"] - np.minimum(a["b1"], a["b2"])) / a["scale"])

        f, step = score(A), 0.3
        for it in range(iters):
            B = A + step * rng.normal(size=A.shape) * np.linalg.norm(A, axis=1, keepdims=True)
            fb = score(B)
            if fb > f:
                A, f = B, fb
            elif it % 40 == 39:
                step *= 0.6
        if np.isfinite(f):
            found.append(A)
    return found


@lru_cache(maxsize=4)
def _instances(quick: bool, seed: int) -> tuple[tuple[np.ndarray, dict[str, Any]], ...]:
    ctx = Context(quick=quick, seed=seed)
    sets = gradient_sets(ctx.rng("fedfv.sets"), ctx.count(160, 2000))
    sets += _adversarial(ctx.rng("fedfv.adv"), ctx.count(3, 30), ctx.count(120, 600))
    sets = [_MIN_ABS, _MIN_LAST] + sets
    return tuple((A, _analyse(A)) for A in sets)


_HAND_MADE = {_MIN_ABS.tobytes(), _MIN_LAST.tobytes()}


def _size(A: np.ndarray) -> float:
    """Counterexample size: fewest vectors, then smallest dimension; hand-made minimal sets win ties."""
    return float(A.shape[0] * 100 + A.shape[1]) - (0.5 if A.tobytes() in _HAND_MADE else 0.0)


def _inst(A: np.ndarray, a: dict[str, Any], k: int) -> dict[str, Any]:
    return {"U": A, "k": k + 1, "conflict": float(a["c"][k]), "eps1": a["eps1"], "eps2": a["eps2"],
            "hypothesis_all_steps_conflict": a["hyp"]}


def _theorem(ctx: Context, bound_key: str, absolute: bool) -> tuple[Tally, Tally]:
    inside, outside = Tally("upper"), Tally("upper")
    for A, a in _instances(ctx.quick, ctx.seed):
        meas = np.abs(a["c"]) if absolute else -a["c"]
        marg = a[bound_key] - meas
        k = int(np.argmin(marg))
        (inside if a["hyp"] else outside).add(meas[k], a[bound_key][k], _inst(A, a, k), size=_size(A))
    return inside, outside


def _theorem_outcome(ctx: Context, bound_key: str, absolute: bool, note: str) -> Outcome:
    inside, outside = _theorem(ctx, bound_key, absolute)
    o_out = outside.outcome()
    det = {"outside_hypothesis": {"status": o_out.status, "instances": o_out.instances,
                                  "violations": outside.violations, "counterexample": o_out.counterexample}}
    return inside.outcome(note=note, details=det)


# ------------------------------------------------------------------------------------------ claims
@claim("fedfv.projection.step")
def projection_step(ctx: Context) -> Outcome:
    """004 Alg. 2 / App. A.2 eq. 7: after projecting onto ``g_j``'s normal plane the result does not
    conflict with ``g_j`` (``g_i^{(j)} . g_j >= 0``) and ``||g'||^2 = (1 - cos^2) ||g||^2``."""
    conf, norm = Tally("equal"), Tally("equal")
    for A, _ in _instances(ctx.quick, ctx.seed):
        m = A.shape[0]
        P = sequential_projections(A)
        for j in range(m):
            before, after, g = P[j], P[j + 1], A[j]
            scale = np.linalg.norm(before, axis=1) * np.linalg.norm(g) + 1e-300
            d_before = before @ g
            d_after = after @ g
            others = np.arange(m) != j
            conf.add(float(np.max(np.maximum(-d_after[others], 0.0) / scale[others])), 1e-10,
                     {"U": A, "target": j + 1}, size=_size(A))
            hit = others & (d_before < 0)
            if np.any(hit):
                n2b = np.sum(before[hit] ** 2, axis=1)
                cos2 = d_before[hit] ** 2 / (n2b * (g @ g))
                err = np.abs(np.sum(after[hit] ** 2, axis=1) - (1 - cos2) * n2b) / n2b
                norm.add(float(err.max()), 1e-10, {"U": A, "target": j + 1}, size=_size(A))
    return combine({"no_conflict_after": conf.outcome(), "eq7_norm": norm.outcome()},
                   note="float64 tolerance 1e-10 relative")


@claim("fedfv.alpha.limits")
def alpha_limits(ctx: Context) -> Outcome:
    """004 Sec. 3.4: ``alpha = 1`` keeps every update (FedAvg mean); ``alpha = 0`` projects every
    client (coefficients equal the all-projected walk).  Both counting rules."""
    one, zero = Tally("equal"), Tally("equal")
    rng = ctx.rng("fedfv.alpha")
    for A, _ in _instances(ctx.quick, ctx.seed):
        m = A.shape[0]
        losses = rng.normal(size=m)
        scale = float(np.max(np.linalg.norm(A, axis=1)))
        for rule in ("paper", "reference"):
            g1, C1 = internal_projection(A, losses, alpha=1.0, keep_rule=rule)
            one.add(float(np.max(np.abs(g1 - A.mean(axis=0))) / scale
                          + np.max(np.abs(C1 - np.eye(m)))), 1e-12, {"U": A, "rule": rule}, size=_size(A))
            _, C0 = internal_projection(A, losses, alpha=0.0, keep_rule=rule)
            Call = projection_coefficients(A @ A.T, np.argsort(losses, kind="stable"))
            zero.add(float(np.max(np.abs(C0 - Call))) + float(n_unprojected(m, 0.0, rule)), 1e-12,
                     {"U": A, "rule": rule}, size=_size(A))
    return combine({"alpha_1_fedavg": one.outcome(), "alpha_0_projects_all": zero.outcome()})


@claim("fedfv.theorem1.one_sided", citation="004 Thm. 1 (App. A.1 eq. 5)")
def theorem1_one_sided(ctx: Context) -> Outcome:
    """``g_k . gbar' >= -(eps^2/m) ||g_k|| sum_{j=k}^{m-1} sum_{i != j+1} ||g_i^{(j)}||`` on sets
    meeting the hypothesis; measured = max_k(-g_k . gbar' - bound_k) location."""
    return _theorem_outcome(ctx, "b1", False, "judged inside the hypothesis (every step conflicts)")


@claim("fedfv.theorem1.absolute", expected="refuted")
def theorem1_absolute(ctx: Context) -> Outcome:
    """Printed form ``|e_k . gbar'| <= (eps^2/m) sum ...`` (times ``||g_k||``); fails at ``k = m``
    where the bound is 0 but ``g_m . gbar' > 0`` (minimal: :data:`_MIN_ABS`)."""
    return _theorem_outcome(ctx, "b1", True, "judged inside the hypothesis; bound is 0 at k = m")


@claim("fedfv.theorem1.last_target", expected="refuted")
def theorem1_last_target(ctx: Context) -> Outcome:
    """App. A.1: "the final gradient gbar' will not conflict with [g_m]": ``g_m . gbar' >= 0`` for
    FedFV's projection rule on any gradient set (minimal counterexample :data:`_MIN_LAST`)."""
    t, inside = Tally("upper"), Tally("upper")
    for A, a in _instances(ctx.quick, ctx.seed):
        k = A.shape[0] - 1
        t.add(-a["c"][k], 0.0, _inst(A, a, k), size=_size(A))
        if a["hyp"]:
            inside.add(-a["c"][k], 0.0, _inst(A, a, k), size=_size(A))
    o = inside.outcome()
    return t.outcome(note="FedFV rule, all sets; inside Thm. 1's hypothesis no violation was found"
                     if not inside.violations else "FedFV rule, all sets",
                     details={"inside_hypothesis": {"status": o.status, "instances": o.instances,
                                                    "violations": inside.violations}})


@claim("fedfv.theorem2.one_sided")
def theorem2_one_sided(ctx: Context) -> Outcome:
    """``g_k . gbar' >= -(m-1)/m (max ||g_i||)^2 f(m, k, eps1, eps2)`` inside the hypothesis."""
    return _theorem_outcome(ctx, "b2", False, "judged inside the hypothesis (every step conflicts)")


@claim("fedfv.theorem2.absolute", expected="refuted")
def theorem2_absolute(ctx: Context) -> Outcome:
    """Printed ``|g_k . gbar'| <= (m-1)/m (max ||g_i||)^2 f(m, k, eps1, eps2)``; ``f(m, m, .) = 0``."""
    return _theorem_outcome(ctx, "b2", True, "judged inside the hypothesis; f(m, m, .) = 0")


# ------------------------------------------------------------------------------------- Theorem 3
def _eq10(g1: np.ndarray, g2: np.ndarray) -> np.ndarray:
    """004 App. A.3 eq. 10 direction (conflict case); FedAvg mean otherwise."""
    c = float(g1 @ g2)
    if c >= 0:
        return 0.5 * (g1 + g2)
    return g1 + g2 - c / float(g1 @ g1) * g1 - c / float(g2 @ g2) * g2


def _quad_pairs(rng: np.random.Generator, count: int) -> list[dict[str, np.ndarray]]:
    out = []
    for _ in range(count):
        d = int(rng.integers(2, 5))
        Hs = []
        for _ in range(2):
            Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
            Hs.append(Q @ np.diag(rng.uniform(0.1, 1.0, size=d)) @ Q.T)
        out.append({"H1": Hs[0], "H2": Hs[1], "c1": 2 * rng.normal(size=d), "c2": 2 * rng.normal(size=d)})
    return out


def _F(q: dict[str, Any], w: np.ndarray) -> tuple[float, float, np.ndarray, np.ndarray]:
    H1, H2 = np.asarray(q["H1"]), np.asarray(q["H2"])
    r1, r2 = w - np.asarray(q["c1"]), w - np.asarray(q["c2"])
    return 0.5 * r1 @ H1 @ r1, 0.5 * r2 @ H2 @ r2, H1 @ r1, H2 @ r2


@claim("fedfv.theorem3.descent", expected="refuted")
def theorem3_descent(ctx: Context) -> Outcome:
    """004 Thm. 3 eq. 18 as printed: with ``F = (F_1 + F_2)/2``, ``F_i`` L-smooth, ``eta <= 1/L`` and
    ``g_1 . g_2 < 0``, ``F(theta - eta gbar') <= F(theta) - (eta/2)(1 - cos^2) ||g_1 + g_2||^2`` with
    ``gbar'`` the eq. 10 direction.  For isotropic quadratics ``F(theta+) - F(theta) =
    (1-cos^2)[-(eta/2) S + (L eta^2/2)(S - 2 g_1.g_2)]``, ``S = ||g_1||^2 + ||g_2||^2``: the printed
    inequality fails whenever ``eta > 2|g_1.g_2| / (L (S + 2|g_1.g_2|))``.  ``details["sum_reading"]``
    checks the reading under which the derivation is right: ``F = F_1 + F_2`` with ``L`` the
    smoothness of the sum and ``eta <= 1/L``."""
    printed, summed = Tally("upper"), Tally("upper")
    rng = ctx.rng("fedfv.t3")
    a1, a2 = np.array(_MIN_T3["a1"]), np.array(_MIN_T3["a2"])
    iso = {"H1": np.eye(2), "H2": np.eye(2), "c1": a1, "c2": a2}
    cases = [(iso, np.zeros(2))] + [(q, 3 * rng.normal(size=q["c1"].shape))
                                      for q in _quad_pairs(rng, ctx.count(150, 2000))]
    for ci, (q, w) in enumerate(cases):
        size = float(w.size) - (0.5 if ci == 0 else 0.0)  # the hand-made instance wins ties
        f1, f2, g1, g2 = _F(q, w)
        c = float(g1 @ g2)
        if c >= 0:
            continue
        cos2 = c * c / float(g1 @ g1) / float(g2 @ g2)
        L = max(np.linalg.eigvalsh(q["H1"]).max(), np.linalg.eigvalsh(q["H2"]).max())
        Lsum = float(np.linalg.eigvalsh(np.asarray(q["H1"]) + np.asarray(q["H2"])).max())
        rhs = (1 - cos2) * float((g1 + g2) @ (g1 + g2))
        for frac in (1.0, 0.5, 0.25):
            eta = frac / L
            wn = w - eta * _eq10(g1, g2)
            n1, n2, _, _ = _F(q, wn)
            inst = {"H1": q["H1"], "H2": q["H2"], "c1": q["c1"], "c2": q["c2"], "theta": w,
                    "eta": eta, "L": L}
            # claimed decrease <= actual decrease
            printed.add(eta / 2 * rhs, 0.5 * (f1 + f2) - 0.5 * (n1 + n2), inst, size=size)
            eta_s = frac / Lsum
            ws = w - eta_s * _eq10(g1, g2)
            s1, s2, _, _ = _F(q, ws)
            summed.add(eta_s / 2 * rhs, (f1 + f2) - (s1 + s2), {**inst, "eta": eta_s, "L": Lsum},
                       size=size)
    so = summed.outcome()
    return printed.outcome(note="measured = claimed decrease (eta/2)(1-cos^2)||g1+g2||^2, bound = actual "
                           "decrease F(theta)-F(theta+); conflict steps, eta in {1, 1/2, 1/4}/L",
                           details={"sum_reading": {"status": so.status, "instances": so.instances,
                                                    "margin": so.margin, "tightness": so.tightness}})


@claim("fedfv.theorem3.pareto", expected="refuted")
def theorem3_pareto(ctx: Context) -> Outcome:
    """004 Thm. 3: with ``eta <= 1/L`` the eq. 10 iteration converges to a Pareto-stationary point
    (``rho = min_lam ||lam g_1 + (1-lam) g_2|| -> 0``, exact closed form) or to the optimum.
    measured = ``rho(theta_T)``, bound = ``1e-6 max(1, rho(theta_0))``.  ``details`` also runs FedFV
    itself (Alg. 1, rescaled to the mean norm) with a constant step: ``rho_T`` scales with ``lr``."""
    T = ctx.count(1500, 20000)
    t = Tally("upper")
    rng = ctx.rng("fedfv.t3p")
    qs = [{k: np.asarray(v) for k, v in _MIN_T3P.items() if k != "eta"}]
    qs += _quad_pairs(rng, ctx.count(12, 100))
    fedfv_rho: dict[str, list[float]] = {"lr=1/L": [], "lr=0.1/L": []}
    for qi, q in enumerate(qs):
        L = max(np.linalg.eigvalsh(q["H1"]).max(), np.linalg.eigvalsh(q["H2"]).max())
        w0 = np.array([3.0, 3.0]) if qi == 0 else 4 * rng.normal(size=q["c1"].shape)
        w = w0.copy()
        for _ in range(T):
            _, _, g1, g2 = _F(q, w)
            w = w - (1.0 / L) * _eq10(g1, g2)
        _, _, g1, g2 = _F(q, w)
        rho = min_norm_point_2(g1, g2).value
        _, _, h1, h2 = _F(q, w0)
        rho0 = min_norm_point_2(h1, h2).value
        t.add(rho, 1e-6 * max(1.0, rho0), {**{k: v for k, v in q.items()}, "theta0": w0, "theta_T": w,
                                            "eta": 1.0 / L, "T": T},
              size=float(w.size) - (0.5 if qi == 0 else 0.0))
        if qi < 4:
            for key, frac in (("lr=1/L", 1.0), ("lr=0.1/L", 0.1)):
                v = w0.copy()
                for _ in range(ctx.count(400, 4000)):
                    _, _, g1, g2 = _F(q, v)
                    v = v - aggregate(frac / L * np.stack([g1, g2]), np.zeros(2))
                _, _, g1, g2 = _F(q, v)
                fedfv_rho[key].append(min_norm_point_2(g1, g2).value)
    return t.outcome(note="eq. 10 iteration with eta = 1/L (the largest allowed step)",
                     details={"fedfv_alg1_rho_T": fedfv_rho})


# ------------------------------------------------------------------------------------- Theorem 4
@claim("fedfv.theorem4.descent")
def theorem4_descent(ctx: Context) -> Outcome:
    """004 Thm. 4 eq. 21: when ``cos(gbar, gbar') >= 1/2`` and ``||gbar|| >= ||gbar'||``,
    ``F(theta - eta gbar') <= F(theta) + (-eta/2 + L eta^2/2) ||gbar|| ||gbar'||`` (``eta <= 1/L``,
    ``F`` the mean of L-smooth convex quadratics, ``gbar'`` FedFV's direction on the gradients,
    rescaled (Alg. 1) and unrescaled).  Reports how often the conditions hold."""
    from fairtheory.problems.quadratic import random_quadratic

    rng = ctx.rng("fedfv.t4")
    t = Tally("upper")
    tried = held = 0
    for _ in range(ctx.count(60, 800)):
        n, d = int(rng.integers(2, 7)), int(rng.integers(2, 5))
        prob = random_quadratic(n, d, rng=rng, mu=0.1, L=1.0, spread=2.0)
        L = prob.smoothness()
        w = 3 * rng.normal(size=d)
        G = prob.grads(w)
        losses = prob.losses(w)
        F0 = float(np.mean(losses))
        gbar = G.mean(axis=0)
        for rescaled in (True, False):
            gp = aggregate(G, losses, alpha=0.0, do_rescale=rescaled)
            tried += 1
            ng, ngp = float(np.linalg.norm(gbar)), float(np.linalg.norm(gp))
            if ngp == 0.0 or ng == 0.0:
                continue
            if float(gbar @ gp) / (ng * ngp) < 0.5 or ng < ngp * (1 - 1e-12):
                continue
            held += 1
            for frac in (1.0, 0.5):
                eta = frac / L
                F1 = float(np.mean(prob.losses(w - eta * gp)))
                # guaranteed decrease (eta/2 - L eta^2/2)||gbar|| ||gbar'|| <= actual decrease
                t.add((eta / 2 - L * eta ** 2 / 2) * ng * ngp, F0 - F1,
                      {"n": n, "d": d, "rescaled": rescaled, "eta": eta}, size=float(n * d))
    return t.outcome(note=f"measured = guaranteed decrease, bound = actual decrease; conditions held on "
                          f"{held}/{tried} FedFV steps",
                     details={"conditions_held": held, "steps": tried})


# ----------------------------------------------------------------------------------- order effect
def order_effect_runs(quick: bool, seed: int = 0) -> dict[str, list[float]]:
    """Variance of client training accuracy after FedFV with each projection order (004 Table 4):
    ``random_logistic`` (10 clients, sizes 20..200, heterogeneity 2), full participation, E = 5,
    lr = 0.5, alpha = 0, tau = 0; 5 seeds."""
    from fairtheory.algorithms import fedfv
    from fairtheory.problems.generators import random_logistic

    rounds = 60 if quick else 200
    res: dict[str, list[float]] = {"ascending": [], "random": [], "reversed": []}
    for s in range(5):
        rng = np.random.default_rng([seed, s])
        prob = random_logistic(10, 5, rng.integers(20, 200, size=10), rng=rng, heterogeneity=2.0)
        for order in res:
            st, _ = fedfv.run(prob, rounds, np.random.default_rng([seed, s, 7]), lr=0.5, E=5, alpha=0.0,
                              tau=0, order=order, record_every=rounds, record_losses=False)
            res[order].append(float(np.var(prob.accuracies(st.w))))
    return res


@claim("fedfv.order.effect")
def order_effect(ctx: Context) -> Outcome:
    """004 Table 4 (qualitative): mean (over 5 seeds) client-accuracy variance with loss-ascending
    order <= with random order and <= with reversed order."""
    res = order_effect_runs(ctx.quick, ctx.seed)
    means = {k: float(np.mean(v)) for k, v in res.items()}
    parts = {}
    for other in ("random", "reversed"):
        t = Tally("upper")
        t.add(means["ascending"], means[other], {"means": means})
        parts[f"ascending_vs_{other}"] = t.outcome()
    out = combine(parts, note=f"mean accuracy variance {means}")
    out.details["per_seed"] = res
    return out


__all__ = ["gradient_sets", "order_effect_runs"]
