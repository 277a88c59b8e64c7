"""Prop. 9 majorisation bounds around the ratio ``U/V`` as functions of ``phi`` (001 Prop. 9,
reconstructed): ``phi + (U - phi V)/C <= U/V <= phi + (U - phi V)/c``.

Losses: the penguins clients at the exact DRO solution (``phi = 0``) with ``A = B = C(2/3)``;
``[c, C]`` brackets around ``V`` of three widths.  The bounds come from
:func:`fairtheory.instances.relative.prop9_majorization` (the function ``relfair.prop9.majorization``
checks).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from figures.registry import figure, save


@figure("relfair_prop9", "Prop. 9 bounds on the relative unfairness index vs phi (001 Prop. 9)")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fairtheory.exact.relative import solve_integrated_minimax
    from fairtheory.instances.relative import prop9_majorization
    from fairtheory.problems.penguins import penguins_problem
    from fairtheory.sets import CappedSimplex, IntegratedSet

    P = penguins_problem()
    S = CappedSimplex.cvar(3, 2.0 / 3.0)
    f = np.asarray(P.losses(solve_integrated_minimax(P, IntegratedSet(S, S, 0.0)).argmin))
    phis = np.linspace(0.0, 0.99, 100 if quick else 400)
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for k, ((lo_f, hi_f), col) in enumerate(zip(((0.9, 1.1), (0.7, 1.5), (0.5, 2.0)), ("C0", "C1", "C2"), strict=True)):
        ratio, _, x = prop9_majorization(losses=f, A=S, B=S, c_factor=lo_f, C_factor=hi_f, phis=phis)
        if k == 0:
            ax.axhline(ratio, color="k", lw=1.5, label=f"U/V = {ratio:.3f}")
        ax.plot(phis, x["upper"], color=col, label=f"upper, c = {lo_f} V")
        ax.plot(phis, x["lower"], color=col, ls="--", label=f"lower, C = {hi_f} V")
    ax.set_xlabel(r"$\phi$")
    ax.set_ylabel("bound on U/V")
    ax.set_title("Prop. 9: bounds tighten as $\\phi \\to 1$ (penguins, C(2/3), $\\phi=0$ solution)")
    ax.legend(fontsize=7)
    return save(fig, out_dir, "relfair_prop9", formats)
