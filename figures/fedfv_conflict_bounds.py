"""004 Thm. 1-2: the conflict at each target position k against both bounds.

Noisy regular-simplex gradient sets meeting the theorems' hypothesis (every projection step meets a
conflict); each point is :func:`fairtheory.instances.fedfv.theorem1_conflict` /
:func:`~fairtheory.instances.fedfv.theorem2_conflict` at one ``(set, k)``, in units of
``max_i ||g_i||^2`` so that the sets overlay.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from figures.registry import figure, figure_legend, save


@figure("fedfv_conflict_bounds", "FedFV: conflict -g_k . gbar' vs Theorem 1 and 2 bounds by target position")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    import matplotlib.pyplot as plt

    from fairtheory.instances.fedfv import conflict_profile, noisy_simplex, theorem1_conflict, theorem2_conflict

    rng = np.random.default_rng(4)
    m, d = 6, 5
    sets = []
    while len(sets) < (6 if quick else 20):  # sets meeting the theorems' hypothesis
        A = noisy_simplex(m, d, rng)
        if conflict_profile(A)["hypothesis"]:
            sets.append(A)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharex=True)
    k = np.arange(1, m + 1)
    for i, A in enumerate(sets):
        scale = conflict_profile(A)["scale"]
        first = i == 0
        for ax, version, meas_label in ((axes[0], "one_sided", "conflict -g_k . gbar'"),
                                        (axes[1], "absolute", "|g_k . gbar'|")):
            r1 = [theorem1_conflict(grads=A, k=int(j), version=version) for j in k]
            r2 = [theorem2_conflict(grads=A, k=int(j), version=version) for j in k]
            ax.plot(k, [r.measured / scale for r in r1], "o-", color="C0", alpha=0.5,
                    label=meas_label if first else None)
            ax.plot(k, [r.theory / scale for r in r1], "--", color="C1", alpha=0.6, label="Thm. 1 bound" if first else None)
            ax.plot(k, [r.theory / scale for r in r2], ":", color="C2", alpha=0.6, label="Thm. 2 bound" if first else None)
    axes[0].axhline(0, color="k", lw=0.5, label="0 (symlog axis: linear within +-1e-3)")
    axes[0].set_title("one-sided: conflict <= bound (holds)")
    axes[1].set_title("absolute (as printed): fails at late k")
    axes[0].set_yscale("symlog", linthresh=1e-3)
    axes[1].set_yscale("symlog", linthresh=1e-3)
    axes[1].set_ylim(bottom=0.0)
    for ax in axes:
        ax.set_xlabel("target position k")
    figure_legend(fig, axes, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=5)
    for ax in axes:
        ax.set_ylabel("value / max ||g_i||^2 (symlog)")
    fig.suptitle(f"004 Thm. 1-2 on {len(sets)} noisy-simplex sets (m={m}, every step conflicts)", fontsize=10)
    return save(fig, out_dir, "fedfv_conflict_bounds", formats)
