r"""Worst cases of min-max fairness methods traced from their own ``make`` (:mod:`fairtheory.worstcase.minmax`).

AFL (Mohri, Sivek & Suresh 2019) is traced from :func:`fairtheory.algorithms.afl.make` on the saddle-operator PEP:
the joint variable ``z = (w, lambda)`` in one Gram (blocks orthogonal), the gradient field of ``L`` monotone
(a relaxation of convex-concave interpolation), ``||grad_w L|| <= G_w`` and ``||f(w)|| <= G_lambda`` at the queried
points, ``Lambda`` an arbitrary closed convex set of diameter ``<= D_lambda`` (the simplex is one), a comparator
``||w_c - w_0|| <= D_w``; measure = the linearised ergodic gap at the points AFL averages, which bounds the duality gap
at ``(w_avg, lam_avg)``.  Every value is an **upper bound** on the worst-case gap (``value_is == "upper bound"``),
so "value <= paper's bound" verifies the paper's inequality on the class; the ratio is reported as tightness.

Scaff-PD (Yu et al. 2023; 001's Scaff-PD-IA with ``phi = 0``) is traced from :func:`fairtheory.algorithms.scaffpd.make`
with ``kappa <= 2`` local steps (its control variates contracted with ``lambda``; a third local gradient is taken at
client-specific points and refused) and compared with a hand-written twin only: 001's Theorem 3 survives without
constants and is stated for the strongly convex regime.  DRFA samples clients with probabilities ``lambda`` (a PEP
unknown) and is refused (docs/worstcase.md, "Min-max worst cases").
"""

from __future__ import annotations

import math

from fairtheory.worstcase.minmax_twins import hand_scaffpd
from verify.core import Context, Outcome, Tally, claim, combine

_ROUNDING = 1e-6  # Clarabel's 1e-8 solves: slack of the inequalities (verify.core.MAX_ROUNDING)
_RTOL = 1e-6      # two SDPs, each solved to Clarabel's 1e-8 (Scaff-PD: 1e-7, below)
#: Clarabel tolerance of the Scaff-PD PEPs (Lipschitz and monotone rows): at 1e-8 the T = 6, kappa = 1 PEP ends
#: AlmostSolved, traced and hand-written alike (measured on this code); at 1e-7 both are Solved
_SCAFFPD_TOL = 1e-7
_QUICK_T = (1, 2, 4, 8)
_FULL_T = (1, 2, 4, 8, 12, 16)
#: (D_w, D_lam, G_w, G_lam): unit constants and an unbalanced set
_CONSTANTS = ((1.0, 1.0, 1.0, 1.0), (2.0, math.sqrt(2.0), 0.5, 3.0))


@claim("worstcase.afl.mohri_thm2",
       citation="Mohri, Sivek & Suresh 2019 (Agnostic Federated Learning), Thm 2 (Stochastic-AFL, exact oracles)",
       statement="AFL traced from afl.make with the steps gamma_w = 2 D_W/(G_w sqrt T), gamma_lam = 2 D_Lam/(G_lam sqrt T): "
                 "the saddle-operator PEP's upper bound on the duality gap at the averaged iterates is <= "
                 "3 (D_W G_w + D_Lam G_lam)/sqrt(T) at every T checked (tightness = value/bound reported)")
def afl_mohri(ctx: Context) -> Outcome:
    """The PEP value is an upper bound on the worst case over convex-concave ``L = sum_i lam_i f_i`` with these
    bounds (module doc), so ``value <= bound`` at each ``T`` verifies the theorem's inequality there.
    The paper is not among the seeds: its constants (steps ``2 D/(G sqrt T)``, constant 3) were transcribed without its text
    and are to be checked against it; ``worstcase.afl.textbook`` compares with an independently derived bound."""
    from fairtheory.algorithms import afl
    from fairtheory.worstcase.minmax import afl_paper_bound, afl_paper_steps, minmax_worst_case

    bound = Tally(rounding=_ROUNDING)
    rows = []
    for consts in _CONSTANTS[:1] if ctx.quick else _CONSTANTS:
        kw = dict(zip(("D_w", "D_lam", "G_w", "G_lam"), consts, strict=True))
        for T in _QUICK_T if ctx.quick else _FULL_T:
            lr, dual_lr = afl_paper_steps(T, **kw)
            wc = minmax_worst_case(afl.make, T, lr=lr, dual_lr=dual_lr, **kw)
            b = afl_paper_bound(T, **kw)
            inst = kw | {"T": T}
            bound.upper(wc.value, b, instance=inst, size=T)
            rows.append(inst | {"lr": lr, "dual_lr": dual_lr, "pep_upper_bound": wc.value, "value_is": wc.value_is,
                                "status": wc.status, "mohri_bound": b, "tightness": wc.value / b, "gram": wc.dim})
    out = combine({"mohri_bound": bound.outcome(
        explain="measured = traced saddle-PEP upper bound on the gap at (w_avg, lam_avg), bound = 3 (D_W G_w + "
                "D_Lam G_lam)/sqrt(T)")})
    out.details.update({"grid": rows})
    return out


