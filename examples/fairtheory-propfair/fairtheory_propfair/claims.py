r"""Claims about the example aggregators, in the form ``python -m verify`` runs (plugin module).

Loaded by ``python -m verify --plugin <this file>`` or, once the package is installed, through its
``fairtheory.claims`` entry point.  Ground truth comes from the certified exact solver
(:func:`fairtheory.exact.aggregate.solve_aggregator`), never from the algorithm under test.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fairtheory.algorithms import qfedavg, rfedfair
from fairtheory.algorithms.base import run
from fairtheory.exact.aggregate import solve_aggregator
from fairtheory.problems import random_logistic, random_quadratic
from fairtheory.testing import audit
from fairtheory_propfair.aggregators import MeanStd, PropFair
from verify import Context, Outcome, Tally, claim, combine

M = 10.0  # PropFair's baseline: above every loss of the instances below


def _problems(ctx: Context) -> list[tuple[str, Any]]:
    rng = ctx.rng("propfair/problems")
    out = [("logistic n=5 d=3 (ridge 0.1)", random_logistic(5, 3, 20, rng=rng, l2=0.1)),
           ("quadratic n=6 d=3", random_quadratic(6, 3, rng=rng, mu=0.5, L=2.0, spread=0.5))]
    if not ctx.quick:
        out += [("logistic n=12 d=5 (ridge 0.05)", random_logistic(12, 5, 30, rng=rng, l2=0.05)),
                ("quadratic n=20 d=4", random_quadratic(20, 4, rng=rng, mu=0.2, L=3.0, spread=0.5))]
    return out


def _step(P: Any) -> float:
    """A step size: half the inverse of PropFair's local smoothness estimate at the start,
    ``h'(F) L1 + h''(F) G^2`` with ``h'(f) = 1/(M - f)``, ``h''(f) = 1/(M - f)^2``, ``F`` the largest loss
    and ``G`` the largest gradient norm there (a working step, not a theorem's constant)."""
    w0 = P.initial_point()
    F = float(np.max(P.losses(w0)))
    G = float(np.max(np.linalg.norm(P.grads(w0), axis=1)))
    return 0.5 / (P.smoothness() / (M - F) + G**2 / (M - F) ** 2)


@claim("propfair.audit", citation="Zhang et al. 2022 (PropFair)",
       statement="PropFair -sum p_i log(M - f_i) has every required aggregator property (fairtheory.testing.audit)")
def propfair_audit(ctx: Context) -> Outcome:
    tally = Tally()
    for n in (2, 6) if ctx.quick else (2, 6, 15):
        p = ctx.rng(f"propfair/audit/{n}").dirichlet(np.ones(n))
        rep = audit(PropFair(p, M), max_examples=ctx.count(150, 1500), seed=ctx.seed)
        for row in rep.rows:
            if row.required and row.status != "not applicable":
                tally.upper(float(row.status == "violated"), 0.0,
                            instance={"n": n, "property": row.name, **(row.counterexample or {})})
    return tally.outcome(explain="measured = 1 if the audit found a violation of a required property, bound = 0 "
                                 "(one instance per (n, property))")


@claim("propfair.meanstd.monotone", citation="mean + lambda std objective (user example)",
       statement="mean + 0.5 std is nondecreasing in every client loss", expected="refuted")
def meanstd_monotone(ctx: Context) -> Outcome:
    tally = Tally()
    rng = ctx.rng("propfair/meanstd")
    n = 6
    agg = MeanStd(np.full(n, 1.0 / n), 0.5)
    rep = audit(agg, max_examples=ctx.count(300, 3000), seed=ctx.seed, properties=("monotone",))
    cx = rep["monotone"].counterexample
    cases = [] if cx is None else [(np.asarray(cx["f"]), int(cx["client"]), float(cx["increase"]))]
    for _ in range(ctx.count(200, 5000)):
        cases.append((rng.uniform(0, 10, n), int(rng.integers(n)), float(rng.uniform(1e-3, 1.0))))
    for f, i, d in cases:
        g = f.copy()
        g[i] += d
        tally.lower(agg.value(g), agg.value(f), instance={"f": f, "client": i, "increase": d}, size=float(d))
    return tally.outcome(explain="measured = A(f + d e_i), bound = A(f): a single-client increase must not lower A")


def _converges(ctx: Context, which: str) -> Outcome:
    tally = Tally()
    rows = []
    for name, P in _problems(ctx):
        agg = PropFair(P.p, M)
        ex = solve_aggregator(P, agg)
        steps = ctx.count(3000, 10000)
        if which == "rfedfair":
            alg = rfedfair.make(P, lr=_step(P), kappa=1, aggregator=agg)
        else:  # local step 1/L (003 Sec. 3.3); the server step is sized by the aggregator's curvature
            alg = qfedavg.make(P, lr=1.0 / P.smoothness(), kappa=1, aggregator=agg)
        state, _ = run(alg, steps, rng=np.random.default_rng(0), record_losses=False, record_every=steps)
        value = agg.value(P.losses(np.asarray(state.w)))
        tally.equal(value, ex.value, rtol=1e-6, scale=1.0, instance={"problem": name, "steps": steps})
        rows.append({"problem": name, "trained": value, "exact": ex.value, "certified_gap": ex.certificate["gap"]})
    return tally.outcome(explain=f"measured = A(f(w)) after {which} with PropFair weights, theory = certified exact "
                                 "minimum of A(f(w)) (solve_aggregator)", details={"runs": rows})


@claim("propfair.rfedfair.exact", citation="002 Alg. 1 with the PropFair aggregator",
       statement="rFedFair (kappa = 1) through the aggregator interface reaches the exact PropFair optimum")
def rfedfair_exact(ctx: Context) -> Outcome:
    return _converges(ctx, "rfedfair")


@claim("propfair.qfedavg.exact", citation="003 Alg. 1 with the PropFair aggregator",
       statement="q-FedAvg (kappa = 1) through the aggregator interface reaches the exact PropFair optimum")
def qfedavg_exact(ctx: Context) -> Outcome:
    return _converges(ctx, "qfedavg")


@claim("propfair.fedavgm.worstcase", citation="FedAvgM (Hsu, Qi & Brown 2019); PEP traced from the plugin's make()",
       statement="the plugin's own method (FedAvg with server momentum, no PEP code) gets its exact worst case from "
                 "fairtheory.worstcase.worst_case: run with numpy on the extracted worst-case functions it reaches the "
                 "PEP value (1e-4), and at momentum 0 the PEP equals the hand-written FedAvg PEP (1e-6)")
def fedavgm_worstcase(ctx: Context) -> Outcome:
    """Ground truth: the explicit worst-case functions (L-smooth convex interpolants of the PEP's points,
    :class:`fairtheory.worstcase.replay.InterpolatedProblem`) on which the method runs with numpy, and the
    independent hand-written local-GD PEP (:func:`fairtheory.worstcase.local_gd_worst_case`)."""
    from fairtheory.algorithms.base import run
    from fairtheory.worstcase import local_gd_worst_case, worst_case
    from fairtheory.worstcase.replay import InterpolatedProblem
    from fairtheory_propfair.methods import fedavgm_make

    replay, twin = Tally(), Tally()
    rows = []
    grid = [(2, 2, 3, 0.5, 0.5, 1.0), (2, 1, 4, 0.5, 0.8, 4.0)]
    if not ctx.quick:
        grid += [(3, 2, 3, 0.3, 0.9, 1.0), (2, 3, 3, 0.5, 0.3, 10.0)]
    for n, kappa, T, lr, m, rho2 in grid:
        wc = worst_case(fedavgm_make, T, n=n, L=1.0, D0=1.0, rho2=rho2, lr=lr, kappa=kappa, momentum=m,
                        return_instance=True)
        P = InterpolatedProblem(wc.instance)
        state, _ = run(fedavgm_make(P, lr=lr, kappa=kappa, momentum=m), T, w0=wc.instance.x0, record_losses=False)
        reached = P.G(np.asarray(state.w, dtype=np.float64))
        inst = {"n": n, "kappa": kappa, "T": T, "lr": lr, "momentum": m, "rho2": rho2}
        replay.equal(reached, wc.value, rtol=1e-4, instance=inst, size=wc.dim)
        zero = worst_case(fedavgm_make, T, n=n, L=1.0, D0=1.0, rho2=rho2, lr=lr, kappa=kappa, momentum=0.0)
        hw = local_gd_worst_case(n=n, kappa=kappa, T_N=T - 1, lr=lr, L=1.0, D0=1.0, rho2=rho2, output="last",
                                 schedule="fedavg")
        twin.equal(zero.value, hw.value, rtol=1e-6, instance=inst | {"momentum": 0.0}, size=zero.dim)
        rows.append(inst | {"worst_case": wc.value, "replayed": reached, "momentum_0": zero.value,
                            "fedavg_hand_written": hw.value, "gram": wc.dim})
    parts = {"replay": replay.outcome(explain="measured = G(w_T) - G* reached by FedAvgM with numpy on the "
                                              "extracted worst-case functions, theory = traced PEP value"),
             "twin": twin.outcome(explain="measured = traced worst case at momentum 0, theory = local_gd_worst_case "
                                          "(schedule='fedavg')")}
    out = combine(parts)
    out.details.update({"grid": rows})
    return out
