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
#: points added to the claim's grid in quick mode, where the Delta_3 curve moves (``--full``: every 0.0005 up to 0.02)
FINE = np.array([0.0025, 0.005, 0.0075, 0.01, 0.0125, 0.015])
#: the phi axis is linear on [0, LINTHRESH] and logarithmic above it (symlog): the curves move at phi < 0.1
LINTHRESH = 0.01
_TICKS = (0.0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """Per set name (``Delta_3``, ``C(2/3)``): ``phi``, the index ``I(w*_phi)`` and the per-species ``losses``
    ``(len(phi), 3)``."""
    from fairtheory.instances.relative import PENGUIN_SETS, penguins_curve, penguins_phi_grid

    # the claim's grid, and more points where the curves move (phi <= 0.02): the index changes within phi < 0.02
    phis = np.union1d(penguins_phi_grid(quick), FINE if quick else np.linspace(0.0, 0.02, 41))
    out = {}
    for name in PENGUIN_SETS:
        x = penguins_curve(sets=name, phis=phis).extra
        out[name] = {"phi": np.asarray(x["curve"]["phi"]), "index": np.asarray(x["curve"]["index"]),
                     "losses": np.asarray(x["losses"])}
    return out


def equal_from(c: dict[str, Any], tol: float = 1e-6) -> float:
    """The smallest ``phi`` of the grid from which the index stays 1 (losses equalised) to the end."""
    ok = np.abs(c["index"] - 1.0) < tol
    k = len(ok)
    while k > 0 and ok[k - 1]:
        k -= 1
    return float(c["phi"][k])


def _phi_axis(ax: Any) -> None:
    from matplotlib.ticker import FixedLocator, NullLocator

    ax.set_xscale("symlog", linthresh=LINTHRESH, linscale=1.0)
    ax.set_xlim(-0.0005, 1.0)
    ax.xaxis.set_major_locator(FixedLocator(_TICKS))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([f"{t:g}" for t in _TICKS])
    ax.set_xlabel(r"$\phi$ (linear up to " + f"{LINTHRESH:g}, logarithmic above)")
    ax.axvspan(-0.0005, LINTHRESH, color="0.92", zorder=0, label="_nolegend_")


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt

    from fairtheory.problems.penguins import SPECIES

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11.5, 4.4))
    # both curves are 1 for larger phi: large hollow circles (Delta_3) show around the small squares (C(2/3))
    for (name, c), mark, ms in zip(d.items(), ("o", "s"), (9, 4), strict=True):
        ax.plot(c["phi"], c["index"], marker=mark, ms=ms, mfc="none" if ms > 5 else None,
                label=f"$A = B = {_TEX[name]}$: index 1 from $\\phi = {equal_from(c):g}$")
    ax.axhline(1.0, color="grey", lw=0.8, ls=":", label="index = 1 (equal losses)")
    _phi_axis(ax)
    ax.set_ylabel(r"$I(w^\star_\phi; A, B)$")
    ax.set_title("relative unfairness index of exact solutions", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8.5, loc="upper right")
    c = d["Delta_3"]
    F = c["losses"]
    # equal losses put the curves on each other: large hollow circles show around the crosses
    for i, (sp, ls, mk2, ms) in enumerate(zip(SPECIES, ("-", "--", ":"), ("o", "x", "^"), (9, 4.5, 5), strict=True)):
        ax2.plot(c["phi"], F[:, i], ls=ls, marker=mk2, ms=ms, mfc="none", label=sp)
    _phi_axis(ax2)
    ax2.set_ylabel(r"client MSE at $w^\star_\phi$ (mm$^2$)")
    ax2.set_title(r"per-species losses, $A = B = \Delta_3$ (equal from $\phi = " + f"{equal_from(c):g}$)", fontsize=10)
    ax2.grid(alpha=0.3)
    ax2.legend(fontsize=9, loc="center right")
    fig.suptitle("Palmer penguins (3 species, 10 rows each), problem (8) solved exactly (certified SDP); "
                 "grey: the linear part of the $\\phi$ axis", fontsize=11)
    fig.tight_layout()
    return fig


#: the heading of this figure in docs/figures.md (after its name)
TITLE = '001 Fig. 3'
#: what docs/figures.md says one reads off the figure (each statement asserted by tests/test_figure_statements.py)
DOC = """\
Left: the relative unfairness index of certified exact solutions of problem (8) against `phi`, for two choices of
`A = B`, on a `phi` axis that is linear up to 0.01 (grey) and logarithmic above, so that the small `phi` where the
curves move take most of the width. The claim's grid is refined to steps of 0.0025 below 0.02. For `Delta_3` the
index falls steadily, not at once - 3.97, 3.08, 1.80, 1.07 at `phi = 0, 0.005, 0.01, 0.0125` - and is 1 from
`phi = 0.015` on; for `C(2/3)` it falls more slowly - 1.66, 1.54, 1.26, 1.043, 1.013 at `phi = 0, 0.01, 0.02, 0.04,
0.06` - and is 1 from `phi = 0.08` on (legend; large hollow circles keep `Delta_3` visible where both are 1). Right:
the per-species losses for `A = B = Delta_3`: Adelie's and Chinstrap's are equal at every `phi` (circles around
crosses) and rise only from 24.64 to 24.82, while Gentoo's rises from 6.2 at `phi = 0` through 13.7 at `phi = 0.01`
to 24.8, where all three are equal (from `phi = 0.015`, title).
"""


@figure("relfair_penguins", "penguins: relative unfairness index of exact (8) solutions vs phi (001 Fig. 3)")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "relfair_penguins", formats)
