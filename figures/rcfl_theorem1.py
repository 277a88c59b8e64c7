r"""rFedFair suboptimality vs communication rounds with the Theorem 1 bounds (002 and 000 Thm. 1).

Unregularised logistic clients on non-separable data (:func:`random_logistic`), ``alpha = 0.5``,
``mu = 0.1``; ground truth and constants from :func:`fairtheory.instances.rcfl.theorem_setup`
(``f*_alpha``: lower certificate of :func:`solve_rcfl`; ``(w*, eta*)``: :func:`solve_smoothed_rcfl`),
every point from :func:`fairtheory.instances.rcfl.rfedfair_theorem1_curve` - the function the claims
``rcfl.theorem1.v002``/``v000`` sweep.  One panel per ``kappa in {1, 5, 10}`` at ``beta = beta_max`` (the
largest step the conditions allow); a grey curve shows ``beta = 100 beta_max`` (outside the
conditions) for comparison.  Log-log axes; the horizontal line is the smoothing term ``mu tau_alpha``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from figures.registry import figure, save


def theorem_problem(seed: int = 0, n: int = 5, d: int = 3, m: int = 20, alpha: float = 0.5,
                    mu: float = 0.1) -> tuple[Any, dict[str, Any]]:
    """The figures' logistic problem and its :func:`~fairtheory.instances.rcfl.theorem_setup`
    (shared with ``rcfl_theorem2``)."""
    from fairtheory.instances.rcfl import theorem_setup
    from fairtheory.problems.generators import random_logistic

    prob = random_logistic(n, d, m, rng=np.random.default_rng(seed))
    return prob, theorem_setup(prob, np.maximum(np.full(prob.n, alpha), prob.p), mu)


def log_grid(top: int, k: int = 14) -> list[int]:
    return sorted({int(round(x)) for x in np.logspace(0, np.log10(top), k)})


@figure("rcfl_theorem1", "rFedFair suboptimality vs rounds (log-log) with the 002/000 Theorem 1 bounds, "
        "one panel per kappa")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fairtheory.bounds.rcfl import theorem1_beta_max
    from fairtheory.instances.rcfl import rfedfair_theorem1_curve

    prob, setup = theorem_problem()
    TN_max = 200 if quick else 2000
    TNs = log_grid(TN_max)
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.3), sharey=True)
    for ax, kappa in zip(axes, (1, 5, 10), strict=True):
        beta = theorem1_beta_max(setup["L"], kappa)
        Ts = [2 + kappa * r for r in TNs]
        kw = dict(alpha=setup["alpha"], mu=setup["mu"], kappa=kappa, Ts=Ts, setup=setup)
        curve = rfedfair_theorem1_curve(prob, beta=beta, **kw)
        fast = rfedfair_theorem1_curve(prob, beta=100 * beta, versions=("002",), **kw)["002"]
        for v, style in (("002", "-o"), ("000", "-x")):
            ax.loglog(TNs, [r.measured for r in curve[v]], style, ms=3, label=f"rFedFair, {v} output")
            ax.loglog(TNs, [r.theory for r in curve[v]], "--", label=f"{v} Thm. 1 bound")
        ax.loglog(TNs, [max(r.measured, 1e-12) for r in fast], ":",
                  color="grey", label="002 output, beta = 100 beta_max (outside conditions)")
        ax.axhline(setup["mu"] * setup["tau"], color="k", lw=0.8, label="mu tau_alpha")
        ax.set_title(f"kappa = {kappa}\nbeta = beta_max = {beta:.2e}", fontsize=10)
        ax.set_xlabel("rounds T_N = (T-2)/kappa")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("f_alpha(w_tilde) - f*_alpha")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, bbox_to_anchor=(0.5, -0.12))
    fig.suptitle(f"rFedFair, full participation: logistic n={prob.n}, L={setup['L']:.1f}, "
                 f"rho^2={setup['rho2']:.3f}, mu={setup['mu']}", y=1.06)
    return save(fig, out_dir, "rcfl_theorem1", formats)
