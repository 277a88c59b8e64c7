r"""rFedFair with partial participation: Monte Carlo mean +- 95% CI vs the Theorem 2 bounds.

Unregularised logistic clients (``n = 10``, non-separable), ``alpha = 0.5``, ``mu = 0.1``,
``kappa = 5``; one panel per ``K in {2, 5, 10}`` clients drawn per round with replacement by ``p``,
``beta`` = the largest step the Theorem 2 conditions allow (grey: ``100 beta_max``, outside them).
The mean over independent draw sequences of ``f_alpha(w_tilde) - f*_alpha`` (002 output) with its
95% t-interval, against the 002 and 000 Theorem 2 right-hand sides.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from figures.rcfl_theorem1 import log_grid, subopt, theorem_instance
from figures.registry import figure, save


@figure("rcfl_theorem2", "rFedFair partial participation: Monte Carlo mean +- 95% CI vs the 002/000 "
        "Theorem 2 bounds for K in {2, 5, 10}")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from scipy.stats import t as student_t

    from fairtheory.algorithms.rfedfair import run_rfedfair
    from fairtheory.bounds.rcfl import theorem2_beta_max, theorem2_bound

    inst = theorem_instance(seed=0, n=10)
    kappa = 5
    reps = 10 if quick else 50
    TNs = log_grid(50 if quick else 500, 10)
    Ts = [2 + kappa * r for r in TNs]
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.3), sharey=True)
    master = np.random.default_rng(2024)
    for ax, K in zip(axes, (2, 5, 10), strict=True):
        beta = theorem2_beta_max(inst["L"], kappa, K)
        for scale, style, color in ((1.0, "-o", "C0"), (100.0, ":", "grey")):
            subs = np.empty((reps, len(Ts)))
            for r in range(reps):
                res = run_rfedfair(inst["problem"], T=Ts[-1], beta=scale * beta, mu=inst["mu"],
                                   alpha=inst["alpha"], kappa=kappa, K=K,
                                   rng=np.random.default_rng(master.integers(2**63 - 1)),
                                   checkpoints=Ts, record_every=10**9)
                subs[r] = [subopt(inst, res.checkpoints[T]["002"][0]) for T in Ts]
            mean = subs.mean(axis=0)
            half = student_t.ppf(0.975, reps - 1) * subs.std(axis=0, ddof=1) / np.sqrt(reps)
            what = "beta_max" if scale == 1.0 else "100 beta_max (outside conditions)"
            ax.fill_between(TNs, np.maximum(mean - half, 1e-12), mean + half, alpha=0.3, color=color,
                            label=f"95% CI, {what}")
            ax.loglog(TNs, mean, style, ms=3, color=color,
                      label=f"mean of {reps} runs (002 output), {what}")
        for v, color in (("002", "C1"), ("000", "C3")):
            ax.loglog(TNs, [theorem2_bound(K=K, dist0_sq=inst["D0"], beta=beta, T=T, kappa=kappa, L=inst["L"],
                                           rho2=inst["rho2"], mu=inst["mu"], tau_alpha=inst["tau"], version=v)
                            for T in Ts], "--", color=color, label=f"{v} Thm. 2 bound")
        ax.axhline(inst["mu"] * inst["tau"], color="k", lw=0.8, label="mu tau_alpha")
        ax.set_title(f"K = {K}, kappa = {kappa}\nbeta = beta_max = {beta:.2e}", fontsize=10)
        ax.set_xlabel("rounds T_N = (T-2)/kappa")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("E f_alpha(w_tilde) - f*_alpha")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, bbox_to_anchor=(0.5, -0.22))
    fig.suptitle(f"rFedFair, partial participation: logistic n={inst['problem'].n}, L={inst['L']:.1f}, "
                 f"rho^2={inst['rho2']:.3f}", y=1.06)
    return save(fig, out_dir, "rcfl_theorem2", formats)
