"""004 Thm. 1-2: measured conflict g_k . gbar' against both bounds vs target position k."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from figures.registry import figure, save


@figure("fedfv_conflict_bounds", "FedFV: measured g_k . gbar' vs Theorem 1 and 2 bounds by target position")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    import matplotlib.pyplot as plt

    from fairtheory.bounds.fedfv import (
        all_steps_conflict,
        conflicts,
        epsilons,
        theorem1_bound,
        theorem2_bound,
    )
    from verify.claims.fedfv import _simplex

    rng = np.random.default_rng(4)
    m, d = 6, 5
    sets = []
    while len(sets) < (6 if quick else 20):  # sets meeting the theorems' hypothesis
        A = _simplex(m, d, rng)
        if all_steps_conflict(A):
            sets.append(A)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharex=True)
    k = np.arange(1, m + 1)
    for i, A in enumerate(sets):
        scale = float(np.max(np.sum(A * A, axis=1)))
        c = conflicts(A) / scale
        e1, e2 = epsilons(A)
        b1, b2 = theorem1_bound(A, e2) / scale, theorem2_bound(A, e1, e2) / scale
        first = i == 0
        axes[0].plot(k, c, "o-", color="C0", alpha=0.5, label="measured g_k . gbar'" if first else None)
        axes[0].plot(k, -b1, "--", color="C1", alpha=0.6, label="-Thm. 1 bound" if first else None)
        axes[0].plot(k, -b2, ":", color="C2", alpha=0.6, label="-Thm. 2 bound" if first else None)
        axes[1].plot(k, np.abs(c), "o-", color="C0", alpha=0.5, label="|g_k . gbar'|" if first else None)
        axes[1].plot(k, b1, "--", color="C1", alpha=0.6, label="Thm. 1 bound" if first else None)
        axes[1].plot(k, b2, ":", color="C2", alpha=0.6, label="Thm. 2 bound" if first else None)
    axes[0].axhline(0, color="k", lw=0.5)
    axes[0].set_title("one-sided: conflict >= -bound (holds)")
    axes[1].set_title("absolute (as printed): fails at late k")
    axes[1].set_yscale("symlog", linthresh=1e-3)
    axes[1].set_ylim(bottom=0.0)
    for ax in axes:
        ax.set_xlabel("target position k")
        ax.legend(fontsize=7)
    axes[0].set_ylabel("value / max ||g_i||^2")
    fig.suptitle(f"004 Thm. 1-2 on {len(sets)} noisy-simplex sets (m={m}, every step conflicts)", fontsize=10)
    return save(fig, out_dir, "fedfv_conflict_bounds", formats)
