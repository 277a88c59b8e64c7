"""004 Table 4 (qualitative): client-accuracy variance for the three projection orders.

Each seed is one call of :func:`fairtheory.instances.fedfv.order_effect` (the claim's instances).
:func:`data` returns what the figure plots, :func:`plot` draws it."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from figures.registry import figure, save

NAMES = ("ascending", "random", "reversed")


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """Per order name (:data:`NAMES`) the accuracy variance of each seed (one call of ``order_effect`` each)."""
    from fairtheory.instances.fedfv import order_effect

    runs = [order_effect(seed=0, replicate=s, rounds=60 if quick else 200).extra for s in range(5)]
    return {name: np.array([r[name] for r in runs]) for name in NAMES}


def plot(res: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.2, 4.4))
    n = len(res[NAMES[0]])
    jitter = np.linspace(-0.15, 0.15, n)  # seed s sits at the same offset in every group
    for i, name in enumerate(NAMES):
        v = res[name]
        sem = v.std(ddof=1) / np.sqrt(v.size)
        first = i == 0
        ax.bar(i, v.mean(), color=f"C{i}", alpha=0.6, label=f"mean over the {n} seeds (one bar per order)" if first
               else "_nolegend_")
        ax.errorbar(i, v.mean(), yerr=sem, color="k", capsize=4, lw=1.2,
                    label=f"error bar: $\\pm 1$ standard error of the mean (sd$/\\sqrt{{{n}}}$)" if first else None)
        ax.plot(i + jitter, v, "k.", ms=6, zorder=3, label="one seed (a call of order_effect)" if first else None)
    for s in range(n):  # the same seed under the three orders, joined at its own jittered dots
        ax.plot(np.arange(len(NAMES)) + jitter[s], [res[nm][s] for nm in NAMES], "-", color="0.55", lw=0.7,
                label="the same seed under the three orders" if s == 0 else None)
    ax.set_xticks(range(len(NAMES)), ["loss-ascending\n(FedFV)", "random", "reversed"])
    ax.set_xlabel("order in which FedFV projects the conflicting gradients")
    ax.set_ylabel("variance of client training accuracy")
    ax.set_title(f"004 Table 4 analogue: 10 logistic clients, {n} seeds\n"
                 r"($\alpha = 0$, $\tau = 0$, $\kappa = 5$)", fontsize=9)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1)
    return fig


#: the heading of this figure in docs/figures.md (after its name)
TITLE = '004 Table 4 (qualitative)'
#: what docs/figures.md says one reads off the figure (each statement asserted by tests/test_figure_statements.py)
DOC = """\
Variance of client accuracy after FedFV with the three projection orders: bars are means over five seeds,
error bars one standard error of the mean, dots single seeds, and grey lines join the same seed across
orders (at its own dot). Read the grey lines rather than the bars: the loss-ascending order (FedFV's) is
lowest for most seeds, not all, and the error bars of the ascending and random orders overlap.
"""


@figure("fedfv_order_effect", "FedFV: accuracy variance for loss-ascending, random and reversed order")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "fedfv_order_effect", formats)
