r"""Where 002 Theorem 1 (optimisation part, rho = 0) is proved for **every** number of rounds (potential certificates).

Left: for each ``kappa`` the step sizes ``beta L`` on which a ``pep-potential`` certificate, checked exactly when the
figure is drawn, proves ``G(theta_tilde) - G* <= L D0/(2 beta L (T_N + 1))`` for every ``T_N >= 0`` (two uniform
``L``-smooth convex clients, 002 output, ``rho = 0``; the potential ``||theta - theta*||^2``), the range where the
bound with the heterogeneity term ``c (beta L)^2 rho^2/L`` is proved for every ``rho`` (green), and the theorem's
admissible steps ``beta L <= min(1/40, 1/(sqrt 6 (kappa - 1)))``.  Right: at ``beta L = 1/40``, ``kappa = 2``, the
proved bound and the theorem's right-hand side ``2 L D0/(beta L (T_N + 1))`` divided by the exact worst case
(:func:`fairtheory.worstcase.local_gd_worst_case`) against ``T_N``.  Quick mode: ``T_N = 1..4``; ``--full``: 1..8.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import numpy as np

from figures.registry import figure, figure_legend, save

KAPPAS = range(1, 9)
LO = Fraction(1, 2**20)


@figure("rcfl_theorem1_all_rounds", "Step sizes where 002 Theorem 1 (rho = 0) is proved for every number of rounds "
        "(exact potential certificates), and the proved bound / exact worst case against T_N")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fairtheory.proofs.kernel.potential_kernel import explain_potential
    from fairtheory.proofs.potential_search import PotentialNotProved, _local_gd, prove_potential
    from fairtheory.worstcase import local_gd_worst_case

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10.5, 5.2))
    for kappa in KAPPAS:
        hi = Fraction(1)
        try:  # the largest range this potential proves: beta L <= 1; checked exactly here
            ok = prove_potential("local_gd", n=2, kappa=kappa, beta_L=(LO, hi)).check()
        except PotentialNotProved:
            ok = False
        if ok:
            ax.hlines(kappa, float(LO), float(hi), colors="C0", lw=9, alpha=0.35,
                      label="proved for every T_N, rho = 0 (potential certificate)" if kappa == 1 else None)
        try:  # the whole optimisation part, for every rho, on the theorem's range
            ok = prove_potential("local_gd", n=2, kappa=kappa, rho2="any", beta_L=(LO, Fraction(1, 40))).check()
        except PotentialNotProved:
            ok = False
        if ok:
            ax.hlines(kappa + 0.22, float(LO), 1 / 40, colors="C2", lw=2.5,
                      label="proved for every T_N and every rho (both terms)" if kappa == 1 else None)
        adm = 1 / 40 if kappa == 1 else min(1 / 40, 1 / (math.sqrt(6) * (kappa - 1)))
        ax.hlines(kappa, float(LO), adm, colors="C3", lw=2.5,
                  label="Theorem 1's admissible steps" if kappa == 1 else None)
        # the same certificate stated on [1, 2]: the kernel refuses it (the potential does not decrease past 1)
        st, ev = _local_gd(Fraction(1), Fraction(2), 2, [Fraction(1, 2)] * 2, kappa, "rfedfair", None)
        if not explain_potential({"kind": "pep-potential", "version": 1, "statement": st, "evidence": ev})[0]:
            ax.plot([1.0, 2.0], [kappa, kappa], "x", color="k", ms=5,
                    label="refused: beta L in [1, 2] (the potential does not decrease)" if kappa == 1 else None)
    ax.set_xscale("log")
    ax.set_xlim(2.0**-21, 3.0)
    ax.set_ylim(0.3, 9.5)
    ax.set_xlabel("step size beta L")
    ax.set_ylabel("local steps per round kappa")
    ax.set_title("002 Thm. 1 (002 output): proved for all T_N", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)

    t = Fraction(1, 40)
    T = np.arange(1, (4 if quick else 8) + 1)
    wc = np.array([local_gd_worst_case(n=2, kappa=2, T_N=int(k), beta=float(t), L=1.0, D0=1.0, rho2=0.0,
                                       output="002").value for k in T])
    proved = 1.0 / (2 * float(t) * (T + 1))
    rhs = 2.0 / (float(t) * (T + 1))
    bx.plot(T, rhs / wc, "C3-o", ms=4, lw=1.4, label="Theorem 1 RHS / worst case")
    bx.plot(T, proved / wc, "C0-s", ms=4, lw=1.4, label="proved bound L D0/(2 beta L (T_N+1)) / worst case")
    bx.axhline(1.0, color="k", ls=":", lw=1.0, label="worst case (exact PEP)")
    bx.set_yscale("log")
    bx.set_xticks(T)
    bx.set_xlabel("rounds T_N")
    bx.set_ylabel("bound / exact worst case")
    bx.set_title("kappa = 2, beta L = 1/40, two uniform clients, rho = 0", fontsize=10)
    bx.grid(True, which="both", alpha=0.3)
    figure_legend(fig, (ax, bx), fontsize=8, loc="lower center", ncol=3)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    return save(fig, out_dir, "rcfl_theorem1_all_rounds", formats)
