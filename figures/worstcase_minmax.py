r"""AFL's traced worst-case duality gap against Mohri et al.'s rate, over rounds.

:func:`fairtheory.worstcase.minmax.minmax_worst_case` runs :func:`fairtheory.algorithms.afl.make` (projected gradient
descent-ascent, averaged iterates) on the saddle-operator PEP: the joint variable ``(w, lambda)``, a monotone gradient
field with ``||grad_w L|| <= G_w`` and ``||f(w)|| <= G_lambda`` at the queried points, ``Lambda`` any closed convex set
of diameter ``<= D_lambda`` (the simplex is one), a comparator ``||w_c - w_0|| <= D_w``; the measure is the linearised
ergodic gap, an **upper bound** on the duality gap at ``(w_avg, lam_avg)`` (docs/worstcase.md, "Min-max worst
cases").  Constants ``D_w = D_lambda = G_w = G_lambda = 1``; at each ``T`` the steps of Mohri, Sivek & Suresh 2019,
Thm 2, ``gamma = 2 D/(G sqrt T)``.  Lines: their bound ``3 (D_w G_w + D_lambda G_lambda)/sqrt T``
and the textbook projected-GDA bound at the same steps
(``2.5/sqrt T`` here), which the PEP meets from ``T = 4`` on (ratio 0.80, 0.96, 0.99 at ``T = 1, 2, 3``; drawn as a
wide band under the PEP's markers).  Scaff-PD is not on the figure: its client-level control variates are not traced
by the saddle PEP, and 001 states its rate without constants (docs).  Quick mode: ``T <= 8``; ``--full``: ``T <= 16``.
:func:`data` returns what the figure plots, :func:`plot` draws it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from figures.registry import figure, save


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """Rounds ``T``, the traced AFL upper bound (``pep``), Mohri et al.'s bound (``mohri``), the textbook bound."""
    from fairtheory.algorithms import afl
    from fairtheory.worstcase.minmax import afl_paper_bound, afl_paper_steps, gda_classical_bound, minmax_worst_case

    rounds = [1, 2, 3, 4, 6, 8] if quick else [1, 2, 3, 4, 6, 8, 12, 16]
    pep, mohri, text = [], [], []
    for T in rounds:
        lr, dual_lr = afl_paper_steps(T)
        pep.append(minmax_worst_case(afl.make, T, lr=lr, dual_lr=dual_lr).value)
        mohri.append(afl_paper_bound(T))
        text.append(gda_classical_bound(T, lr, dual_lr))
    return {"T": np.array(rounds), "pep": np.array(pep), "mohri": np.array(mohri), "textbook": np.array(text)}


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt

    T = d["T"]
    fig, ax = plt.subplots(figsize=(7.0, 4.6))
    ax.loglog(T, d["mohri"], "k--", label=r"Mohri et al. 2019, Thm 2: $3(D_w G_w + D_\lambda G_\lambda)/\sqrt{T}$")
    ax.loglog(T, d["textbook"], "-", color="tab:orange", lw=6, alpha=0.45,
              label=r"textbook projected-GDA bound at these steps ($2.5/\sqrt{T}$): wide band")
    ax.loglog(T, d["pep"], "o-", color="tab:blue", ms=6,
              label="AFL traced from afl.make: saddle-PEP upper bound on the gap")
    ax.set_xlabel(r"rounds $T$")
    ax.set_ylabel(r"worst-case gap at $(\bar w_T, \bar\lambda_T)$ (upper bound)")
    ax.set_xticks(T)
    ax.set_xticklabels([str(t) for t in T])
    ax.grid(True, which="both", alpha=0.3)
    ratio = float(d["pep"][-1] / d["mohri"][-1])
    ax.set_title("AFL (projected GDA, averaged iterates): worst case vs the paper's rate\n"
                 rf"($D_w = D_\lambda = G_w = G_\lambda = 1$, steps $2D/(G\sqrt{{T}})$; at $T = {T[-1]}$: "
                 rf"PEP / paper $= {ratio:.3f}$)", fontsize=9)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1, frameon=False)
    return fig


@figure("worstcase_minmax", "AFL's traced worst-case duality gap (saddle-operator PEP from afl.make, an upper bound) "
        "against Mohri et al. 2019 Thm 2 and the textbook GDA bound, over rounds")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "worstcase_minmax", formats)
