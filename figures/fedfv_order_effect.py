"""004 Table 4 (qualitative): client-accuracy variance for the three projection orders.

Each seed is one call of :func:`fairtheory.instances.fedfv.order_effect` (the claim's instances)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from figures.registry import figure, save


@figure("fedfv_order_effect", "FedFV: accuracy variance for loss-ascending, random and reversed order")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    import matplotlib.pyplot as plt

    from fairtheory.instances.fedfv import order_effect

    names = ["ascending", "random", "reversed"]
    runs = [order_effect(seed=0, replicate=s, rounds=60 if quick else 200).extra for s in range(5)]
    res = {name: [r[name] for r in runs] for name in names}
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for i, name in enumerate(names):
        v = np.array(res[name])
        ax.bar(i, v.mean(), color=f"C{i}", alpha=0.6)
        ax.errorbar(i, v.mean(), yerr=v.std(ddof=1) / np.sqrt(v.size), color="k", capsize=4)
        ax.plot(np.full(v.size, i) + np.linspace(-0.15, 0.15, v.size), v, "k.", ms=5)
    for s in range(len(runs)):  # paired seeds
        ax.plot(range(len(names)), [res[n][s] for n in names], "-", color="0.6", lw=0.6)
    ax.set_xticks(range(len(names)), ["loss-ascending\n(FedFV)", "random", "reversed"])
    ax.set_ylabel("variance of client training accuracy")
    ax.set_title("004 Table 4 analogue: 10 logistic clients, 5 seeds\n(alpha = 0, tau = 0, kappa = 5)",
                 fontsize=9)
    return save(fig, out_dir, "fedfv_order_effect", formats)
