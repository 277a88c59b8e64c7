r"""Closed forms of the capped simplex and the integrated set against their cvxpy twins.

Claims ``rcfl.qalpha.closed_form`` (002 Def. 1), ``relfair.sets.closed_form`` (001 Ex. 1,
reconstructed) and ``relfair.integrated.support`` (001 eqs. 6-8, reconstructed).  The reference is
always an exact solver from :mod:`fairtheory.exact.capped` (HiGHS LPs, Clarabel QP), never the closed
form itself.  Instances: Hypothesis edge cases from :mod:`fairtheory.testing` (ties, zero caps, caps
summing to exactly one, weight ratios ``1e-12``, tiny and huge values) drawn by
:func:`verify.sampling.hypothesis_examples`, plus seeded random instances of larger ``n``.

Equalities report the closed form's value and the solver's value with ``Tally.equal(closed, reference,
rtol=1e-8, scale=...)``, i.e. ``|a - b| <= 1e-8 max(|b|, scale)`` with the scale of the data
``max(1, max|v|)`` for a support value of ``v`` (``|sigma(v)| <= max|v|``; for the integrated set
``max(1, max|v| (1 + phi)/(1 - phi))``).  Dividing by the value alone would
blame the closed form for the LP solver's feasibility tolerance: on ``Q_alpha`` caps
``(0, 1 - 3e-15, 0, 0, 2.97e-15)`` (a single point: the caps sum to one) and losses up to ``1e6``
the exact minimum is ``2.97e-9`` while HiGHS returned ``1e-300`` (its weights exceed a cap by
``3e-15``, inside its tolerance).  The plain relative error is reported in ``details``.
Projections are compared through their objective values, because an
interior-point solver's weights are only accurate to about the square root of its tolerance; the
weights are in addition checked against the certified distance bound
``||x_cf - x_qp|| <= sqrt(2 gap_cf) + sqrt(2 gap_qp)`` (1-strong convexity, dual gaps of both points).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fairtheory.exact.capped import (
    integrated_support_lp,
    lower_lp,
    project_qp,
    support_lp,
)
from fairtheory.instances.rcfl import qalpha_closed_form
from fairtheory.sets import CappedSimplex, IntegratedSet
from verify.core import Context, Outcome, Tally, claim, combine
from verify.sampling import hypothesis_examples

#: relative agreement required of a closed form and its LP/QP twin
EQ_TOL = 1e-8
_EPS = float(np.finfo(float).eps)


def _plain_relative_error(a: float, b: float) -> float:
    """``|a - b| / max(1, |b|)`` (reported in ``details`` only)."""
    return abs(float(a) - float(b)) / max(1.0, abs(float(b)))


# --------------------------------------------------------------------------- random instances
def random_probability(rng: np.random.Generator, n: int) -> np.ndarray:
    """Dirichlet weights; a quarter of the draws have zeros, a quarter span twelve orders of magnitude."""
    kind = rng.integers(4)
    if kind == 0:
        w = rng.dirichlet(np.full(n, 0.3))
    elif kind == 1:
        w = rng.dirichlet(np.ones(n)) * (rng.random(n) < 0.7)
    elif kind == 2:
        w = 10.0 ** rng.uniform(-12, 0, n)
    else:
        w = rng.random(n)
    if not w.sum() > 0:
        w[rng.integers(n)] = 1.0
    return w / w.sum()


def random_alpha(rng: np.random.Generator, p: np.ndarray) -> np.ndarray | float:
    """``alpha_i in [p_i, 1]`` with both ends hit; a scalar in ``[max p, 1]`` in a fifth of the draws."""
    if rng.random() < 0.2:
        return float(p.max() + rng.random() * (1.0 - p.max()))
    t = rng.choice([0.0, 1.0, rng.random()], size=p.size, p=[0.15, 0.15, 0.7])
    t = np.where(t == 0.0, 0.0, np.where(t == 1.0, 1.0, rng.random(p.size)))
    a = np.minimum(p + t * (1.0 - p), 1.0)
    return np.where(a > 0, a, 1.0)


def random_values(rng: np.random.Generator, n: int, nonneg: bool = False) -> np.ndarray:
    """Values on scales ``1e-3 .. 1e6``; ties (rounded values) in a third, constant vectors sometimes."""
    scale = 10.0 ** rng.uniform(-3, 6)
    v = rng.standard_normal(n) * scale
    r = rng.random()
    if r < 0.33:
        v = np.round(v / scale * 2) * scale
    elif r < 0.38:
        v = np.full(n, v[0])
    return np.abs(v) if nonneg else v


def random_capped(rng: np.random.Generator, n: int, kind: str) -> CappedSimplex:
    """A capped simplex of the given kind (``simplex``, ``cvar``, ``qalpha``, ``singleton``, ``random``)."""
    if kind == "simplex":
        return CappedSimplex.simplex(n)
    if kind == "cvar":
        a = float(rng.choice([1.0, 1.0 / n, rng.uniform(1e-3, 1.0), rng.integers(1, n + 1) / n]))
        return CappedSimplex.cvar(n, a)
    if kind == "qalpha":
        p = random_probability(rng, n)
        return CappedSimplex.qalpha(p, random_alpha(rng, p))
    if kind == "singleton":
        return CappedSimplex.singleton(random_probability(rng, n))
    raw = rng.random(n) * (rng.random(n) < 0.8)
    if not raw.sum() > 0:
        raw[rng.integers(n)] = 1.0
    caps = raw / raw.sum() * float(rng.choice([1.0, rng.uniform(1.0, 3.0), rng.uniform(3.0, n + 3.0)]))
    return CappedSimplex(caps)


KINDS = ("simplex", "cvar", "qalpha", "singleton", "random")


def _sizes(rng: np.random.Generator, count: int, quick: bool) -> list[int]:
    hi = 200 if quick else 1000
    return [int(x) for x in np.where(rng.random(count) < 0.7, rng.integers(1, 40, count),
                                     rng.integers(1, hi + 1, count))]


# --------------------------------------------------------------------------- rcfl.qalpha.closed_form
def qalpha_instances(ctx: Context) -> list[tuple[str, np.ndarray, Any, np.ndarray]]:
    """``(source, p, alpha, losses)``: Hypothesis edge cases then seeded random instances."""
    from fairtheory.testing import qalpha_instances as strat

    out: list[tuple[str, np.ndarray, Any, np.ndarray]] = []
    n_hyp = ctx.count(20, 600)
    for scalar in (False, True):
        for p, a, f in hypothesis_examples(strat(max_n=12, scalar_alpha=scalar), n_hyp // 2, ctx.seed):
            out.append(("hypothesis", np.asarray(p), a, np.asarray(f)))
    rng = ctx.rng("rcfl.qalpha.closed_form")
    for n in _sizes(rng, ctx.count(30, 600), ctx.quick):
        p = random_probability(rng, n)
        out.append(("random", p, random_alpha(rng, p), random_values(rng, n, nonneg=rng.random() < 0.5)))
    return out


@claim("rcfl.qalpha.closed_form")
def check_qalpha_closed_form(ctx: Context) -> Outcome:
    """002 Def. 1: ``CappedSimplex.qalpha(p, alpha).support(f)`` (greedy) equals the LP
    ``sup_{q in Q_alpha} sum q_i p_i f_i`` (HiGHS) to ``1e-8`` relative to ``max(1, |LP|, max|f|)`` on
    every instance (:func:`fairtheory.instances.rcfl.qalpha_closed_form`)."""
    tally = Tally()
    plain = 0.0
    for src, p, a, f in qalpha_instances(ctx):
        closed, lp, x = qalpha_closed_form(p=p, alpha=a, losses=f)
        plain = max(plain, _plain_relative_error(closed, lp))
        tally.equal(closed, lp, rtol=EQ_TOL, scale=x["scale"],
                    instance={"source": src, "p": p, "alpha": a, "losses": f, "closed_form": closed, "lp": lp},
                    size=p.size)
    return tally.outcome(note="rtol 1e-8 relative to max(1, |LP|, max|f|); HiGHS LP in weight coordinates",
                         details={"worst_plain_relative_error": plain},
                         explain="measured = f_alpha by the greedy closed form, theory = HiGHS LP value of "
                                 "sup_{q in Q_alpha} sum_i q_i p_i f_i")


# --------------------------------------------------------------------------- relfair.sets.closed_form
def set_instances(ctx: Context) -> list[tuple[str, CappedSimplex, np.ndarray]]:
    """``(kind, S, v)``: Hypothesis capped simplices (every kind) then seeded random ones per kind."""
    from fairtheory.testing import capped_simplices

    rng = ctx.rng("relfair.sets.closed_form")
    out: list[tuple[str, CappedSimplex, np.ndarray]] = []
    for S in hypothesis_examples(capped_simplices(max_n=12), ctx.count(20, 500), ctx.seed):
        out.append(("hypothesis", S, random_values(rng, S.n)))
    per_kind = ctx.count(8, 120)
    for kind in KINDS:
        for n in _sizes(rng, per_kind, ctx.quick):
            out.append((kind, random_capped(rng, n, kind), random_values(rng, n)))
    return out


def _projection_gap(S: CappedSimplex, v: np.ndarray, x: np.ndarray) -> float:
    """Certified gap ``0.5||x - v||^2 - max_s d(s)`` of a feasible ``x``, ``s`` over ``v_i - x_i``
    (these include the optimal multiplier whenever ``x`` is the projection)."""
    f = 0.5 * float(np.sum((x - v) ** 2))
    best = -math.inf
    for s in np.unique(v - x):
        z = np.clip(v - s, 0.0, S.caps)
        best = max(best, float(0.5 * np.sum((z - v) ** 2) + s * (z.sum() - 1.0)))
    return f - best


def _cvar_sorted(v: np.ndarray, a: float) -> float:
    """Mean of the largest ``a n`` entries with a fractional last term (the CVaR / superquantile)."""
    n = v.size
    k = min(max(a * n, 1.0), float(n))  # a n < 1 means the largest entry alone (cap 1)
    m = int(math.floor(k))
    d = np.sort(v)[::-1]
    top = float(d[:m].sum())
    frac = (k - m) * float(d[m]) if m < n else 0.0
    return (top + frac) / k


@claim("relfair.sets.closed_form")
def check_sets_closed_form(ctx: Context) -> Outcome:
    """001 Ex. 1 (reconstructed): support, lower, argmax value and projection of every capped simplex
    (simplex, CVaR, ``Q_alpha``, singleton, random caps) agree with HiGHS LPs / the Clarabel QP to
    ``1e-8`` relative (support, lower, argmax and CVaR values against ``max(1, |ref|, max|v|)``, the
    projection's objective against ``max(1, |ref|)``); the argmax and the projection lie in the set
    (``1e-12 max(1, n)``); the CVaR support equals the mean of the largest ``a n`` values (fractional
    last term) computed by sorting; projected weights lie within the certified distance bound."""
    parts = {k: Tally() for k in ("support", "lower", "argmax", "projection_value", "cvar_sorted")}
    feasible, weights = Tally(rounding=0.0), Tally()  # feasibility: the tolerance of CappedSimplex.contains, no slack
    plain = 0.0
    for kind, S, v in set_instances(ctx):
        inst = {"kind": kind, "caps": S.caps, "v": v}
        scale = max(1.0, float(np.max(np.abs(v))))
        sup, low = S.support(v), S.lower(v)
        r_sup, r_low = support_lp(S, v), lower_lp(S, v)
        plain = max(plain, _plain_relative_error(sup, r_sup.value), _plain_relative_error(low, r_low.value))
        parts["support"].equal(sup, r_sup.value, rtol=EQ_TOL, scale=scale, instance=dict(inst, closed=sup, lp=r_sup.value),
                               size=S.n)
        parts["lower"].equal(low, r_low.value, rtol=EQ_TOL, scale=scale, instance=dict(inst, closed=low, lp=r_low.value),
                             size=S.n)
        lam = S.argmax(v)
        tol = 1e-12 * max(1, S.n)
        feasible.upper(_infeasibility(S, lam), tol, dict(inst, point="argmax", weights=lam), size=S.n)
        parts["argmax"].equal(float(lam @ v), r_sup.value, rtol=EQ_TOL, scale=scale,
                              instance=dict(inst, argmax=lam, lp=r_sup.value), size=S.n)
        x = S.project(v)
        qp = project_qp(S, v)
        f_cf = 0.5 * float(np.sum((x - v) ** 2))
        feasible.upper(_infeasibility(S, x), tol, dict(inst, point="projection", weights=x), size=S.n)
        parts["projection_value"].equal(f_cf, qp.value, rtol=EQ_TOL, scale=1.0,
                                        instance=dict(inst, closed=f_cf, qp=qp.value), size=S.n)
        rounding = 8 * _EPS * max(1.0, f_cf)  # evaluation error of f and d in float64
        bound = math.sqrt(2 * (max(_projection_gap(S, v, x), 0.0) + rounding)) + \
            math.sqrt(2 * (max(qp.certificate["gap"], 0.0) + rounding))
        weights.upper(float(np.linalg.norm(x - qp.weights)), bound, dict(inst, closed=x, qp=qp.weights), size=S.n)
        if kind == "cvar" or (np.all(S.caps == S.caps[0])):
            a = 1.0 / (float(S.caps[0]) * S.n)
            ref = _cvar_sorted(v, min(a, 1.0))
            parts["cvar_sorted"].equal(sup, ref, rtol=EQ_TOL, scale=scale, instance=dict(inst, closed=sup, sorted=ref),
                                       size=S.n)
    explain = {"support": "measured = support by the greedy closed form, theory = HiGHS LP max",
               "lower": "measured = min over the set by the closed form, theory = HiGHS LP min",
               "argmax": "measured = argmax . v (closed-form argmax), theory = HiGHS LP max",
               "projection_value": "measured = 0.5||x - v||^2 at the closed-form projection x, theory = Clarabel QP value",
               "cvar_sorted": "measured = CVaR-set support (closed form), theory = mean of the largest a n values (sorted)"}
    outs = {k: t.outcome(explain=explain[k]) for k, t in parts.items()}
    outs["in_set"] = feasible.outcome(explain="measured = largest constraint violation of the closed-form argmax "
                                              "and projection, bound = 1e-12 max(1, n)")
    outs["projection_weights"] = weights.outcome(
        note="||x_cf - x_qp|| <= sqrt(2 gap_cf) + sqrt(2 gap_qp); tightness = distance / bound",
        explain="measured = ||x_cf - x_qp||, bound = sqrt(2 gap_cf) + sqrt(2 gap_qp) (certified distance)")
    out = _headline(combine(outs, note="closed forms vs HiGHS LP / Clarabel QP; rtol 1e-8 against the data's scale"),
                    outs)
    out.details["worst_plain_relative_error_support_lower"] = plain
    return out


def _headline(out: Outcome, parts: dict[str, Outcome]) -> Outcome:
    """When every part holds, report the equality part with the largest relative error (the closest call)."""
    if out.status == "verified":
        eq = [k for k, o in parts.items() if o.relation == "==" and o.error is not None]
        if eq:
            k = max(eq, key=lambda name: float(parts[name].error))  # type: ignore[arg-type]
            m = parts[k]
            out.measured, out.bound, out.margin, out.tightness = m.measured, m.bound, m.margin, m.tightness
            out.relation, out.error, out.tolerance, out.explain = m.relation, m.error, m.tolerance, m.explain
            out.note += f" [headline part: {k}, the largest relative error]"
    return out


def _infeasibility(S: CappedSimplex, lam: np.ndarray) -> float:
    """Largest violation of ``sum lam = 1``, ``lam >= 0``, ``lam <= caps`` (what :meth:`CappedSimplex.contains`
    compares with its tolerance)."""
    return float(max(abs(lam.sum() - 1.0), float(np.max(-lam)), float(np.max(lam - S.caps))))


# --------------------------------------------------------------------------- relfair.integrated.support
def integrated_instances(ctx: Context) -> list[tuple[str, IntegratedSet, np.ndarray]]:
    from fairtheory.testing import integrated_sets

    rng = ctx.rng("relfair.integrated.support")
    out: list[tuple[str, IntegratedSet, np.ndarray]] = []
    for I in hypothesis_examples(integrated_sets(max_n=8), ctx.count(20, 500), ctx.seed):
        out.append(("hypothesis", I, random_values(rng, I.n)))
    for k, n in enumerate(_sizes(rng, ctx.count(30, 600), ctx.quick)):
        A = random_capped(rng, n, KINDS[int(rng.integers(len(KINDS)))])
        B = random_capped(rng, n, KINDS[int(rng.integers(len(KINDS)))])
        phi = 0.0 if k % 4 == 0 else float(rng.choice([rng.uniform(0, 0.99), 0.5, 0.9, 0.99]))
        out.append(("random", IntegratedSet(A, B, phi), random_values(rng, n, nonneg=rng.random() < 0.5)))
    return out


@claim("relfair.integrated.support")
def check_integrated_support(ctx: Context) -> Outcome:
    """001 eqs. 6-8 (reconstructed): ``max_{lam in Lambda_phi} lam . v = (sigma_A(v) - phi min_B v)/(1-phi)
    = D_phi/(1-phi)`` equals the LP over ``(a, b) in A x B`` to ``1e-8`` relative to
    ``max(1, |LP|, max|v| (1+phi)/(1-phi))`` (``phi = 0`` included); the closed-form argmax sums to one
    (``|sum - 1| <= 1e-8``) and attains the value."""
    value, dphi, attain, sums = Tally(), Tally(), Tally(), Tally()
    n_phi0, plain = 0, 0.0
    for src, I, v in integrated_instances(ctx):
        inst = {"source": src, "capsA": I.A.caps, "capsB": I.B.caps, "phi": I.phi, "v": v}
        n_phi0 += I.phi == 0.0
        scale = max(1.0, float(np.max(np.abs(v))) * (1.0 + I.phi) / (1.0 - I.phi))
        closed = I.support(v)
        d_phi = I.A.support(v) - I.phi * I.B.lower(v)
        lp = integrated_support_lp(I, v)
        plain = max(plain, _plain_relative_error(closed, lp.value))
        value.equal(closed, lp.value, rtol=EQ_TOL, scale=scale, instance=dict(inst, closed=closed, lp=lp.value),
                    size=I.n)
        dphi.equal(d_phi / (1.0 - I.phi), lp.value, rtol=EQ_TOL, scale=scale,
                   instance=dict(inst, d_phi=d_phi, lp=lp.value), size=I.n)
        lam = I.argmax(v)
        attain.equal(float(lam @ v), lp.value, rtol=EQ_TOL, scale=scale, instance=dict(inst, argmax=lam, lp=lp.value),
                     size=I.n)
        # the sum of (a - phi b)/(1 - phi) carries rounding of order n eps / (1 - phi)
        sums.equal(float(lam.sum()), 1.0, rtol=EQ_TOL, scale=1.0, instance=dict(inst, argmax=lam), size=I.n)
    parts = {"value": value.outcome(explain="measured = closed-form support of Lambda_phi, theory = HiGHS LP "
                                            "over (a, b) in A x B"),
             "D_phi/(1-phi)": dphi.outcome(explain="measured = (sigma_A(v) - phi min_B v)/(1 - phi), theory = "
                                                   "HiGHS LP value"),
             "argmax_attains": attain.outcome(explain="measured = argmax . v, theory = HiGHS LP value"),
             "argmax_sums_to_1": sums.outcome(explain="measured = sum of the closed-form argmax, theory = 1")}
    out = _headline(combine(parts, note=f"closed form vs HiGHS LP over (a, b); {n_phi0} instances with phi = 0"),
                    parts)
    out.details["worst_plain_relative_error"] = plain
    out.details["instances_phi_0"] = int(n_phi0)
    return out
