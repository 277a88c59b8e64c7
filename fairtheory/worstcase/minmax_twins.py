r"""Hand-written min-max PEPs (no tracer, no client rows): the twins of the traced worst cases of AFL and Scaff-PD.

:func:`hand_gda` is projected gradient descent-ascent (AFL, Mohri, Sivek & Suresh 2019, with exact oracles) and
:func:`hand_scaffpd` is Scaff-PD with exact gradients (Yu et al. 2023; 001's Scaff-PD-IA with ``phi = 0``), each
written directly with the PEP builder of :mod:`fairtheory.worstcase.sdp`: the joint variable in one Gram, the
gradient field of ``L`` monotone (written out blockwise), ``||grad_w L|| <= G_w`` and ``||f(w)|| <= G_lambda`` at
the queried points, ``Lambda`` a closed convex set of diameter ``<= D_lambda``, a comparator ``||w_c - w_0|| <= D_w``,
measure the linearised gap.  :mod:`fairtheory.worstcase.minmax` traces the same methods from their own ``make``;
the two routes share only the builder, so agreement checks the tracer.
"""

from __future__ import annotations

from typing import Any

from fairtheory._validation import check_in_range, check_integer, check_positive
from fairtheory.worstcase.classes import ConvexIndicator
from fairtheory.worstcase.sdp import PEP, Scalar, inner, sqnorm

__all__ = ["hand_gda", "hand_scaffpd"]


def hand_gda(T: int, lr: float, dual_lr: float, *, D_w: float = 1.0, D_lam: float = 1.0, G_w: float = 1.0,
             G_lam: float = 1.0, monotone: bool = True) -> float:
    """Projected GDA written by hand with the builder: one Gram for both blocks but *no* orthogonality rows (no row
    below mixes blocks, so zeroing the cross block of a feasible Gram keeps it feasible: the same value), monotone
    rows written out blockwise, the linearised ergodic gap against a comparator.  Arguments validated by name (``T``
    an integer ``>= 1``, steps, diameters and gradient bounds finite and ``> 0``)."""
    T = check_integer(T, "T", low=1)
    lr, dual_lr, D_w, D_lam, G_w, G_lam = (check_positive(v, k) for k, v in (
        ("lr", lr), ("dual_lr", dual_lr), ("D_w", D_w), ("D_lam", D_lam), ("G_w", G_w), ("G_lam", G_lam)))
    pep = PEP()
    Lam = pep.function(ConvexIndicator(D=D_lam), "Lambda")
    w = pep.vector()
    lam = pep.vector()
    Lam.add_point(lam, pep.vector(), Scalar())
    w0 = w
    pts = []
    for _ in range(T):
        h, g = pep.vector(), pep.vector()
        pep.add_le(sqnorm(h) - G_lam ** 2)
        pep.add_le(sqnorm(g) - G_w ** 2)
        pts.append((w, lam, g, h))
        w, lam = w - lr * g, Lam.project(lam + dual_lr * h)
    if monotone:
        for j in range(T):
            for k in range(j + 1, T):
                wj, lj, gj, hj = pts[j]
                wk, lk, gk, hk = pts[k]
                pep.add_le(inner(hj - hk, lj - lk) - inner(gj - gk, wj - wk))
    wc, lc = pep.vector(), pep.vector()
    Lam.add_point(lc, pep.vector(), Scalar())
    pep.add_le(sqnorm(wc - w0) - D_w ** 2)
    obj = Scalar()
    for wt, lt, gt, ht in pts:
        obj = obj + inner(gt, wt - wc) + inner(ht, lc - lt)
    pep.maximize(obj * (1.0 / T))
    return float(pep.solve().value)


def hand_scaffpd(T: int, kappa: int, lr: float, dual_lr: float, *, lipschitz: float | None, theta: float = 1.0,
                 tol: float = 1e-8) -> float:
    """Scaff-PD with exact gradients written by hand (no client rows: the lam-weighted local steps are kappa gradient
    steps on L(., lam_{r+1}) after the extrapolated dual step), the linearised gap at the last pair (w_T, lam_T).
    Arguments validated by name (``T``, ``kappa`` integers ``>= 1``; ``lr``, ``dual_lr``, ``tol`` and ``lipschitz``
    unless ``None`` finite and ``> 0``; ``theta`` finite and ``>= 0``)."""
    T, kappa = check_integer(T, "T", low=1), check_integer(kappa, "kappa", low=1)
    lr, dual_lr, tol = check_positive(lr, "lr"), check_positive(dual_lr, "dual_lr"), check_positive(tol, "tol")
    lipschitz = None if lipschitz is None else check_positive(lipschitz, "lipschitz")
    theta = check_in_range(theta, "theta", low=0.0)
    pep = PEP()
    Lam = pep.function(ConvexIndicator(D=1.0), "Lambda")
    w = pep.vector()
    lam = pep.vector()
    Lam.add_point(lam, pep.vector(), Scalar())
    w0 = w
    pts, hs = [], {}

    def h_of(x: Any) -> Any:
        if x.key() not in hs:
            hs[x.key()] = pep.vector()
            pep.add_le(sqnorm(hs[x.key()]) - 1.0)
        return hs[x.key()]

    def g_at(x: Any, lm: Any) -> Any:
        g = pep.vector()
        pep.add_le(sqnorm(g) - 1.0)
        pts.append((x, lm, g, h_of(x)))
        return g

    f_prev = h_of(w)
    for _ in range(T):
        f = h_of(w)
        lam = Lam.project(lam + dual_lr * (f + theta * (f - f_prev)))
        y = w
        for _ in range(kappa):
            y = y - lr * g_at(y, lam)
        w, f_prev = y, f
    g_T = g_at(w, lam)
    for j in range(len(pts)):
        for k in range(j + 1, len(pts)):
            (wj, lj, gj, hj), (wk, lk, gk, hk) = pts[j], pts[k]
            pep.add_le(inner(hj - hk, lj - lk) - inner(gj - gk, wj - wk))
            if lipschitz is not None:
                L2 = lipschitz ** 2
                pep.add_le(sqnorm(gj - gk) + sqnorm(hj - hk) - L2 * sqnorm(wj - wk) - L2 * sqnorm(lj - lk))
    wc, lc = pep.vector(), pep.vector()
    Lam.add_point(lc, pep.vector(), Scalar())
    pep.add_le(sqnorm(wc - w0) - 1.0)
    pep.maximize(inner(g_T, w - wc) + inner(h_of(w), lc - lam))
    return float(pep.solve(tol=tol).value)
