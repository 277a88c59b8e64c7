r"""004 Thm. 1-2: the conflict at each target position k against both bounds.

Noisy regular-simplex gradient sets meeting the theorems' hypothesis (every projection step meets a
conflict); each point is :func:`fairtheory.instances.fedfv.theorem1_conflict` /
:func:`~fairtheory.instances.fedfv.theorem2_conflict` at one ``(set, k)``, in units of
``max_i ||g_i||^2`` so that the sets overlay.  One panel and colour per gradient set, its two bounds in its colour;
:func:`data` returns what the figure plots, :func:`plot` draws it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from figures.registry import figure, figure_legend, save

M, DIM = 6, 5
VERSIONS = ("one_sided", "absolute")


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """``k = 1..m`` and, per version (``one_sided``, ``absolute``), arrays ``(sets, m)`` of the measured conflict and
    the Thm. 1 and Thm. 2 bounds, each divided by the set's ``max_i ||g_i||^2``."""
    from fairtheory.instances.fedfv import conflict_profile, noisy_simplex, theorem1_conflict, theorem2_conflict

    rng = np.random.default_rng(4)
    sets = []
    while len(sets) < 6:  # sets meeting the theorems' hypothesis (one panel each: as many with --full)
        A = noisy_simplex(M, DIM, rng)
        if conflict_profile(A)["hypothesis"]:
            sets.append(A)
    k = np.arange(1, M + 1)
    out: dict[str, Any] = {"k": k, "n_sets": len(sets)}
    for version in VERSIONS:
        rows: dict[str, list[list[float]]] = {"measured": [], "thm1": [], "thm2": []}
        for A in sets:
            scale = conflict_profile(A)["scale"]
            r1 = [theorem1_conflict(grads=A, k=int(j), version=version) for j in k]
            r2 = [theorem2_conflict(grads=A, k=int(j), version=version) for j in k]
            rows["measured"].append([r.measured / scale for r in r1])
            rows["thm1"].append([r.theory / scale for r in r1])
            rows["thm2"].append([r.theory / scale for r in r2])
        out[version] = {key: np.array(v) for key, v in rows.items()}
    return out


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt

    k, n = d["k"], d["n_sets"]
    fig, axes = plt.subplots(2, n, figsize=(2.1 * n + 0.8, 5.4), sharex=True, sharey="row", squeeze=False)
    for row, version in enumerate(VERSIONS):
        v = d[version]
        for i in range(n):
            ax, colour = axes[row, i], f"C{i % 10}"
            first = row == 0 and i == 0
            ax.plot(k, v["thm2"][i], ":", color=colour, lw=1.6,
                    label="Thm. 2 bound (dotted, in the set's colour)" if first else "_nolegend_")
            ax.plot(k, v["thm1"][i], "--", color=colour, lw=1.2,
                    label="Thm. 1 bound (dashed, in the set's colour)" if first else "_nolegend_")
            ax.plot(k, v["measured"][i], "o-", color=colour, ms=4.5, lw=1.2,
                    label="conflict after FedFV's projections (markers)" if first else "_nolegend_")
            ax.axhline(0, color="k", lw=0.5, label="_nolegend_")
            ax.set_yscale("symlog", linthresh=1e-3)
            ax.grid(alpha=0.3)
            ax.set_xticks(k)
            if row == 0:
                ax.set_title(f"gradient set {i + 1}", fontsize=9, color=colour)
            else:
                ax.set_xlabel(r"target position $k$")
                ax.set_ylim(bottom=0.0)
    axes[0, 0].set_ylabel("one-sided (holds):\n" + r"$-g_k \cdot \bar g'\,/\max_i \|g_i\|^2$")
    axes[1, 0].set_ylabel("absolute (as printed):\n" + r"$|g_k \cdot \bar g'|\,/\max_i \|g_i\|^2$")
    figure_legend(fig, axes.ravel(), fontsize=8.5, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3,
                  frameon=False)
    fig.suptitle(f"004 Thm. 1-2 on {n} noisy-simplex gradient sets ($m = {M}$, every step conflicts): top, every "
                 f"conflict is below both bounds; bottom, at $k = m = {M}$ both bounds are 0 and the conflict is not.\n"
                 r"Symlog $y$ axes, linear within $\pm 10^{-3}$; the black line is 0.", fontsize=9.5)
    fig.tight_layout()
    return fig


#: the heading of this figure in docs/figures.md (after its name)
TITLE = '004 Theorems 1-2'
#: what docs/figures.md says one reads off the figure (each statement asserted by tests/test_figure_statements.py)
DOC = """\
The conflict left after FedFV's projections at each target position `k`, on six gradient sets that meet
the theorems' hypothesis: one column and one colour per set, its two bounds (dashed Thm. 1, dotted Thm. 2)
in its colour (symlog axes: linear within `+-1e-3`, the black line is 0). Top, the one-sided form: every
point is below both of its set's bounds. Bottom, the absolute value as printed: at `k = m = 6` both bounds
are 0 while the conflict is not, on all six sets - the recorded finding.
"""


@figure("fedfv_conflict_bounds", "FedFV: conflict -g_k . gbar' vs Theorem 1 and 2 bounds by target position")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "fedfv_conflict_bounds", formats)
