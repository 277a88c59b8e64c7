r"""Prop. 9 majorisation bounds around the ratio ``U/V`` as functions of ``phi`` (001 Prop. 9,
reconstructed): ``phi + (U - phi V)/C <= U/V <= phi + (U - phi V)/c``.

Losses: the penguins clients at the exact DRO solution (``phi = 0``) with ``A = B = C(2/3)``;
``[c, C]`` brackets around ``V`` of three widths.  The bounds come from
:func:`fairtheory.instances.relative.prop9_majorization` (the function ``relfair.prop9.majorization``
checks); :func:`data` returns what the figure plots, :func:`plot` draws it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from figures.registry import figure, save

#: ``(c/V, C/V)`` of the three brackets
BRACKETS = ((0.9, 1.1), (0.7, 1.5), (0.5, 2.0))


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """``phi``, the ratio ``U/V`` and per bracket the ``upper`` and ``lower`` bound curves."""
    from fairtheory.exact.relative import solve_integrated_minimax
    from fairtheory.instances.relative import prop9_majorization
    from fairtheory.problems.penguins import penguins_problem
    from fairtheory.sets import CappedSimplex, IntegratedSet

    P = penguins_problem()
    S = CappedSimplex.cvar(3, 2.0 / 3.0)
    f = np.asarray(P.losses(solve_integrated_minimax(P, IntegratedSet(S, S, 0.0)).argmin))
    phis = np.linspace(0.0, 0.99, 100 if quick else 400)
    out: dict[str, Any] = {"phi": phis, "brackets": {}}
    for lo_f, hi_f in BRACKETS:
        r = prop9_majorization(losses=f, A=S, B=S, c_factor=lo_f, C_factor=hi_f, phis=phis)
        out["ratio"] = r.measured
        out["brackets"][(lo_f, hi_f)] = {"upper": np.asarray(r.extra["upper"]), "lower": np.asarray(r.extra["lower"])}
    return out


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt

    phis = d["phi"]
    fig, ax = plt.subplots(figsize=(7.6, 4.0))
    ax.axhline(d["ratio"], color="k", lw=1.5, label=f"$U/V = {d['ratio']:.3f}$ (true ratio)")
    for ((lo_f, hi_f), b), col in zip(d["brackets"].items(), ("C0", "C1", "C2"), strict=True):
        ax.plot(phis, b["upper"], color=col, label=f"upper bound, $c = {lo_f}\\,V$")
        ax.plot(phis, b["lower"], color=col, ls="--", label=f"lower bound, $C = {hi_f}\\,V$")
    ax.set_xlabel(r"$\phi$")
    ax.set_ylabel(r"bound on $U/V$")
    ax.set_xlim(0.0, 1.0)
    ax.grid(alpha=0.3)
    ax.set_title(r"001 Prop. 9: the bounds close in as $\phi \to 1$ (penguins, $A = B = C(2/3)$, "
                 r"losses at the $\phi = 0$ solution)", fontsize=9)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
    fig.tight_layout()
    return fig


#: the heading of this figure in docs/figures.md (after its name)
TITLE = '001 Prop. 9'
#: what docs/figures.md says one reads off the figure (each statement asserted by tests/test_figure_statements.py)
DOC = """\
The majorisation bounds on `U/V` against `phi` for three brackets `[c, C]` around `V` (one colour each:
solid upper, dashed lower) around the true ratio (black). Every upper bound stays above and every lower
bound below the black line, and the distance between each pair shrinks steadily as `phi -> 1` (to less than
half its value at `phi = 0`).
"""


@figure("relfair_prop9", "Prop. 9 bounds on the relative unfairness index vs phi (001 Prop. 9)")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "relfair_prop9", formats)