@claim("worstcase.afl.textbook",
       citation="Nemirovski, Juditsky, Lan & Shapiro 2009 (SIAM J. Optim. 19(4)), Sec. 3.1: projected GDA, ergodic gap",
       statement="AFL traced from afl.make with constant steps: the saddle-operator PEP value <= D_W^2/(2 gamma_w T) + "
                 "gamma_w G_w^2/2 + D_Lam^2/(2 gamma_lam T) + gamma_lam G_lam^2/2 at every (T, steps) checked "
                 "(ratio value/bound reported)")
def afl_textbook(ctx: Context) -> Outcome:
    """The textbook bound holds on the whole relaxed class (it uses bounded gradients and a nonexpansive projection
    only), so a value above it would mean a wrong trace or a wrong PEP."""
    from fairtheory.algorithms import afl
    from fairtheory.worstcase.minmax import gda_classical_bound, minmax_worst_case

    bound = Tally(rounding=_ROUNDING)
    rows = []
    grid = ((2, 0.5, 0.5), (3, 1.0, 0.25), (4, 0.25, 1.0)) if ctx.quick else (
        (2, 0.5, 0.5), (3, 1.0, 0.25), (4, 0.25, 1.0), (6, 0.4, 0.4), (8, 0.125, 0.75))
    for T, lr, dual_lr in grid:
        wc = minmax_worst_case(afl.make, T, lr=lr, dual_lr=dual_lr)
        b = gda_classical_bound(T, lr, dual_lr)
        inst = {"T": T, "lr": lr, "dual_lr": dual_lr}
        bound.upper(wc.value, b, instance=inst, size=T)
        rows.append(inst | {"pep_upper_bound": wc.value, "textbook_bound": b, "ratio": wc.value / b})
    out = combine({"textbook_bound": bound.outcome(
        explain="measured = traced saddle-PEP value (D = G = 1), bound = the projected-GDA ergodic bound")})
    out.details.update({"grid": rows})
    return out


@claim("worstcase.scaffpd.traced_twin",
       citation="Yu, Karimireddy, Ma & Jordan 2023 (Scaff-PD, arXiv 2307.13381), Alg. 1 with exact gradients; "
                "001 Sec. 5 (Scaff-PD-IA, phi = 0)",
       statement="Scaff-PD traced from scaffpd.make (kappa = 1, 2; exact gradients; theta = 1) on the saddle-operator PEP "
                 "(monotone, L-Lipschitz field, bounded gradients, linearised gap at the last pair) equals (1e-6) the "
                 "hand-written PEP of dual-extrapolated ascent followed by kappa gradient steps on L(., lam_{r+1}) at "
                 "every T checked; no rate is compared (001 Thm 3 survives without constants)")
def scaffpd_twin(ctx: Context) -> Outcome:
    """The trace contracts Scaff-PD's per-client control variates with ``lam`` (formal client gradients); the
    hand-written PEP has no clients at all.  Equal values check that reduction on the method's own code."""
    from fairtheory.algorithms import scaffpd
    from fairtheory.worstcase.minmax import minmax_worst_case

    eq = Tally()
    rows = []
    grid = ((1, 1), (2, 1), (3, 1), (1, 2), (2, 2)) if ctx.quick else (
        (1, 1), (2, 1), (3, 1), (4, 1), (6, 1), (1, 2), (2, 2), (3, 2), (4, 2))
    lr = dual_lr = 0.25
    for T, kappa in grid:
        wc = minmax_worst_case(scaffpd.make, T, lr=lr, dual_lr=dual_lr, kappa=kappa, output="last", lipschitz=1.0,
                               tol=_SCAFFPD_TOL)
        hand = hand_scaffpd(T, kappa, lr, dual_lr, lipschitz=1.0, tol=_SCAFFPD_TOL)
        inst = {"T": T, "kappa": kappa, "lr": lr, "dual_lr": dual_lr, "L": 1.0}
        eq.equal(wc.value, hand, rtol=_RTOL, instance=inst, size=T * kappa)
        rows.append(inst | {"traced": wc.value, "hand_written": hand, "value_is": wc.value_is, "status": wc.status})
    out = combine({"twin": eq.outcome(explain="measured = traced Scaff-PD upper bound on the gap at (w_T, lam_T), "
                                              "theory = hand-written PEP of the same recurrence (D = G = L = 1)")})
    out.details.update({"grid": rows})
    return out
