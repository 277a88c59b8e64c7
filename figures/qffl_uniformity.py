"""Uniformity of exact q-FFL optima against q (003 App. A.1, Defs. 3-5; Lemmas 6-7 at q = 0 -> 1)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from figures.registry import figure, save


@figure("qffl_uniformity",
        "variance, angle and entropy of F(w*_q) for exact q-FFL optima against q (003 App. A.1)")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    import matplotlib.pyplot as plt

    from fairtheory.instances.qffl import exact_losses, lemma6, lemma7
    from fairtheory.metrics import angle_degrees, entropy, variance
    from fairtheory.problems.quadratic import random_quadratic

    qs = [0, 0.5, 1, 2, 3, 5, 8, 12, 15] if not quick else [0, 1, 2, 5, 15]
    n_inst = 3 if quick else 6
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.8))
    for i in range(n_inst):
        P = random_quadratic(20, 5, rng=np.random.default_rng(i), offset=1.0, spread=2.0)
        Fs = [exact_losses(P, q) for q in qs]
        for ax, fn in zip(axes, (variance, angle_degrees, entropy), strict=True):
            line, = ax.plot(qs, [fn(F) for F in Fs], marker="o", ms=3, label=f"instance {i}")
        # Lemmas 6 and 7 (q = 0 -> 1) through the claims' instance functions (same exact minimisers)
        v1, v0, _ = lemma6(problem=P)
        c1, c0, _ = lemma7(problem=P)
        axes[0].plot([0, 1], [v0, v1], ls="none", marker="s", mfc="none", color=line.get_color())
        axes[1].plot([0, 1], np.degrees(np.arccos(np.clip([c0, c1], -1.0, 1.0))), ls="none", marker="s",
                     mfc="none", color=line.get_color())
    axes[0].set_ylabel("Var F(w*_q)\n(Def. 3, lower = fairer)")
    axes[1].set_ylabel("angle(F, 1) in degrees\n(Def. 4, lower = fairer)")
    axes[2].set_ylabel("entropy of F/sum F\n(Def. 5, higher = fairer)")
    axes[2].axhline(np.log(20), color="k", lw=0.8, ls="--", label="log m (uniform)")
    for ax in axes:
        ax.set_xlabel("q")
        ax.grid(alpha=0.3)
    axes[2].legend(fontsize=7)
    fig.suptitle("Exact unweighted q-FFL optima, 20 quadratic clients (p-norm route + Newton polish); "
                 "squares: Lemmas 6-7")
    fig.tight_layout()
    return save(fig, out_dir, "qffl_uniformity", formats)
