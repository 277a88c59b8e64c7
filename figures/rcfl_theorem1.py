r"""rFedFair suboptimality vs communication rounds with the Theorem 1 bounds (002 and 000 Thm. 1).

Unregularised logistic clients on non-separable data (:func:`random_logistic`), ``alpha = 0.5``,
``mu = 0.1``; ``f*_alpha`` from :func:`solve_rcfl` (lower certificate), ``(w*, eta*)`` from
:func:`solve_smoothed_rcfl`.  One panel per ``kappa in {1, 5, 10}`` at ``beta = beta_max`` (the largest
step the conditions allow); a grey curve shows ``beta = 100 beta_max`` (outside the conditions) for
comparison.  Log-log axes; the horizontal line is the smoothing term ``mu tau_alpha``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from figures.registry import figure, save


def theorem_instance(seed: int = 0, n: int = 5, d: int = 3, m: int = 20, alpha: float = 0.5,
                     mu: float = 0.1) -> dict[str, Any]:
    """Problem, exact ground truth and Theorem 1-2 constants (shared with ``rcfl_theorem2``)."""
    from fairtheory.bounds.rcfl import heterogeneity_rho2, lemma_c1_L
    from fairtheory.exact.rcfl import solve_rcfl, solve_smoothed_rcfl
    from fairtheory.objectives.qalpha import tau_alpha
    from fairtheory.problems.generators import random_logistic
    from fairtheory.sets import CappedSimplex

    prob = random_logistic(n, d, m, rng=np.random.default_rng(seed))
    a = np.maximum(np.full(prob.n, alpha), prob.p)
    ex = solve_rcfl(prob, a)
    sm = solve_smoothed_rcfl(prob, a, mu)
    w_s, eta_s = np.asarray(sm.argmin), float(sm.extra["eta"])
    return {"problem": prob, "alpha": a, "mu": mu, "S": CappedSimplex.qalpha(prob.p, a),
            "f_star": float(ex.certificate.get("dual_value", ex.value)),
            "L": lemma_c1_L(prob.smoothness(), prob.lipschitz(), mu, a),
            "rho2": heterogeneity_rho2(prob, w_s, eta_s, a, mu), "tau": tau_alpha(prob.p, a),
            "D0": float(w_s @ w_s + eta_s**2)}


def subopt(inst: dict[str, Any], w: np.ndarray) -> float:
    return float(inst["S"].support(inst["problem"].losses(np.asarray(w))) - inst["f_star"])


def log_grid(top: int, k: int = 14) -> list[int]:
    return sorted({int(round(x)) for x in np.logspace(0, np.log10(top), k)})


@figure("rcfl_theorem1", "rFedFair suboptimality vs rounds (log-log) with the 002/000 Theorem 1 bounds, "
        "one panel per kappa")
def make(out_dir: Path, formats: tuple[str, ...], quick: bool) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fairtheory.algorithms.rfedfair import run_rfedfair
    from fairtheory.bounds.rcfl import theorem1_beta_max, theorem1_bound

    inst = theorem_instance()
    TN_max = 200 if quick else 2000
    TNs = log_grid(TN_max)
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.3), sharey=True)
    for ax, kappa in zip(axes, (1, 5, 10), strict=True):
        beta = theorem1_beta_max(inst["L"], kappa)
        Ts = [2 + kappa * r for r in TNs]
        kw = dict(mu=inst["mu"], alpha=inst["alpha"], kappa=kappa, checkpoints=Ts, record_every=10**9)
        res = run_rfedfair(inst["problem"], T=Ts[-1], beta=beta, **kw)
        fast = run_rfedfair(inst["problem"], T=Ts[-1], beta=100 * beta, **kw)
        for v, style in (("002", "-o"), ("000", "-x")):
            ax.loglog(TNs, [subopt(inst, res.checkpoints[T][v][0]) for T in Ts], style, ms=3,
                      label=f"rFedFair, {v} output")
            ax.loglog(TNs, [theorem1_bound(dist0_sq=inst["D0"], beta=beta, T=T, kappa=kappa, L=inst["L"],
                                           rho2=inst["rho2"], mu=inst["mu"], tau_alpha=inst["tau"], version=v)
                            for T in Ts], "--", label=f"{v} Thm. 1 bound")
        ax.loglog(TNs, [max(subopt(inst, fast.checkpoints[T]["002"][0]), 1e-12) for T in Ts], ":",
                  color="grey", label="002 output, beta = 100 beta_max (outside conditions)")
        ax.axhline(inst["mu"] * inst["tau"], color="k", lw=0.8, label="mu tau_alpha")
        ax.set_title(f"kappa = {kappa}\nbeta = beta_max = {beta:.2e}", fontsize=10)
        ax.set_xlabel("rounds T_N = (T-2)/kappa")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("f_alpha(w_tilde) - f*_alpha")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, bbox_to_anchor=(0.5, -0.12))
    fig.suptitle(f"rFedFair, full participation: logistic n={inst['problem'].n}, L={inst['L']:.1f}, "
                 f"rho^2={inst['rho2']:.3f}, mu={inst['mu']}", y=1.06)
    return save(fig, out_dir, "rcfl_theorem1", formats)
