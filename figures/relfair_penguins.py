"""Palmer penguins: relative unfairness index of the exact solutions of problem (8) vs ``phi``
(001 Sec. 4.3 / Fig. 3, reconstructed).

Three clients (Adelie, Chinstrap, Gentoo; first 10 complete rows each), MSE of the regression of
``bill_length_mm`` on intercept, ``bill_depth_mm``, ``flipper_length_mm``
(:func:`fairtheory.problems.penguins.penguins_problem`).  Every point is a certified solution of
:func:`fairtheory.exact.relative.solve_integrated_minimax` (duality gap closed; the problem is outside
the convex regime for ``phi > 0``), for ``A = B = Delta_3`` and ``A = B = C(2/3)``, computed by
:func:`fairtheory.instances.relative.penguins_curve` (the function ``relfair.penguins.figure`` checks).
:func:`data` returns what the figure plots, :func:`plot` draws it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from figures.registry import figure, save

_TEX = {"Delta_3": r"\Delta_3", "C(2/3)": r"C(2/3)"}


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """Per set name (``Delta_3``, ``C(2/3)``): ``phi``, the index ``I(w*_phi)`` and the per-species ``losses``
    ``(len(phi), 3)``."""
    from fairtheory.instances.relative import PENGUIN_SETS, penguins_curve, penguins_phi_grid

    phis = penguins_phi_grid(quick)
    out = {}
    for name in PENGUIN_SETS:
        x = penguins_curve(sets=name, phis=phis).extra
        out[name] = {"phi": np.asarray(x["curve"]["phi"]), "index": np.asarray(x["curve"]["index"]),
                     "losses": np.asarray(x["losses"])}
    return out


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt

    from fairtheory.problems.penguins import SPECIES

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10.5, 4.0))
    # both curves are 1 for larger phi: large hollow circles (Delta_3) show around the small squares (C(2/3))
    for (name, c), mark, ms in zip(d.items(), ("o", "s"), (9, 4), strict=True):
        ax.plot(c["phi"], c["index"], marker=mark, ms=ms, mfc="none" if ms > 5 else None,
                label=f"$A = B = {_TEX[name]}$")
    ax.axhline(1.0, color="grey", lw=0.8, ls=":", label="index = 1 (equal losses)")
    ax.set_xlabel(r"$\phi$")
    ax.set_ylabel(r"$I(w^\star_\phi; A, B)$")
    ax.set_title("relative unfairness index of exact solutions", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=9)
    c = d["Delta_3"]
    F = c["losses"]
    # equal losses for phi > 0 put the curves on each other: large hollow circles show around the crosses
    for i, (sp, ls, mk2, ms) in enumerate(zip(SPECIES, ("-", "--", ":"), ("o", "x", "^"), (9, 4.5, 5), strict=True)):
        ax2.plot(c["phi"], F[:, i], ls=ls, marker=mk2, ms=ms, mfc="none", label=sp)
    ax2.set_xlabel(r"$\phi$")
    ax2.set_ylabel(r"client MSE at $w^\star_\phi$ (mm$^2$)")
    ax2.set_title(r"per-species losses, $A = B = \Delta_3$ (equal for $\phi > 0$)", fontsize=10)
    ax2.grid(alpha=0.3)
    ax2.legend(fontsize=9, loc="center right")
    fig.suptitle("Palmer penguins (3 species, 10 rows each), problem (8) solved exactly (certified SDP)", fontsize=11)
    fig.tight_layout()
    return fig


@figure("relfair_penguins", "penguins: relative unfairness index of exact (8) solutions vs phi (001 Fig. 3)")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "relfair_penguins", formats)
