"""Uniformity of exact q-FFL optima against q (003 App. A.1, Defs. 3-5; Lemmas 6-7 at q = 0 -> 1).

:func:`data` returns what the figure plots, :func:`plot` draws it."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from figures.registry import figure, figure_legend, save

M = 20


@functools.lru_cache(maxsize=2)
def data(quick: bool) -> dict[str, Any]:
    """``q`` and per instance the ``variance``, ``angle`` (degrees) and ``entropy`` of the exact q-FFL optimum's
    losses, with the Lemma 6-7 values at ``q = 0, 1`` (``lemma6``: variances, ``lemma7``: angles in degrees)."""
    from fairtheory.instances.qffl import exact_losses, lemma6, lemma7
    from fairtheory.metrics import angle_degrees, entropy, variance

    qs = [0, 0.5, 1, 2, 3, 5, 8, 12, 15] if not quick else [0, 1, 2, 5, 15]
    out: dict[str, Any] = {"q": np.array(qs, dtype=float), "m": M, "instances": []}
    for i in range(3 if quick else 6):
        P = random_problem(i)
        Fs = [exact_losses(P, q) for q in qs]
        v1, v0, _ = lemma6(problem=P)
        c1, c0, _ = lemma7(problem=P)
        out["instances"].append({"variance": np.array([variance(F) for F in Fs]),
                                 "angle": np.array([angle_degrees(F) for F in Fs]),
                                 "entropy": np.array([entropy(F) for F in Fs]),
                                 "lemma6": np.array([v0, v1]),
                                 "lemma7": np.degrees(np.arccos(np.clip([c0, c1], -1.0, 1.0)))})
    return out


def random_problem(i: int) -> Any:
    """Instance ``i``: :data:`M` random quadratic clients."""
    from fairtheory.problems.quadratic import random_quadratic

    return random_quadratic(M, 5, rng=np.random.default_rng(i), offset=1.0, spread=2.0)


def plot(d: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt

    qs = d["q"]
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.8))
    for i, inst in enumerate(d["instances"]):
        col = f"C{i}"
        for ax, key in zip(axes, ("variance", "angle", "entropy"), strict=True):
            ax.plot(qs, inst[key], marker="o", ms=3, color=col, label=f"instance {i}")
    for i, inst in enumerate(d["instances"]):  # after the curves, so that the legend lists the instances first
        col = f"C{i}"
        axes[0].plot([0, 1], inst["lemma6"], ls="none", marker="s", ms=7, mfc="none", color=col,
                     label="Lemmas 6-7 at $q = 0, 1$ (squares)" if i == 0 else "_nolegend_")
        axes[1].plot([0, 1], inst["lemma7"], ls="none", marker="s", ms=7, mfc="none", color=col, label="_nolegend_")
    axes[0].set_ylabel(r"$\mathrm{Var}\,F(w^\star_q)$" + "\n(Def. 3, lower = fairer)")
    axes[1].set_ylabel(r"angle$(F, \mathbf{1})$ in degrees" + "\n(Def. 4, lower = fairer)")
    axes[2].set_ylabel(r"entropy of $F/(F_1 + \dots + F_m)$" + "\n(Def. 5, higher = fairer)")
    axes[2].axhline(np.log(d["m"]), color="k", lw=0.8, ls="--", label=r"$\log m$ (uniform losses)")
    for ax in axes:
        ax.set_xlabel(r"$q$")
        ax.grid(alpha=0.3)
    figure_legend(fig, axes, fontsize=8.5, loc="upper center", bbox_to_anchor=(0.5, 0.02), ncol=5, frameon=False)
    fig.suptitle(f"Exact unweighted q-FFL optima, {d['m']} quadratic clients (p-norm route + Newton polish)",
                 fontsize=11)
    fig.tight_layout()
    return fig


#: the heading of this figure in docs/figures.md (after its name)
TITLE = '003 Lemmas 6-7, App. A.1'
#: what docs/figures.md says one reads off the figure (each statement asserted by tests/test_figure_statements.py)
DOC = """\
Variance, angle to the all-ones vector and entropy of the client losses at the exact q-FFL optimum,
against `q`, for three instances (one colour each; squares: the Lemma 6-7 values at `q = 0, 1` from the
claims' instance functions, drawn on the curves). Lemmas 6-7 say variance and angle drop from `q = 0` to
`q = 1` (they do, on every instance); past that the trend is not monotone on every instance (instance 1's
variance rises again from `q = 2`). The `log m` line marks perfectly uniform losses.
"""


@figure("qffl_uniformity",
        "variance, angle and entropy of F(w*_q) for exact q-FFL optima against q (003 App. A.1)")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    return save(plot(data(quick)), out_dir, "qffl_uniformity", formats)
