"""Palmer penguins: relative unfairness index of the exact solutions of problem (8) vs ``phi``
(001 Sec. 4.3 / Fig. 3, reconstructed).

Three clients (Adelie, Chinstrap, Gentoo; first 10 complete rows each), MSE of the regression of
``bill_length_mm`` on intercept, ``bill_depth_mm``, ``flipper_length_mm``
(:func:`fairtheory.problems.penguins.penguins_problem`).  Every point is a certified solution of
:func:`fairtheory.exact.relative.solve_integrated_minimax` (duality gap closed; the problem is outside
the convex regime for ``phi > 0``), for ``A = B = Delta_3`` and ``A = B = C(2/3)``, computed by
:func:`fairtheory.instances.relative.penguins_curve` (the function ``relfair.penguins.figure`` checks).
"""

from __future__ import annotations

from pathlib import Path

from figures.registry import figure, save


@figure("relfair_penguins", "penguins: relative unfairness index of exact (8) solutions vs phi (001 Fig. 3)")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fairtheory.instances.relative import PENGUIN_SETS, penguins_curve, penguins_phi_grid
    from fairtheory.problems.penguins import SPECIES

    phis = penguins_phi_grid(quick)
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    for name, mark in zip(PENGUIN_SETS, ("o", "s"), strict=True):
        x = penguins_curve(sets=name, phis=phis).extra
        c = x["curve"]
        ax.plot(c["phi"], c["index"], marker=mark, ms=4, label=f"A = B = {name}")
        if name == "Delta_3":
            F = x["losses"]
            # equal losses for phi > 0 put the curves on each other: large hollow circles show around the crosses
            for i, (sp, ls, mk2, ms) in enumerate(zip(SPECIES, ("-", "--", ":"), ("o", "x", "^"), (9, 4.5, 5),
                                                      strict=True)):
                ax2.plot(c["phi"], F[:, i], ls=ls, marker=mk2, ms=ms, mfc="none", label=sp)
    ax.set_xlabel(r"$\phi$")
    ax.set_ylabel(r"$I(w^*_\phi; A, B)$")
    ax.set_title("relative unfairness index of exact solutions")
    ax.axhline(1.0, color="grey", lw=0.8, ls=":", label="index = 1")
    ax.legend()
    ax2.set_xlabel(r"$\phi$")
    ax2.set_ylabel("client MSE at $w^*_\\phi$")
    ax2.set_title(r"per-species losses, $A = B = \Delta_3$ (equalised for $\phi > 0$)")
    ax2.legend()
    fig.suptitle("Palmer penguins (3 species x 10 rows), problem (8) solved exactly (certified SDP)")
    return save(fig, out_dir, "relfair_penguins", formats)
